/**
 * The app's own session tokens:
 *
 * - `jwt.encode` / `jwt.decode`: the app's codec makes every session cookie and reads it
 *   back (sign-in, session reads, re-issue), called as Auth.js calls it (`{ token, secret,
 *   salt, maxAge }` to encode, `{ token, secret, salt }` to decode). `getToken` has no
 *   configuration: like Auth.js's, it uses the codec it is given as `decode`.
 * - `jwt.maxAge`: the token's lifetime (`exp - iat`); the cookie's `Expires` follows
 *   `session.maxAge`, as in Auth.js (`cookieExpires = now + session.maxAge`).
 * - `session.generateSessionToken`: the token of every database session row, which is
 *   also the cookie's value.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import { SignJWT, jwtVerify } from "jose"
import type { AuthConfig } from "@portcullis/core"
import { decode, getToken, type JWTDecodeParams, type JWTEncodeParams } from "@portcullis/core/jwt"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, credentialsConfig, direct, SECRET } from "../helpers.js"
import { openLink, requestLink, startSmtp, type TestSmtp } from "../email/support.js"

const COOKIE = "authjs.session-token"
const HOUR = 60 * 60

/** An app codec: signed (not encrypted) HS256 JWTs keyed by secret and salt. */
function signedCodec() {
  const calls = { encode: [] as JWTEncodeParams[], decode: [] as JWTDecodeParams[] }
  const key = (secret: string | string[], salt: string) => new TextEncoder().encode(`${[secret].flat()[0]}:${salt}`)
  return {
    calls,
    async encode(params: JWTEncodeParams): Promise<string> {
      calls.encode.push(params)
      const now = Math.floor(Date.now() / 1000)
      return new SignJWT({ ...params.token })
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt(now)
        .setExpirationTime(now + (params.maxAge ?? 30 * 24 * HOUR))
        .sign(key(params.secret, params.salt))
    },
    async decode(params: JWTDecodeParams) {
      calls.decode.push(params)
      if (!params.token) return null
      try {
        return (await jwtVerify(params.token, key(params.secret, params.salt), { algorithms: ["HS256"] })).payload
      } catch {
        return null
      }
    },
  }
}

afterEach(() => {
  vi.useRealTimers()
})

/** The `Expires` of the session cookie set by the last response, in ms since the epoch. */
function cookieExpiry(browser: Browser): number {
  const cookie = browser.lastSetCookies.find((c) => c.name === COOKIE)
  expect(cookie, "a session cookie was set").toBeDefined()
  return Date.parse(String(cookie!.attributes.expires))
}

describe("custom jwt.encode and jwt.decode", () => {
  it("make the session cookie at sign-in and read it back for the session", async () => {
    const codec = signedCodec()
    const browser = new Browser(direct(credentialsConfig({ jwt: { encode: codec.encode, decode: codec.decode, maxAge: HOUR } })))
    await browser.signIn()

    expect(codec.calls.encode).toHaveLength(1)
    expect(codec.calls.encode[0]).toMatchObject({ secret: SECRET, salt: COOKIE, maxAge: HOUR, token: { sub: "user-ada", email: "ada@example.com" } })
    // The cookie is the app's format (a three-part JWS), not the built-in JWE.
    const cookie = browser.sessionCookie()!
    expect(cookie.split(".")).toHaveLength(3)
    // (The built-in decode answers null or rejects, Auth.js's rejects: either way it does not open.)
    expect(await decode({ token: cookie, secret: SECRET, salt: COOKIE }).catch(() => null)).toBeNull()

    const session = await browser.session()
    expect(session.user).toEqual({ name: "Ada Lovelace", email: "ada@example.com", image: "https://example.com/ada.png" })
    expect(codec.calls.decode.at(-1)).toEqual({ token: cookie, secret: SECRET, salt: COOKIE })
  })

  it("re-issue a stale session through the app's encoder", async () => {
    const codec = signedCodec()
    const browser = new Browser(direct(credentialsConfig({ session: { updateAge: 0 }, jwt: { encode: codec.encode, decode: codec.decode } })))
    await browser.signIn()
    const first = browser.sessionCookie()
    vi.useFakeTimers({ toFake: ["Date"] })
    vi.setSystemTime(Date.now() + 2_000)
    expect((await browser.session()).user.name).toBe("Ada Lovelace")
    expect(codec.calls.encode).toHaveLength(2)
    expect(browser.sessionCookie()).not.toBe(first)
    expect(browser.sessionCookie()!.split(".")).toHaveLength(3)
  })

  it("a cookie the app's decoder rejects is no session, and is cleared", async () => {
    const codec = signedCodec()
    const browser = new Browser(direct(credentialsConfig({ jwt: { encode: codec.encode, decode: codec.decode } })))
    await browser.signIn()
    const [header, payload] = browser.sessionCookie()!.split(".")
    browser.jar.set(COOKIE, { value: `${header}.${payload}.forged-signature`, attributes: {} })
    const response = await browser.request("/auth/session")
    expect(response.status).toBe(200)
    expect(await response.json()).toBeNull()
    expect(browser.jar.has(COOKIE)).toBe(false)
  })

  it("getToken reads such a cookie with the codec given as decode, and not without it", async () => {
    const codec = signedCodec()
    const browser = new Browser(direct(credentialsConfig({ jwt: { encode: codec.encode, decode: codec.decode } })))
    await browser.signIn()
    const req = { headers: { cookie: browser.cookieHeader() } }
    expect(await getToken({ req, secret: SECRET, decode: codec.decode })).toMatchObject({ sub: "user-ada", email: "ada@example.com" })
    expect(await getToken({ req, secret: SECRET })).toBeNull()
  })
})

describe("jwt.maxAge", () => {
  it("is the lifetime of the token; the cookie expires after session.maxAge", async () => {
    const browser = new Browser(direct(credentialsConfig({ session: { maxAge: 24 * HOUR }, jwt: { maxAge: HOUR } })))
    const before = Date.now()
    await browser.signIn()
    const payload = await decode({ token: browser.sessionCookie()!, secret: SECRET, salt: COOKIE })
    expect(payload!.exp! - payload!.iat!).toBe(HOUR)
    expect(payload!.iat! * 1000).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000)
    const expires = cookieExpiry(browser)
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 24 * HOUR * 1000)
    expect(expires).toBeLessThanOrEqual(Date.now() + 24 * HOUR * 1000)
  })

  it("defaults to session.maxAge", async () => {
    const browser = new Browser(direct(credentialsConfig({ session: { maxAge: 2 * HOUR } })))
    await browser.signIn()
    const payload = await decode({ token: browser.sessionCookie()!, secret: SECRET, salt: COOKIE })
    expect(payload!.exp! - payload!.iat!).toBe(2 * HOUR)
  })

  it("is handed to a custom encoder as maxAge", async () => {
    const codec = signedCodec()
    await new Browser(direct(credentialsConfig({ session: { maxAge: 24 * HOUR }, jwt: { maxAge: 5 * 60, encode: codec.encode, decode: codec.decode } }))).signIn()
    expect(codec.calls.encode[0]!.maxAge).toBe(5 * 60)
  })

  it("a token past its jwt.maxAge is no session, though the cookie has not expired", async () => {
    vi.useFakeTimers({ toFake: ["Date"] })
    const browser = new Browser(direct(credentialsConfig({ session: { maxAge: 24 * HOUR }, jwt: { maxAge: HOUR } })))
    await browser.signIn()
    vi.setSystemTime(Date.now() + HOUR * 1000 - 60_000)
    expect((await browser.session()).user.name).toBe("Ada Lovelace")
    // Past exp and the 15 s clock tolerance Auth.js's decode allows.
    vi.setSystemTime(Date.now() + 60_000 + 16_000)
    expect(await browser.session()).toBeNull()
  })
})

describe("session.generateSessionToken with database sessions", () => {
  let smtp: TestSmtp
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(() => smtp.close())

  it("makes the token of every session row, which is the cookie's value", async () => {
    const adapter = MemoryAdapter()
    const issued: string[] = []
    const generateSessionToken = () => {
      const token = `app-token-${issued.length + 1}-${crypto.randomUUID()}`
      issued.push(token)
      return token
    }
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      session: { strategy: "database", generateSessionToken },
      providers: [Nodemailer({ id: "email", server: smtp.url, from: "auth@example.com" })],
    }
    for (const round of [1, 2]) {
      const browser = new Browser(direct(config))
      await requestLink(browser, "rows@example.com")
      await openLink(browser, smtp.linkFor("rows@example.com"))
      expect(issued).toHaveLength(round)
      expect(browser.sessionCookie()).toBe(issued[round - 1])
      const row = await adapter.getSessionAndUser!(issued[round - 1]!)
      expect(row?.user.email).toBe("rows@example.com")
      expect((await browser.session()).user.email).toBe("rows@example.com")
    }
  })
})
