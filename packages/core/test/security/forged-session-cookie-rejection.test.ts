/**
 * Attack on "jwt.decode now rejects instead of answering null": every place that opens a
 * session cookie must turn the rejection into "no session", never a 500 or an unhandled
 * rejection. Each forged cookie is sent to every action that reads the session, through
 * `Auth()` and through `getToken`, with the built-in decoder and with an app decoder that
 * delegates to it (the Auth.js pattern `decode: (p) => decode(p)`).
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { decode, encode, getToken } from "@portcullis/core/jwt"
import { Browser, credentialsConfig, direct, SECRET } from "../helpers.js"

const salt = "authjs.session-token"
const silent = () => ({ error: () => {}, warn: () => {}, debug: () => {} })

async function forgedCookies(): Promise<Record<string, string>> {
  const real = await encode({ token: { sub: "victim", name: "Victim" }, secret: SECRET, salt })
  const parts = real.split(".")
  const tag = parts[4]!
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url")
  return {
    garbage: `${salt}=garbage`,
    "another secret": `${salt}=${await encode({ token: { sub: "victim" }, secret: "somebody-elses-secret-somebody-elses", salt })}`,
    "another salt": `${salt}=${await encode({ token: { sub: "victim" }, secret: SECRET, salt: "other" })}`,
    "flipped tag": `${salt}=${[...parts.slice(0, 4), tag.slice(0, 3) + (tag[3] === "A" ? "B" : "A") + tag.slice(4)].join(".")}`,
    expired: `${salt}=${await encode({ token: { sub: "victim" }, secret: SECRET, salt, maxAge: -60 })}`,
    "alg none JWS": `${salt}=${b64({ alg: "none" })}.${b64({ sub: "victim" })}.`,
    "JWE header bomb": `${salt}=${b64({ alg: "dir", enc: "A256CBC-HS512", zip: "DEF", p2c: 1e9 })}.a.b.c.d`,
    "chunk gap": `${salt}.0=${parts[0]}; ${salt}.3=x`,
  }
}

/** Each request that reads the session cookie, as a browser would send it. */
const entries: [string, (b: Browser, cookie: string) => Promise<Response>][] = [
  ["GET /session", (b, cookie) => b.request("/auth/session", { headers: { cookie } })],
  ["POST /session (update)", async (b, cookie) => b.request("/auth/session", { headers: { cookie: `${cookie}; ${b.cookieHeader()}` }, json: { csrfToken: await b.csrfToken(), data: { name: "x" } } })],
  ["POST /signout", async (b, cookie) => b.request("/auth/signout", { headers: { cookie: `${cookie}; ${b.cookieHeader()}` }, form: { csrfToken: await b.csrfToken() } })],
  ["GET /signin", (b, cookie) => b.request("/auth/signin", { headers: { cookie } })],
  ["GET /signout", (b, cookie) => b.request("/auth/signout", { headers: { cookie } })],
  ["POST /callback/credentials", async (b, cookie) => b.request("/auth/callback/credentials", { headers: { cookie: `${cookie}; ${b.cookieHeader()}` }, form: { csrfToken: await b.csrfToken(), username: "ada", password: "wrong" } })],
]

const decoders: [string, Partial<AuthConfig>][] = [
  ["the built-in decoder", {}],
  ["an app decoder delegating to jwt.decode (rejects)", { jwt: { encode, decode: (params) => decode(params) } }],
]

describe.each(decoders)("attack: forged session cookies against every action, with %s", (_, extra) => {
  it.each(entries)("%s: every forged cookie is 'no session' (never a 5xx), and the session is not the victim's", async (_, send) => {
    for (const [kind, cookie] of Object.entries(await forgedCookies())) {
      const browser = new Browser(direct(credentialsConfig({ logger: silent(), ...extra })))
      const response = await send(browser, cookie)
      expect(response.status, kind).toBeLessThan(500)
      const session = await new Browser(direct(credentialsConfig({ logger: silent(), ...extra }))).request("/auth/session", { headers: { cookie } })
      expect(session.status, kind).toBe(200)
      expect(await session.json(), kind).toBeNull()
    }
  })
})

describe("attack: signOut with a forged cookie fires no signOut event for the forged token", () => {
  it("the built-in decoder: no event (the cookie ended no session)", async () => {
    const events: unknown[] = []
    const config = credentialsConfig({ logger: silent(), events: { signOut: (m) => void events.push(m) } })
    for (const cookie of Object.values(await forgedCookies())) {
      const browser = new Browser(direct(config))
      const response = await browser.request("/auth/signout", { headers: { cookie: `${cookie}; ${browser.cookieHeader()}` }, form: { csrfToken: await browser.csrfToken() } })
      expect(response.status).toBe(302)
    }
    expect(events).toEqual([])
  })
})

describe("attack: getToken with a forged cookie", () => {
  it("answers null for every forged cookie, never rejects", async () => {
    for (const [kind, cookie] of Object.entries(await forgedCookies())) {
      const req = new Request("http://localhost:3000/api", { headers: { cookie } })
      await expect(getToken({ req, secret: SECRET }), kind).resolves.toBeNull()
    }
  })

  it("a forged Bearer token too", async () => {
    const req = new Request("http://localhost:3000/api", { headers: { authorization: "Bearer not.a.jwe.at.all" } })
    await expect(getToken({ req, secret: SECRET })).resolves.toBeNull()
  })
})
