/**
 * `getToken` (`@portcullis/core/jwt`) reading the session of a real sign-in, with each of
 * its options, as Auth.js's `getToken` (`@auth/core/jwt`): `cookieName` (and `salt`
 * defaulting to it), `salt`, a custom `decode`, `secret` as a list (rotation), `raw`,
 * `secureCookie`, and `Authorization: Bearer` when there is no cookie. A token it cannot
 * read is `null`, never an exception.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import * as authjs from "@auth/core/jwt"
import { decode, encode, getToken, type JWTDecodeParams } from "@portcullis/core/jwt"
import { Browser, credentialsConfig, direct, SECRET } from "../helpers.js"

const COOKIE = "authjs.session-token"
const OLD_SECRET = "the-secret-before-rotation-32-characters-long"

afterEach(() => {
  vi.unstubAllEnvs()
})

/** Signs Ada in on an app built from `extra`; returns the browser holding her session. */
async function signedIn(extra: Parameters<typeof credentialsConfig>[0] = {}, origin?: string): Promise<Browser> {
  const browser = new Browser(direct(credentialsConfig(extra)), origin)
  const response = await browser.signIn()
  expect(response.status).toBe(302)
  return browser
}

const requestOf = (browser: Browser, headers: Record<string, string> = {}) => new Request("http://localhost:3000/api/me", { headers: { cookie: browser.cookieHeader(), ...headers } })

describe("getToken: cookieName and salt", () => {
  it("reads a session cookie of another name, with that name as the salt by default", async () => {
    const name = "my-app.session"
    const browser = await signedIn({ cookies: { sessionToken: { name } } })
    expect(browser.sessionCookie(name)).toBeTruthy()
    expect(await getToken({ req: requestOf(browser), secret: SECRET, cookieName: name })).toMatchObject({ sub: "user-ada" })
    // Under the default name there is nothing to read.
    expect(await getToken({ req: requestOf(browser), secret: SECRET })).toBeNull()
  })

  it("decrypts with the given salt, and with no other", async () => {
    const token = await encode({ token: { sub: "salted" }, secret: SECRET, salt: "custom-salt" })
    const req = { headers: { cookie: `${COOKIE}=${token}` } }
    expect(await getToken({ req, secret: SECRET, salt: "custom-salt" })).toMatchObject({ sub: "salted" })
    expect(await getToken({ req, secret: SECRET })).toBeNull()
  })
})

describe("getToken: a custom decode", () => {
  it("is called with the token, secret and salt, and its result returned", async () => {
    const browser = await signedIn()
    const seen: JWTDecodeParams[] = []
    const customDecode = async (params: JWTDecodeParams) => {
      seen.push(params)
      const payload = await decode(params)
      return payload && { ...payload, decodedBy: "app" }
    }
    const token = await getToken({ req: requestOf(browser), secret: SECRET, decode: customDecode })
    expect(token).toMatchObject({ sub: "user-ada", decodedBy: "app" })
    expect(seen).toEqual([{ token: browser.sessionCookie(), secret: SECRET, salt: COOKIE }])
  })

  it("that throws makes the result null", async () => {
    const browser = await signedIn()
    const failing = async (): Promise<never> => {
      throw new Error("cannot decode")
    }
    expect(await getToken({ req: requestOf(browser), secret: SECRET, decode: failing, logger: { error: () => {} } })).toBeNull()
  })
})

describe("getToken: secret as a list", () => {
  it("decodes a token made with an older secret that is still on the list (rotation)", async () => {
    const browser = await signedIn({ secret: OLD_SECRET })
    expect(await getToken({ req: requestOf(browser), secret: [SECRET, OLD_SECRET] })).toMatchObject({ sub: "user-ada" })
    expect(await getToken({ req: requestOf(browser), secret: [SECRET] })).toBeNull()
    // Auth.js reads it the same way.
    expect(await authjs.getToken({ req: requestOf(browser), secret: [SECRET, OLD_SECRET] })).toMatchObject({ sub: "user-ada" })
  })
})

describe("getToken: raw", () => {
  it("returns the cookie's token string unopened, chunks reassembled, without needing a secret", async () => {
    const browser = await signedIn({ callbacks: { jwt: ({ token }) => ({ ...token, notes: "n".repeat(6000) }) } })
    const chunks = [...browser.jar].filter(([name]) => name.startsWith(`${COOKIE}.`)).sort(([a], [b]) => Number(a.split(".").at(-1)) - Number(b.split(".").at(-1)))
    expect(chunks.length).toBeGreaterThan(1)
    const raw = await getToken({ req: requestOf(browser), raw: true })
    expect(raw).toBe(chunks.map(([, cookie]) => cookie.value).join(""))
    expect(await decode({ token: raw, secret: SECRET, salt: COOKIE })).toMatchObject({ sub: "user-ada" })
  })

  it("returns null when there is no token", async () => {
    expect(await getToken({ req: new Request("http://localhost:3000/"), raw: true })).toBeNull()
  })
})

describe("getToken: secureCookie", () => {
  it("reads the __Secure- cookie an https app sets when true, and not when false", async () => {
    const browser = await signedIn({}, "https://app.example")
    expect(browser.sessionCookie(`__Secure-${COOKIE}`)).toBeTruthy()
    const req = { headers: { cookie: browser.cookieHeader() } }
    expect(await getToken({ req, secret: SECRET, secureCookie: true })).toMatchObject({ sub: "user-ada" })
    expect(await getToken({ req, secret: SECRET, secureCookie: false })).toBeNull()
  })

  it("defaults to whether AUTH_URL is https (Auth.js's core defaults to false)", async () => {
    const browser = await signedIn({}, "https://app.example")
    const req = { headers: { cookie: browser.cookieHeader() } }
    vi.stubEnv("AUTH_URL", "https://app.example")
    expect(await getToken({ req, secret: SECRET })).toMatchObject({ sub: "user-ada" })
    vi.stubEnv("AUTH_URL", "http://localhost:3000")
    expect(await getToken({ req, secret: SECRET })).toBeNull()
  })
})

describe("getToken: Authorization: Bearer", () => {
  it("reads a bearer token when there is no session cookie", async () => {
    const raw = (await signedIn()).sessionCookie()!
    const req = new Request("http://localhost:3000/api/me", { headers: { authorization: `Bearer ${raw}` } })
    expect(await getToken({ req, secret: SECRET })).toMatchObject({ sub: "user-ada" })
    expect(await getToken({ req, raw: true })).toBe(raw)
  })

  it("prefers the session cookie over the header", async () => {
    const browser = await signedIn()
    const other = await encode({ token: { sub: "someone-else" }, secret: SECRET, salt: COOKIE })
    const token = await getToken({ req: requestOf(browser, { authorization: `Bearer ${other}` }), secret: SECRET })
    expect(token).toMatchObject({ sub: "user-ada" })
  })

  it("is null for another scheme, a forged token or broken percent-encoding", async () => {
    const raw = (await signedIn()).sessionCookie()!
    for (const authorization of [`Basic ${raw}`, `bearer-ish ${raw}`, "Bearer forged.token.value.x.y", "Bearer %E0%A4%A", "Bearer"]) {
      expect(await getToken({ req: { headers: { authorization } }, secret: SECRET }), authorization).toBeNull()
    }
  })
})
