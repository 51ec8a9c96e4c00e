/**
 * CSRF attacks on every state-changing POST (2026-11-27; checklist T34): starting an OAuth
 * sign-in, requesting an email link, the credentials callback, sign-out and the session
 * update — each without a token, with a wrong one, with the attacker's own, with the
 * double-submit cookie tampered with or planted, with the token outside the body, and
 * with a valid token from another site. The safe outcome: `MissingCSRF` (or 400 for the
 * session update), and nothing happened — no provider trip, no mail, no session, no
 * sign-out, no change.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { ada, Browser, captureLogger, direct, SECRET, type Transport } from "../../helpers.js"
import { FakeOP } from "../../oauth/fixtures/fake-op.js"
import { startSmtp, type TestSmtp } from "../../email/support.js"

const ORIGIN = "http://localhost:3000"
const SECURE = "https://app.example"
const log = captureLogger()

let op: FakeOP
let smtp: TestSmtp
beforeAll(async () => {
  op = await FakeOP.start()
  smtp = await startSmtp()
})
afterAll(async () => {
  await op.close()
  await smtp.close()
})
beforeEach(() => op.reset())

function config(secret = SECRET): AuthConfig {
  return {
    secret,
    trustHost: true,
    trustedOrigins: [SECURE],
    adapter: MemoryAdapter(),
    session: { strategy: "jwt" },
    logger: log.logger,
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: async ({ username, password }) => (username === ada.username && password === ada.password ? { id: "user-ada", name: "Ada", email: "ada@example.com" } : null),
      }),
      Nodemailer({ id: "email", server: smtp.url, from: "auth@example.com" }),
      { id: "alpha", name: "Alpha", type: "oidc", issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>,
    ],
    callbacks: {
      jwt: ({ token, trigger, session }) => (trigger === "update" && typeof session?.nickname === "string" ? { ...token, nickname: session.nickname } : token),
      session: ({ session, token }) => ({ ...session, nickname: token.nickname }),
    },
  }
}

const csrfName = (origin: string) => (origin.startsWith("https:") ? "__Host-authjs.csrf-token" : "authjs.csrf-token")
const sessionName = (origin: string) => (origin.startsWith("https:") ? "__Secure-authjs.session-token" : "authjs.session-token")

/** What an attacker can put in the victim's request: the body, its encoding, headers, cookie changes. */
interface Forged {
  body?: Record<string, unknown> | string
  encoding?: "form" | "json" | "text"
  query?: string
  headers?: Record<string, string>
  cookies?: (jar: Browser["jar"]) => void
}

interface Context {
  victim: Browser
  /** The victim's genuine token (a valid request would send it). */
  token: string
  /** A token and cookie pair the attacker got for herself. */
  attacker: { token: string; cookie: string }
  /** A pair minted by a deployment with another secret. */
  foreign: { token: string; cookie: string }
  origin: string
}

const attacks: [string, (c: Context) => Forged][] = [
  ["no token at all", () => ({ body: {} })],
  ["an empty token", () => ({ body: { csrfToken: "" } })],
  ["a made-up token", () => ({ body: { csrfToken: "0".repeat(64) } })],
  ["the attacker's own token beside the victim's cookie", (c) => ({ body: { csrfToken: c.attacker.token } })],
  ["the victim's whole cookie value as the token", (c) => ({ body: { csrfToken: c.victim.jar.get(csrfName(c.origin))!.value } })],
  ["the hash half of the victim's cookie as the token", (c) => ({ body: { csrfToken: c.victim.jar.get(csrfName(c.origin))!.value.split("|")[1] } })],
  ["the victim's token with a case change", (c) => ({ body: { csrfToken: c.token.toUpperCase() } })],
  ["the victim's token in the query, not the body", (c) => ({ body: {}, query: `?csrfToken=${c.token}` })],
  ["the victim's token as a JSON array", (c) => ({ body: { csrfToken: [c.token] }, encoding: "json" })],
  ["the victim's token in a text/plain body", (c) => ({ body: `csrfToken=${c.token}`, encoding: "text" })],
  [
    "a cookie whose hash was forged to fit the attacker's token",
    (c) => ({ body: { csrfToken: c.attacker.token }, cookies: (jar) => jar.set(csrfName(c.origin), { value: `${c.attacker.token}|${"f".repeat(64)}`, attributes: {} }) }),
  ],
  ["a cookie with no hash", (c) => ({ body: { csrfToken: c.token }, cookies: (jar) => jar.set(csrfName(c.origin), { value: c.token, attributes: {} }) })],
  [
    "a pair minted by a deployment with another secret",
    (c) => ({ body: { csrfToken: c.foreign.token }, cookies: (jar) => jar.set(csrfName(c.origin), { value: c.foreign.cookie, attributes: {} }) }),
  ],
  ["the right token from another origin", (c) => ({ body: { csrfToken: c.token }, headers: { origin: "https://evil.example" } })],
  ["the right token from a sibling subdomain", (c) => ({ body: { csrfToken: c.token }, headers: { origin: "http://evil.localhost:3000" } })],
  ["the right token with Origin: null (a sandboxed frame)", (c) => ({ body: { csrfToken: c.token }, headers: { origin: "null" } })],
  ["the right token marked Sec-Fetch-Site: cross-site", (c) => ({ body: { csrfToken: c.token }, headers: { "sec-fetch-site": "cross-site" } })],
]

/** Sends the forged POST from the victim's browser. */
function send(victim: Browser, path: string, fields: Record<string, string>, forged: Forged): Promise<Response> {
  forged.cookies?.(victim.jar)
  const url = path + (forged.query ?? "")
  const headers = { ...forged.headers }
  if (forged.encoding === "text") return victim.request(url, { method: "POST", body: String(forged.body), headers: { ...headers, "content-type": "text/plain" } })
  const body = { ...fields, ...(forged.body as Record<string, unknown>) }
  if (forged.encoding === "json") return victim.request(url, { json: body, headers })
  return victim.request(url, { form: body as Record<string, string>, headers })
}

async function context(transport: Transport, origin: string, signedIn: boolean): Promise<Context> {
  const victim = new Browser(transport, origin)
  if (signedIn) expect((await victim.signIn()).headers.get("location")).toBe(origin)
  const token = await victim.csrfToken()
  const attackerBrowser = new Browser(transport, origin)
  const attackerToken = await attackerBrowser.csrfToken()
  const foreignBrowser = new Browser(direct(config("another-deployment-secret-of-32-chars!")), origin)
  const foreignToken = await foreignBrowser.csrfToken()
  return {
    victim,
    token,
    origin,
    attacker: { token: attackerToken, cookie: attackerBrowser.jar.get(csrfName(origin))!.value },
    foreign: { token: foreignToken, cookie: foreignBrowser.jar.get(csrfName(origin))!.value },
  }
}

function expectMissingCsrf(response: Response) {
  expect(response.status).toBe(302)
  const url = new URL(response.headers.get("location")!)
  expect(url.searchParams.get("error")).toBe("MissingCSRF")
}

const newSession = (response: Response, origin: string) => response.headers.getSetCookie().some((c) => c.startsWith(`${sessionName(origin)}=`) && !/Max-Age=0/i.test(c))

describe.each([
  ["http (dev)", ORIGIN],
  ["https (__Host- cookie)", SECURE],
])("CSRF on %s", (_label, origin) => {
  let cfg: AuthConfig
  let transport: Transport
  beforeEach(() => {
    cfg = config()
    transport = direct(cfg)
  })

  describe("a control: the genuine request works", () => {
    it("each endpoint accepts the victim's own token", async () => {
      const c = await context(transport, origin, false)
      expect(newSession(await send(c.victim, "/auth/callback/credentials", { ...ada }, { body: { csrfToken: c.token } }), origin)).toBe(true)
      const update = await c.victim.request("/auth/session", { json: { csrfToken: await c.victim.csrfToken(), data: { nickname: "Ada" } } })
      expect(update.status).toBe(200)
      expect((await c.victim.session()).nickname).toBe("Ada")
      const start = await send(c.victim, "/auth/signin/alpha", {}, { body: { csrfToken: await c.victim.csrfToken() } })
      expect(new URL(start.headers.get("location")!).origin).toBe(op.issuer)
    })
  })

  describe.each(attacks)("%s", (_name, forge) => {
    it("POST /signin/alpha starts no OAuth sign-in", async () => {
      const c = await context(transport, origin, false)
      const response = await send(c.victim, "/auth/signin/alpha", {}, forge(c))
      expectMissingCsrf(response)
      expect(response.headers.get("location")).not.toContain(op.issuer)
      expect(response.headers.getSetCookie().some((s) => /authjs\.(state|pkce|nonce)/.test(s) && !/Max-Age=0/i.test(s))).toBe(false)
    })

    it("POST /signin/email mails nothing", async () => {
      const c = await context(transport, origin, false)
      const before = smtp.messages.length
      expectMissingCsrf(await send(c.victim, "/auth/signin/email", { email: "victim@example.com" }, forge(c)))
      expect(smtp.messages.length).toBe(before)
    })

    it("POST /callback/credentials signs nobody in (login CSRF)", async () => {
      const c = await context(transport, origin, false)
      const response = await send(c.victim, "/auth/callback/credentials", { ...ada }, forge(c))
      expectMissingCsrf(response)
      expect(newSession(response, origin)).toBe(false)
      expect(await c.victim.session()).toBeNull()
    })

    it("POST /signout leaves the victim signed in", async () => {
      const c = await context(transport, origin, true)
      expectMissingCsrf(await send(c.victim, "/auth/signout", {}, forge(c)))
      expect((await c.victim.session())?.user?.email).toBe("ada@example.com")
    })

    it("POST /session changes nothing", async () => {
      const c = await context(transport, origin, true)
      const forged = forge(c)
      const body = typeof forged.body === "string" ? forged.body : { ...forged.body, data: { nickname: "Mallory" } }
      const response = await send(c.victim, "/auth/session", {}, { ...forged, body, encoding: forged.encoding ?? "json" })
      expect(response.status).toBeGreaterThanOrEqual(400)
      expect((await c.victim.session()).nickname).toBeUndefined()
    })
  })
})

describe("cookie tossing on https", () => {
  it("a CSRF cookie without the __Host- prefix (what a sibling subdomain can set) is not read", async () => {
    const transport = direct(config())
    const attacker = new Browser(transport, SECURE)
    const attackerToken = await attacker.csrfToken()
    const victim = new Browser(transport, SECURE)
    victim.jar.set("authjs.csrf-token", { value: attacker.jar.get("__Host-authjs.csrf-token")!.value, attributes: {} })
    const response = await victim.request("/auth/callback/credentials", { form: { ...ada, csrfToken: attackerToken } })
    expectMissingCsrf(response)
    expect(newSession(response, SECURE)).toBe(false)
  })
})
