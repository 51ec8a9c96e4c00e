/**
 * The attacker's side of the two-factor step: a first factor alone never yields a session —
 * not by asking for one, not with a forged, tampered, foreign or replayed challenge, not by
 * guessing, not by using one code twice at the same moment.
 */
import { describe, expect, it } from "vitest"
import { totpCode } from "@portcullis/core/two-factor"
import { Browser, direct } from "../helpers.js"
import { enroll, firstFactor, raceSecondFactor, secondFactor, twoFactorApp } from "./support.js"

const CHALLENGE = "portcullis.two-factor"

/** A six-digit code that is not the secret's code at any step near now. */
function wrongCode(secret: string): string {
  const near = new Set([-1, 0, 1].map((step) => totpCode(secret, Date.now() + step * 30_000)))
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, "0")
    if (!near.has(code)) return code
  }
}

/** The location of a refusal that sends the user back to sign in. */
const BACK_TO_SIGNIN = "http://localhost:3000/auth/signin?error=TwoFactorChallengeInvalid"

describe("skipping the step", () => {
  it("gives no session to a client that asks for one after the first factor", async () => {
    const { config, browser } = twoFactorApp()
    await enroll(config)
    const b = browser()
    await firstFactor(b)
    expect(await b.session()).toBeNull()
    const csrfToken = await b.csrfToken()
    const update = await b.request("/auth/session", { json: { csrfToken, data: { name: "x" } } })
    expect(await update.json()).toBeNull()
    expect(b.sessionCookie()).toBeUndefined()
  })

  it("sends a page request without a challenge back to sign in", async () => {
    const { config, browser } = twoFactorApp()
    await enroll(config)
    const response = await browser().request("/auth/two-factor")
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(BACK_TO_SIGNIN)
  })

  it("refuses a code post without the CSRF token", async () => {
    const { config, browser } = twoFactorApp()
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    const response = await b.request("/auth/two-factor", { form: { code: totpCode(secret) } })
    expect(response.headers.get("location")).toContain("error=MissingCSRF")
    expect(b.sessionCookie()).toBeUndefined()
  })
})

describe("bad input at the code post", () => {
  it("answers a code that is missing, not a string, or far too long with the page again (401), never a 500", async () => {
    const { config, browser } = twoFactorApp()
    await enroll(config)
    const b = browser()
    await firstFactor(b)
    const csrfToken = await b.csrfToken()
    const bodies: unknown[] = [{ csrfToken }, { csrfToken, code: { $ne: "" } }, { csrfToken, code: ["123456", "654321"] }, { csrfToken, code: "1".repeat(10_000) }]
    for (const json of bodies) {
      const response = await b.request("/auth/two-factor", { json, headers: { accept: "text/html" } })
      expect(response.status, JSON.stringify(json).slice(0, 60)).toBe(401)
    }
    expect(b.sessionCookie()).toBeUndefined()
  })
})

describe("forged and tampered challenges", () => {
  it("refuses a made-up challenge cookie, even with the right code", async () => {
    const { config, browser } = twoFactorApp()
    const { secret } = await enroll(config)
    const b = browser()
    b.jar.set(CHALLENGE, { value: "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIn0..x.y.z", attributes: {} })
    const response = await secondFactor(b, totpCode(secret))
    expect(response.headers.get("location")).toBe(BACK_TO_SIGNIN)
    expect(b.sessionCookie()).toBeUndefined()
    expect(b.jar.has(CHALLENGE)).toBe(false)
  })

  it("refuses a challenge with one character changed", async () => {
    const { config, browser } = twoFactorApp()
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    const sealed = b.jar.get(CHALLENGE)!.value
    const i = sealed.length - 30
    b.jar.set(CHALLENGE, { value: sealed.slice(0, i) + (sealed[i] === "A" ? "B" : "A") + sealed.slice(i + 1), attributes: {} })
    expect((await secondFactor(b, totpCode(secret))).headers.get("location")).toBe(BACK_TO_SIGNIN)
    expect(b.sessionCookie()).toBeUndefined()
  })

  it("refuses another sealed cookie of the same configuration in its place (a session token)", async () => {
    // A user without 2FA signs in; their session JWE, sealed under the same secret with
    // another salt, must not open as a challenge.
    const { config, browser } = twoFactorApp()
    const plain = browser()
    await firstFactor(plain)
    const sessionToken = plain.sessionCookie()!
    const { secret } = await enroll(config)
    const b = browser()
    b.jar.set(CHALLENGE, { value: sessionToken, attributes: {} })
    expect((await secondFactor(b, totpCode(secret))).headers.get("location")).toBe(BACK_TO_SIGNIN)
    expect(b.sessionCookie()).toBeUndefined()
  })

  it("refuses a challenge sealed under another secret", async () => {
    const { config, browser } = twoFactorApp()
    const { secret } = await enroll(config)
    const other = twoFactorApp({ secret: "another-secret-with-at-least-32-characters!" }, config.adapter)
    const elsewhere = other.browser()
    await firstFactor(elsewhere)
    const b = browser()
    b.jar.set(CHALLENGE, { value: elsewhere.jar.get(CHALLENGE)!.value, attributes: {} })
    expect((await secondFactor(b, totpCode(secret))).headers.get("location")).toBe(BACK_TO_SIGNIN)
    expect(b.sessionCookie()).toBeUndefined()
  })
})

describe("replaying a challenge", () => {
  it("does not give a second session from a copy of a challenge whose code passed", async () => {
    const { config, browser } = twoFactorApp()
    const { secret, backupCodes } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    const copy = b.jar.get(CHALLENGE)!.value
    expect((await secondFactor(b, totpCode(secret))).status).toBe(302)
    const attacker = browser()
    attacker.jar.set(CHALLENGE, { value: copy, attributes: {} })
    expect((await secondFactor(attacker, backupCodes[0]!)).headers.get("location")).toBe(BACK_TO_SIGNIN)
    expect(attacker.sessionCookie()).toBeUndefined()
  })
})

describe("guessing codes", () => {
  it("allows 5 wrong codes per challenge; then even the right code is refused, and an older copy of the cookie does not reset the count", async () => {
    const { config, browser } = twoFactorApp()
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    const copy = b.jar.get(CHALLENGE)!.value
    for (let i = 0; i < 5; i++) expect((await secondFactor(b, wrongCode(secret))).status).toBe(401)
    b.jar.set(CHALLENGE, { value: copy, attributes: {} })
    const sixth = await secondFactor(b, totpCode(secret))
    expect(sixth.headers.get("location")).toBe(BACK_TO_SIGNIN)
    expect(b.sessionCookie()).toBeUndefined()
    // A new first factor starts a new challenge.
    await firstFactor(b)
    expect((await secondFactor(b, totpCode(secret))).status).toBe(302)
  })

  it("judges at most 5 of 50 concurrent guesses on one challenge", async () => {
    const { config, browser } = twoFactorApp()
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    const csrfToken = await b.csrfToken()
    const cookie = b.cookieHeader()
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        direct(config)(new Request("http://localhost:3000/auth/two-factor", {
          method: "POST",
          headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ code: wrongCode(secret), csrfToken }),
        })),
      ),
    )
    expect(responses.filter((r) => r.status === 401)).toHaveLength(5)
    expect(responses.filter((r) => r.headers.get("location") === BACK_TO_SIGNIN)).toHaveLength(45)
  })

  it("limits codes per user across challenges with the rate limiter on (10 per 15 minutes)", async () => {
    const { config, browser } = twoFactorApp({ rateLimit: {} })
    const { secret } = await enroll(config)
    const b = browser()
    let refused: Response | undefined
    for (let i = 0; i < 4 && !refused; i++) {
      await firstFactor(b)
      for (let j = 0; j < 3; j++) {
        const response = await secondFactor(b, wrongCode(secret))
        if (response.status !== 401) {
          refused = response
          // The enrollment's confirming code counted too: the same per-user limit as the step.
          expect(i * 3 + j).toBe(9)
          break
        }
      }
    }
    expect(refused?.headers.get("location")).toContain("error=RateLimited")
    expect(b.sessionCookie()).toBeUndefined()
  })
})

describe("using one code twice at once", () => {
  it("gives exactly one of 10 concurrent sign-ins with the same backup code a session", async () => {
    const { config, browser } = twoFactorApp()
    const { backupCodes } = await enroll(config)
    const { responses, signedIn } = await raceSecondFactor(browser, backupCodes[0]!)
    expect(responses.filter((r) => r.status === 302)).toHaveLength(1)
    expect(responses.filter((r) => r.status === 401)).toHaveLength(9)
    expect(signedIn).toHaveLength(1)
  })

  it("gives exactly one of 10 concurrent sign-ins with the same TOTP code a session", async () => {
    const { config, browser } = twoFactorApp()
    const { secret } = await enroll(config)
    const { responses, signedIn } = await raceSecondFactor(browser, totpCode(secret))
    expect(responses.filter((r) => r.status === 302)).toHaveLength(1)
    expect(signedIn).toHaveLength(1)
  })
})
