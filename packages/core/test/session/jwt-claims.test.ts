/**
 * Portcullis's own claims in a JWT session cookie, and when the cookie is re-issued: the
 * step-up id (`pcl_su`) minted at sign-in without a registry, the registry id (`pcl_sid`)
 * and sign-in time (`pcl_created`) with session management — all kept across a jwt
 * callback that rebuilds the token, none invented where they do not belong — and the
 * session's `expires` (extended on re-issue, capped at `absoluteMaxAge`).
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import type { JWT } from "@portcullis/core/jwt"
import { MemorySessionRegistry } from "@portcullis/memory-adapter"
import { Browser } from "../helpers.js"
import { check, claimsOf, cookieOf, now, ORIGIN, runtime } from "./jwt-support.js"

const DAY = 86_400
const HEX32 = /^[0-9a-f]{32}$/
/** A jwt callback that builds a new token from scratch, as many apps' callbacks do. */
const rebuild = ({ token }: { token: JWT }) => ({ sub: token.sub, name: token.name, email: token.email, role: "reader" })

afterEach(() => {
  vi.useRealTimers()
})

async function signedIn(auth: ReturnType<typeof runtime>) {
  const browser = new Browser((request) => auth.handle(request), ORIGIN)
  expect((await browser.signIn({ username: "ada" })).status).toBe(302)
  return { browser, claims: await claimsOf(browser.sessionCookie()!) }
}

describe("sign-in without session management", () => {
  it("mints a step-up id of 128 random bits, and no registry id or sign-in time", async () => {
    const { claims } = await signedIn(runtime())
    expect(claims.pcl_su).toMatch(HEX32)
    expect(claims).not.toHaveProperty("pcl_sid")
    expect(claims).not.toHaveProperty("pcl_created")
    const { claims: other } = await signedIn(runtime())
    expect(other.pcl_su).not.toBe(claims.pcl_su)
  })
})

describe("sign-in with a registry", () => {
  it("names the session by its registry id (no step-up id) and records when it began", async () => {
    const registry = new MemorySessionRegistry()
    const before = now()
    const { claims } = await signedIn(runtime({ session: { registry } }))
    expect(claims.pcl_sid).toMatch(HEX32)
    expect(claims).not.toHaveProperty("pcl_su")
    expect(claims.pcl_created).toBeGreaterThanOrEqual(before)
    expect(claims.pcl_created).toBeLessThanOrEqual(now())
    const [record] = await registry.list("user-ada")
    expect(record!.id).toBe(claims.pcl_sid)
    // The record lives as long as the cookie: session.maxAge from now.
    expect(Math.abs(record!.expires.getTime() - (Date.now() + 30 * DAY * 1000))).toBeLessThan(5_000)
  })
})

describe("sign-in with absoluteMaxAge only", () => {
  it("records when the session began, and mints a step-up id (no registry id)", async () => {
    const before = now()
    const { claims } = await signedIn(runtime({ session: { absoluteMaxAge: DAY } }))
    expect(claims.pcl_created).toBeGreaterThanOrEqual(before)
    expect(claims.pcl_su).toMatch(HEX32)
    expect(claims).not.toHaveProperty("pcl_sid")
  })
})

describe("a jwt callback that rebuilds the token", () => {
  it("keeps the step-up id", async () => {
    const auth = runtime({ callbacks: { jwt: rebuild } })
    const { claims } = await check(auth, await cookieOf({ sub: "user-ada", name: "Ada", pcl_su: "5".repeat(32) }))
    expect(claims).toMatchObject({ role: "reader", pcl_su: "5".repeat(32) })
  })

  it("keeps the registry id and the sign-in time", async () => {
    const registry = new MemorySessionRegistry()
    const plain = runtime({ session: { registry } })
    const { browser, claims: issued } = await signedIn(plain)
    const auth = runtime({ session: { registry }, callbacks: { jwt: rebuild } })
    const { session, claims } = await check(auth, browser.sessionCookie()!)
    expect(session?.user?.name).toBe("Ada")
    expect(claims).toMatchObject({ role: "reader", pcl_sid: issued.pcl_sid, pcl_created: issued.pcl_created })
  })

  it("without session management, leaves a claim of those names the callback sets to the app", async () => {
    const auth = runtime({ callbacks: { jwt: ({ token }) => ({ ...rebuild({ token }), pcl_sid: "a".repeat(32), pcl_created: 1, pcl_su: "b".repeat(32) }) } })
    const { claims } = await check(auth, await cookieOf({ sub: "user-ada", name: "Ada" }))
    expect(claims).toMatchObject({ pcl_sid: "a".repeat(32), pcl_created: 1, pcl_su: "b".repeat(32) })
  })
})

describe("what the app's callbacks see", () => {
  it("the jwt and session callbacks get exactly the cookie's claims, with no empty Portcullis claims added", async () => {
    const seen: { jwt?: string[]; session?: string[] } = {}
    const auth = runtime({
      session: { absoluteMaxAge: DAY },
      callbacks: {
        jwt: ({ token }) => ((seen.jwt = Object.keys(token)), token),
        session: ({ session, token }) => ((seen.session = Object.keys(token)), session),
      },
    })
    // A token from before absoluteMaxAge was set: no sign-in time, no ids.
    await check(auth, await cookieOf({ sub: "user-ada", name: "Ada" }))
    expect(seen.jwt!.sort()).toEqual(["exp", "iat", "jti", "name", "sub"])
    expect(seen.session!.sort()).toEqual(["exp", "iat", "jti", "name", "sub"])
  })

  it("a session event that changes its token does not change the next check's", async () => {
    const auth = runtime({ events: { session: ({ token }) => void (token.name = "Changed") } })
    const value = await cookieOf({ sub: "user-ada", name: "Ada" })
    expect((await check(auth, value)).session?.user?.name).toBe("Ada")
    expect((await check(auth, value)).session?.user?.name).toBe("Ada")
  })
})

describe("a token from before absoluteMaxAge was set", () => {
  it("starts counting at its iat: a re-issued cookie gets that as its sign-in time", async () => {
    const auth = runtime({ session: { absoluteMaxAge: DAY }, callbacks: { jwt: rebuild } })
    const value = await cookieOf({ sub: "user-ada", name: "Ada" })
    const { iat } = await claimsOf(value)
    const { claims } = await check(auth, value)
    expect(claims).toMatchObject({ role: "reader", pcl_created: iat })
  })

  it("without session management a re-issued cookie gets no sign-in time", async () => {
    const auth = runtime({ callbacks: { jwt: rebuild } })
    const { claims } = await check(auth, await cookieOf({ sub: "user-ada", name: "Ada" }))
    expect(claims).toMatchObject({ role: "reader" })
    expect(claims).not.toHaveProperty("pcl_created")
  })
})

describe("expires", () => {
  it("a re-issued session expires session.maxAge from now", async () => {
    const auth = runtime({ session: { maxAge: 2 * DAY }, callbacks: { jwt: rebuild } })
    const { session, claims } = await check(auth, await cookieOf({ sub: "user-ada", name: "Ada" }))
    expect(claims).toBeDefined()
    expect(Math.abs(Date.parse(session.expires) - (Date.now() + 2 * DAY * 1000))).toBeLessThan(5_000)
  })

  it("is capped at absoluteMaxAge after the sign-in, however recently the session was extended", async () => {
    const created = now() - DAY
    const auth = runtime({ session: { absoluteMaxAge: 2 * DAY }, callbacks: { jwt: rebuild } })
    const { session, claims } = await check(auth, await cookieOf({ sub: "user-ada", name: "Ada", pcl_created: created }))
    expect(claims).toMatchObject({ pcl_created: created })
    expect(Date.parse(session.expires)).toBe((created + 2 * DAY) * 1000)
  })

  it("a session at exactly absoluteMaxAge has ended; a second before, it stands", async () => {
    vi.useFakeTimers({ toFake: ["Date"] })
    const created = now() - DAY
    const auth = runtime({ session: { absoluteMaxAge: DAY } })
    vi.setSystemTime(created * 1000 + DAY * 1000 - 1000)
    const value = await cookieOf({ sub: "user-ada", name: "Ada", pcl_created: created })
    expect((await check(auth, value)).session?.user?.name).toBe("Ada")
    vi.setSystemTime(created * 1000 + DAY * 1000)
    const ended = await check(auth, value)
    expect(ended.session).toBeNull()
    expect(ended.cookie).toBe("deleted")
  })
})

describe("re-issue at updateAge", () => {
  it("a token exactly updateAge old is re-issued; one a second younger is not", async () => {
    vi.useFakeTimers({ toFake: ["Date"] })
    const issued = Date.now()
    const auth = runtime({ session: { updateAge: 3600 } })
    const value = await cookieOf({ sub: "user-ada", name: "Ada" })
    vi.setSystemTime(issued + 3599_000)
    expect((await check(auth, value)).cookie).toBeUndefined()
    vi.setSystemTime(issued + 3600_000)
    const due = await check(auth, value)
    expect(due.claims).toMatchObject({ sub: "user-ada", name: "Ada" })
  })
})

describe("an update (POST /auth/session)", () => {
  it("re-issues the cookie even when the jwt callback changed nothing", async () => {
    const { browser } = await signedIn(runtime())
    const before = browser.sessionCookie()
    const csrfToken = await browser.csrfToken()
    const response = await browser.request("/auth/session", { json: { csrfToken, data: { theme: "dark" } } })
    expect(response.status).toBe(200)
    expect(browser.lastSetCookies.some((c) => c.name === "authjs.session-token" && c.value !== "")).toBe(true)
    expect(browser.sessionCookie()).not.toBe(before)
  })
})
