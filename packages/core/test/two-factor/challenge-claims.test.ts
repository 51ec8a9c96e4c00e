/**
 * The challenge cookie's claims, each checked on its own (issue 36). A challenge that decrypts
 * under the right key is still refused when a claim it needs is missing, of the wrong type,
 * names another user than its sign-in result, or is past its expiry — by the challenge's own
 * check, with no clock tolerance (the JWE layer allows 15 s). The forgeries here are sealed
 * with the configuration's secret, as a bug in our own code (or a leaked secret) would seal
 * them, so the claims check is the only layer between them and a session.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import type { AuditEvent } from "@portcullis/core"
import { decode, encode } from "@portcullis/core/jwt"
import { totpCode } from "@portcullis/core/two-factor"
import { captureLogger, SECRET, type Browser } from "../helpers.js"
import { enroll, firstFactor, secondFactor, twoFactorApp } from "./support.js"

const CHALLENGE = "portcullis.two-factor"
const BACK_TO_SIGNIN = "http://localhost:3000/auth/signin?error=TwoFactorChallengeInvalid"

afterEach(() => {
  vi.useRealTimers()
})

/** Ada past her first factor, with the claims of her (genuine) challenge. */
async function challenged() {
  const { config, browser } = twoFactorApp()
  const { secret } = await enroll(config)
  const b = browser()
  await firstFactor(b)
  const claims = (await decode<Record<string, unknown>>({ token: b.jar.get(CHALLENGE)!.value, secret: SECRET, salt: CHALLENGE }))!
  return { b, secret, claims }
}

/** Replaces the browser's challenge with `claims`, sealed with the configuration's secret. */
async function plant(b: Browser, claims: Record<string, unknown>) {
  const { iat: _iat, exp: _exp, jti: _jti, ...token } = claims
  b.jar.set(CHALLENGE, { value: await encode({ token, secret: SECRET, salt: CHALLENGE, maxAge: 300 }), attributes: {} })
}

/** Posts the right code; expects the refusal that sends the user back to sign in, the cookie gone, no session. */
async function expectRefused(b: Browser, secret: string) {
  const response = await secondFactor(b, totpCode(secret))
  expect(response.headers.get("location")).toBe(BACK_TO_SIGNIN)
  expect(b.jar.has(CHALLENGE)).toBe(false)
  expect(b.sessionCookie()).toBeUndefined()
}

/**
 * The code posted against a refused challenge was never judged: after a new first factor the
 * same code still signs in. (Judged, its time step would be used up, and it would count as a
 * wrong code against the user.)
 */
async function expectCodeUnused(b: Browser, secret: string) {
  await firstFactor(b)
  expect((await secondFactor(b, totpCode(secret))).status).toBe(302)
  expect(b.sessionCookie()).toBeDefined()
}

describe("a challenge resealed unchanged (the forgery works)", () => {
  it("passes with the right code: what the cases below refuse is the claim they change", async () => {
    const { b, secret, claims } = await challenged()
    await plant(b, claims)
    expect((await secondFactor(b, totpCode(secret))).status).toBe(302)
    expect(b.sessionCookie()).toBeDefined()
  })
})

describe("a challenge missing a claim, or with one of the wrong type", () => {
  const cases: [string, (claims: Record<string, unknown>) => Record<string, unknown>][] = [
    ["no user id", ({ uid: _uid, ...rest }) => rest],
    ["a numeric user id", (claims) => ({ ...claims, uid: 42 })],
    ["no challenge id", ({ cid: _cid, ...rest }) => rest],
    ["a numeric challenge id", (claims) => ({ ...claims, cid: 7 })],
    ["no callback URL", ({ callbackUrl: _url, ...rest }) => rest],
    ["a callback URL that is no string", (claims) => ({ ...claims, callbackUrl: ["http://localhost:3000"] })],
    ["no sign-in result", ({ result: _result, ...rest }) => rest],
    ["a sign-in result that is a string", (claims) => ({ ...claims, result: "user-ada" })],
  ]
  for (const [name, change] of cases) {
    it(`refuses one with ${name}, before any code is judged`, async () => {
      const { b, secret, claims } = await challenged()
      await plant(b, change(claims))
      await expectRefused(b, secret)
      await expectCodeUnused(b, secret)
    })
  }
})

describe("a challenge whose user is not its sign-in result's user", () => {
  it("refuses Ada's challenge carrying Mallory's sign-in result", async () => {
    const { b, secret, claims } = await challenged()
    const result = claims.result as { user: Record<string, unknown> }
    await plant(b, { ...claims, result: { ...result, user: { ...result.user, id: "user-mallory" } } })
    await expectRefused(b, secret)
  })

  it("refuses one whose sign-in result has no user", async () => {
    const { b, secret, claims } = await challenged()
    await plant(b, { ...claims, result: {} })
    await expectRefused(b, secret)
  })
})

describe("a challenge past its expiry", () => {
  it("is refused from its expiry on, inside the 15 s the JWE layer would still allow", async () => {
    const { b, secret, claims } = await challenged()
    vi.useFakeTimers({ toFake: ["Date"], now: (claims.exp as number) * 1000 + 5_000 })
    await expectRefused(b, secret)
    await expectCodeUnused(b, secret)
  })

  it("does not show the code page from its expiry on: back to sign in", async () => {
    const { b, claims } = await challenged()
    vi.useFakeTimers({ toFake: ["Date"], now: (claims.exp as number) * 1000 })
    const response = await b.request("/auth/two-factor")
    expect(response.headers.get("location")).toBe(BACK_TO_SIGNIN)
    expect(b.jar.has(CHALLENGE)).toBe(false)
  })

  it("is still taken the second before its expiry", async () => {
    const { b, secret, claims } = await challenged()
    vi.useFakeTimers({ toFake: ["Date"], now: (claims.exp as number) * 1000 - 1_000 })
    expect((await secondFactor(b, totpCode(secret))).status).toBe(302)
  })
})

describe("the challenge's lifetime", () => {
  it("is five minutes, in the sealed claims and in the cookie", async () => {
    const { config, browser } = twoFactorApp()
    await enroll(config)
    const b = browser()
    const before = Math.floor(Date.now() / 1000)
    await firstFactor(b)
    const cookie = b.jar.get(CHALLENGE)!
    expect(cookie.attributes["max-age"]).toBe("300")
    const expires = Date.parse(cookie.attributes.expires!) / 1000
    expect(expires).toBeGreaterThanOrEqual(before + 300)
    expect(expires).toBeLessThanOrEqual(Date.now() / 1000 + 300)
    // Five minutes on (past the sealed expiry's 15 s of tolerance), the page sends the user back.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 316_000 })
    expect((await b.request("/auth/two-factor")).headers.get("location")).toBe(BACK_TO_SIGNIN)
  })
})

describe("what the log says of a refused challenge", () => {
  it("tells a missing challenge from one that could not be opened", async () => {
    for (const [cookie, line] of [
      [undefined, "There is no two-factor challenge: sign in first"],
      ["not-a-challenge", "The two-factor challenge could not be opened (expired or tampered with)"],
    ] as const) {
      const log = captureLogger()
      const { config, browser } = twoFactorApp({ logger: log.logger })
      await enroll(config)
      const b = browser()
      if (cookie) b.jar.set(CHALLENGE, { value: cookie, attributes: {} })
      await b.request("/auth/two-factor")
      expect(log.lines.join("\n")).toContain(line)
    }
  })
})

describe("the first factor's provider", () => {
  it("is carried through the challenge: the signIn audit event after the code names it", async () => {
    const audited: AuditEvent[] = []
    const { config, browser } = twoFactorApp({ events: { audit: (event) => void audited.push(event) } })
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    expect((await secondFactor(b, totpCode(secret))).status).toBe(302)
    expect(audited.filter((event) => event.type === "signIn")).toEqual([expect.objectContaining({ method: "credentials", provider: "credentials" })])
  })
})

describe("the provider claim", () => {
  it("is dropped when it is no string: the session is issued without a provider", async () => {
    const { b, secret, claims } = await challenged()
    await plant(b, { ...claims, provider: 12 })
    expect((await secondFactor(b, totpCode(secret))).status).toBe(302)
    expect(b.sessionCookie()).toBeDefined()
  })
})
