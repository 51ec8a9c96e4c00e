/**
 * Attacks on the log (issue 29): a client tries to forge log lines (CR/LF, ANSI escapes,
 * JSON-breaking characters in what it controls), to get a token, password, code or cookie
 * it sent written out, and to find a request that still writes an `[auth][error]` or a
 * stack — once is a line per request, since the bound holds only for warnings. Over a real
 * HTTP server, against the default console logger, whose printed calls are counted.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers"
import type { AuditEvent } from "@portcullis/core/types"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { ada, credentialsConfig } from "../../helpers.js"
import { httpServer, type TestServer } from "../../http-server.js"
import { consoleLines, STACK_LINE } from "../../logs/support.js"

const op = {
  id: "op",
  name: "OP",
  type: "oauth",
  authorization: "https://op.example/authorize",
  token: "https://op.example/token",
  userinfo: "https://op.example/userinfo",
  clientId: "client",
  clientSecret: "op-client-secret-marker",
} as OAuthConfig<any>

const audits: AuditEvent[] = []

/** Every way in an attacker forges, with the default console logger, and the audit trail recorded. */
function appConfig(): AuthConfig {
  const base = credentialsConfig()
  return {
    ...base,
    adapter: MemoryAdapter(),
    session: { strategy: "jwt" },
    twoFactor: {},
    rateLimit: false,
    events: { audit: (event) => void audits.push(event) },
    providers: [...base.providers, Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", interstitial: false }), op],
  }
}

/** A fresh server (fresh log windows, so each attack's first line is printed). */
async function fresh(): Promise<TestServer & { csrf: { token: string; cookie: string } }> {
  const server = await httpServer(appConfig())
  const response = await fetch(`${server.origin}/auth/csrf`)
  const { csrfToken } = (await response.json()) as { csrfToken: string }
  return { ...server, csrf: { token: csrfToken, cookie: response.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; ") } }
}

let printed: ReturnType<typeof consoleLines> | undefined
let server: (TestServer & { csrf: { token: string; cookie: string } }) | undefined
afterEach(async () => {
  printed?.restore()
  printed = undefined
  await server?.close()
  server = undefined
  audits.length = 0
})

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
const FORM = "application/x-www-form-urlencoded"

/** Sends a request and drains its answer. */
async function send(path: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(`${server!.origin}${path}`, { redirect: "manual", ...init })
  await response.arrayBuffer().catch(() => {})
  return response
}

/** What would let a line's reader be fooled: a line break, a carriage return, an escape (ANSI), U+2028/U+2029. */
const FORGING = /[\r\n\u001b\u0085\u2028\u2029]/

describe("log injection through what the client sends", () => {
  const payload = "x\r\n[auth][error] CallbackRouteError: forged line\u001b[2K\u001b[31mRED\u2028\u2029\"}\\"
  const enc = encodeURIComponent(payload)

  it("an OAuth provider's error and error_description, a callbackUrl, an email, a username and a user agent stay inside one printed line each", async () => {
    server = await fresh()
    printed = consoleLines()
    const { token, cookie } = server.csrf
    // A callback the provider "answered" with an error, as anyone can type it in the address bar.
    await send(`/auth/callback/op?error=${enc}&error_description=${enc}&error_uri=${enc}&state=${enc}`)
    await send(`/auth/callback/op?code=${enc}&state=${enc}&iss=${enc}`)
    // A callbackUrl, an email, a username, a user agent with what HTTP lets through (no CR/LF in a header).
    await send(`/auth/signin/credentials?callbackUrl=${enc}`)
    await send("/auth/signin/email", { method: "POST", headers: { "content-type": FORM, cookie }, body: form({ csrfToken: token, email: payload, callbackUrl: `https://evil.example/${payload}` }) })
    await send("/auth/callback/credentials", { method: "POST", headers: { "content-type": FORM, cookie, "user-agent": "UA \u00ff\u0085 (HTTP carries no control character in a header)" }, body: form({ csrfToken: token, username: payload, password: payload }) })
    await send("/auth/callback/credentials", { method: "POST", headers: { "content-type": FORM, cookie }, body: form({ csrfToken: `${payload}forged`, username: payload, password: "x" }) })
    await send(`/auth/callback/email?token=${enc}&email=${enc}`)
    await send(`/auth/${enc}`)
    await send(`/auth/callback/${enc}`)
    await send("/auth/callback/credentials", { method: "POST", headers: { "content-type": "application/json" }, body: `{"csrfToken": "${payload.replace(/[\r\n"\\]/g, "")}` })
    const { calls } = printed
    printed.restore()

    expect(calls.length).toBeGreaterThan(0)
    for (const call of calls) {
      expect(call.level, call.text).toBe("warn")
      expect(call.text, call.text).not.toMatch(FORGING)
    }
  })
})

describe("secrets the client sent, in any log line or audit event", () => {
  it("a forged CSRF token, a password, a magic-link token, an OAuth code and state, cookie values and an Authorization header are never written", async () => {
    server = await fresh()
    printed = consoleLines()
    const { token, cookie } = server.csrf
    const marks = {
      password: "pw-marker-7c1e4b",
      csrf: "csrf-marker-a93f0d",
      link: "linktoken-marker-5be2c7aa",
      code: "oauthcode-marker-1d2e3f",
      state: "oauthstate-marker-9a8b7c",
      session: "sessioncookie-marker-44aa",
      twoFactor: "twofactorcookie-marker-55bb",
      bearer: "bearer-marker-66cc",
      otp: "482913",
    }
    await send("/auth/callback/credentials", { method: "POST", headers: { "content-type": FORM, cookie }, body: form({ csrfToken: token, username: ada.username, password: marks.password }) })
    await send("/auth/callback/credentials", { method: "POST", headers: { "content-type": FORM, cookie }, body: form({ csrfToken: marks.csrf, username: ada.username, password: marks.password }) })
    await send(`/auth/callback/email?token=${marks.link}&email=victim%40example.com`)
    await send(`/auth/callback/op?code=${marks.code}&state=${marks.state}`)
    await send(`/auth/callback/op?error=access_denied&error_description=denied&state=${marks.state}&code=${marks.code}`)
    await send("/auth/session", { headers: { cookie: `authjs.session-token=${marks.session}; __Secure-authjs.session-token=${marks.session}`, authorization: `Bearer ${marks.bearer}` } })
    await send("/auth/two-factor", { method: "POST", headers: { "content-type": FORM, cookie: `${cookie}; portcullis.two-factor=${marks.twoFactor}` }, body: form({ csrfToken: token, code: marks.otp }) })
    await send("/auth/reauthenticate", { method: "POST", headers: { "content-type": FORM, cookie }, body: form({ csrfToken: token, password: marks.password }) })
    const { lines } = printed
    printed.restore()

    const written = `${lines.map((l) => l.text).join("\n")}\n${JSON.stringify(audits)}`
    expect(lines.length).toBeGreaterThan(0)
    for (const [name, value] of Object.entries(marks)) expect(written, name).not.toContain(value)
    expect(written).not.toContain("op-client-secret-marker")
    expect(written).not.toContain("a-test-secret-with-at-least-32-characters")
    expect(written).not.toContain(token)
  })
})

describe("a request that still writes an error", () => {
  // Each of these is input any client can send. None is a bug of the app or an outage: none
  // may reach `logger.error` (a line and a stack each, unbounded).
  const hostile: Array<[string, () => Promise<Response>]> = [
    ["a JSON body that is an array", () => send("/auth/callback/credentials", { method: "POST", headers: { "content-type": "application/json" }, body: "[1,2,3]" })],
    ["a JSON body that is a string", () => send("/auth/callback/credentials", { method: "POST", headers: { "content-type": "application/json" }, body: '"x"' })],
    ["a JSON body that is null", () => send("/auth/callback/credentials", { method: "POST", headers: { "content-type": "application/json" }, body: "null" })],
    ["a JSON body with __proto__ and constructor", () => send("/auth/callback/credentials", { method: "POST", headers: { "content-type": "application/json" }, body: '{"__proto__":{"admin":true},"constructor":{"prototype":{}},"csrfToken":{"a":1},"username":["a"],"password":{}}' })],
    ["a form with repeated fields", () => send("/auth/callback/credentials", { method: "POST", headers: { "content-type": FORM, cookie: server!.csrf.cookie }, body: `csrfToken=${server!.csrf.token}&username=a&username=b&password=c&password=d` })],
    ["a form with broken percent-encoding", () => send("/auth/callback/credentials", { method: "POST", headers: { "content-type": FORM }, body: "csrfToken=%ZZ&username=%E0%A4%A&password=%" })],
    ["a multipart body without a boundary", () => send("/auth/callback/credentials", { method: "POST", headers: { "content-type": "multipart/form-data" }, body: "--x\r\n\r\n" })],
    ["a multipart body with a broken boundary", () => send("/auth/callback/credentials", { method: "POST", headers: { "content-type": "multipart/form-data; boundary=zz" }, body: "--zz\r\nContent-Disposition: form-data\r\n\r\nbroken" })],
    ["an unknown content type", () => send("/auth/callback/credentials", { method: "POST", headers: { "content-type": "text/xml" }, body: "<x/>" })],
    ["a two-factor post with a JSON body of objects", () => send("/auth/two-factor", { method: "POST", headers: { "content-type": "application/json", cookie: server!.csrf.cookie }, body: JSON.stringify({ csrfToken: server!.csrf.token, code: { $gt: "" } }) })],
    ["an email sign-in with an email that is an object", () => send("/auth/signin/email", { method: "POST", headers: { "content-type": "application/json", cookie: server!.csrf.cookie }, body: JSON.stringify({ csrfToken: server!.csrf.token, email: { a: 1 } }) })],
    ["an email sign-in with a 10,000-character address", () => send("/auth/signin/email", { method: "POST", headers: { "content-type": FORM, cookie: server!.csrf.cookie }, body: form({ csrfToken: server!.csrf.token, email: `${"a".repeat(10_000)}@example.com` }) })],
    ["a magic link with a token list", () => send("/auth/callback/email?token=a&token=b&email=x%40example.com&email=y%40example.com")],
    ["an OAuth callback as a POST with a JSON body", () => send("/auth/callback/op", { method: "POST", headers: { "content-type": "application/json" }, body: '{"code":1,"state":{}}' })],
    ["an OAuth callback with a check cookie of garbage", () => send("/auth/callback/op?code=c&state=s", { headers: { cookie: "authjs.state=garbage; authjs.pkce.code_verifier=garbage; authjs.nonce=garbage" } })],
    ["a session cookie of garbage chunks", () => send("/auth/session", { headers: { cookie: "authjs.session-token.0=a.b.c.d.e; authjs.session-token.1=%%%; authjs.session-token.7=x" } })],
    ["a session cookie that is a JWE with junk parts", () => send("/auth/session", { headers: { cookie: `authjs.session-token=${"eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIn0"}..${"A".repeat(22)}.${"A".repeat(300)}.${"A".repeat(43)}` } })],
    ["a sign-out with a callbackUrl of javascript:", () => send("/auth/signout", { method: "POST", headers: { "content-type": FORM, cookie: server!.csrf.cookie }, body: form({ csrfToken: server!.csrf.token, callbackUrl: "javascript:alert(1)" }) })],
    ["a reauthenticate post without a session", () => send("/auth/reauthenticate", { method: "POST", headers: { "content-type": FORM, cookie: server!.csrf.cookie }, body: form({ csrfToken: server!.csrf.token, password: "x" }) })],
    ["a passkey options request for an unknown provider", () => send("/auth/webauthn-options/nope?action=authenticate")],
    ["a page for an unknown error code", () => send(`/auth/error?error=${"%F0%9F%98%80".repeat(500)}`)],
    ["a verify-request page with a hostile provider", () => send("/auth/verify-request?provider=%00&type=%0A")],
    ["a health path with the endpoint off", () => send("/auth/health")],
    ["a PATCH", () => send("/auth/session", { method: "PATCH" })],
    ["a callbackUrl that is no URL, on a GET of the session", () => send("/auth/session?callbackUrl=http%3A%2F%2F%5B%3A%3A1")],
    ["a callbackUrl of javascript:, on the providers list", () => send("/auth/providers?callbackUrl=javascript%3Aalert(1)")],
    ["a callbackUrl of a NUL and a protocol-relative host, on the CSRF route", () => send("/auth/csrf?callbackUrl=%00%2F%2Fevil.example")],
    ["repeated callbackUrls in query and body", () => send("/auth/signin/credentials?callbackUrl=a&callbackUrl=b", { method: "POST", headers: { "content-type": FORM, cookie: server!.csrf.cookie }, body: form({ csrfToken: server!.csrf.token, callbackUrl: "//evil.example" }) })],
    ["a forwarded host and protocol of junk", () => send("/auth/session", { headers: { "x-forwarded-host": "evil.example:99999", "x-forwarded-proto": "javascript" } })],
    ["a forwarded host with a path and a userinfo", () => send("/auth/signin", { headers: { "x-forwarded-host": "user:pw@evil.example/path?q" } })],
    ["a sign-in page for a provider id of dots", () => send("/auth/signin/..%2F..%2Fsession")],
  ]

  it("none of what any client can send reaches logger.error or prints a stack", { timeout: 60_000 }, async () => {
    server = await fresh()
    printed = consoleLines()
    const statuses: Record<string, number> = {}
    for (const [name, request] of hostile) statuses[name] = (await request()).status
    const { calls, lines } = printed
    printed.restore()
    const errors = calls.filter((c) => c.level === "error").map((c) => c.text.split("\n")[0])
    expect(errors).toEqual([])
    expect(lines.filter((l) => STACK_LINE.test(l.text))).toEqual([])
    for (const [name, status] of Object.entries(statuses)) expect(status, name).toBeLessThan(500)
  })
})
