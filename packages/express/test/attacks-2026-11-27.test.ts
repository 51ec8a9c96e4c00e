/**
 * Attacks on the Express integration over a real socket (2026-11-27): malformed, duplicate and
 * oversized cookies and headers, oversized bodies, and credentials callbacks whose JSON body
 * has the wrong shape. Each must end in a clear 4xx (or the ordinary sign-in refusal), never
 * a 500 carrying a stack, and the process must keep serving.
 */
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import express from "express"
import type { AuthConfig } from "@portcullis/core"
import { confirmTwoFactor, startTwoFactor } from "@portcullis/core/integration"
import { steppedUp } from "../../core/test/step-up/support.js"
import { hashPassword } from "@portcullis/core/password"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, credentialsConfig } from "../../core/test/helpers.js"
import { startSmtp, type TestSmtp } from "../../core/test/email/support.js"
import { expressServer } from "./support.js"
import { previousStepCode } from "../../core/test/two-factor/previous-step.js"

const quiet = { error: () => {}, warn: () => {}, debug: () => {} }
const errors: string[] = []
const config: AuthConfig = credentialsConfig({
  logger: { ...quiet, error: (e: Error) => void errors.push(`${e.name}: ${e.message}`) },
  session: { strategy: "jwt" },
  rateLimit: { perAddress: { credentials: false }, perIdentifier: { credentials: false } },
})

let server: Awaited<ReturnType<typeof expressServer>>
let jsonFirst: Awaited<ReturnType<typeof expressServer>>
beforeAll(async () => {
  server = await expressServer(config)
  // An app that mounts a JSON body parser before Portcullis (the integration re-encodes the parsed body).
  jsonFirst = await expressServer(config, (app) => app.use(express.json({ limit: "5mb", strict: false })))
})
afterAll(async () => {
  await server.close()
  await jsonFirst.close()
})

/** Sends `text` as raw HTTP/1.1 on a fresh socket; answers the status code and what came back. */
function raw(origin: string, text: string): Promise<{ status: number; response: string }> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname)
    const chunks: Buffer[] = []
    socket.on("data", (c: Buffer) => chunks.push(c))
    // The server may answer early and reset a connection still uploading: what came back counts.
    socket.on("error", () => socket.destroy())
    socket.on("close", () => {
      const response = Buffer.concat(chunks).toString("latin1")
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0), response })
    })
    // Sent without half-closing: the server closes after its answer (Connection: close).
    socket.write(text)
    socket.setTimeout(10_000, () => socket.destroy())
  })
}

const stillServing = async (origin: string) => (await fetch(`${origin}/auth/csrf`)).status === 200

function noStack(text: string) {
  expect(text).not.toMatch(/\n\s+at .+\(.*:\d+:\d+\)/)
  expect(text).not.toContain("node_modules")
  expect(text).not.toContain("/src/")
}

describe("malformed and duplicate cookies", () => {
  const garbage = [
    "authjs.session-token=%E0%A4%A",
    "authjs.session-token=eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1c2VyLWFkYSJ9.",
    `authjs.session-token=${"A".repeat(3900)}`,
    "authjs.session-token.0=abc; authjs.session-token.7=def",
    "authjs.session-token=; authjs.session-token=; =; ;;; =x",
    "__proto__=polluted; constructor=1; hasOwnProperty=2; toString=3; authjs.session-token=x",
    "authjs.csrf-token=%ZZ%; authjs.callback-url=javascript%3Aalert(1)",
    Array.from({ length: 1200 }, (_, i) => `c${i}=v`).join("; "),
  ]

  it.each(garbage.map((cookie) => [cookie.slice(0, 40), cookie]))("GET /session with %j answers signed out, not an error", async (_label, cookie) => {
    const response = await fetch(`${server.origin}/auth/session`, { headers: { cookie } })
    expect(response.status).toBe(200)
    expect(await response.json()).toBeNull()
  })

  it.each(garbage.map((cookie) => [cookie.slice(0, 40), cookie]))("a sign-in post with cookie %j is refused as a CSRF failure, not a crash", async (_label, cookie) => {
    const response = await fetch(`${server.origin}/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username: "ada", password: "correct horse battery staple", csrfToken: "x" }),
    })
    expect(response.status).toBeLessThan(500)
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=") && !c.startsWith("authjs.session-token=;"))).toBe(false)
    noStack(await response.text())
  })

  it("two Cookie headers (one a victim's session, one garbage) never mint a session and never 500", async () => {
    const browser = new Browser(server.transport, server.origin)
    await browser.signIn()
    const session = browser.sessionCookie()!
    const host = new URL(server.origin).host
    for (const [first, second] of [
      [`authjs.session-token=${session}`, "authjs.session-token=garbage"],
      ["authjs.session-token=garbage", `authjs.session-token=${session}`],
      ["authjs.session-token=%", "authjs.session-token.0=x"],
    ] as const) {
      const { status, response } = await raw(server.origin, `GET /auth/session HTTP/1.1\r\nHost: ${host}\r\nCookie: ${first}\r\nCookie: ${second}\r\nConnection: close\r\n\r\n`)
      expect(status).toBe(200)
      noStack(response)
    }
    expect(await stillServing(server.origin)).toBe(true)
  })
})

describe("oversized headers and bodies", () => {
  it("a 64 KiB Cookie header is refused by the server (431 or the connection dropped), and the process keeps serving", async () => {
    const host = new URL(server.origin).host
    const { status } = await raw(server.origin, `GET /auth/session HTTP/1.1\r\nHost: ${host}\r\nCookie: a=${"x".repeat(64 * 1024)}\r\nConnection: close\r\n\r\n`)
    expect([0, 431]).toContain(status)
    expect(await stillServing(server.origin)).toBe(true)
  })

  it("a 2 MiB form body to the credentials callback is a 413 (fixed length and chunked)", async () => {
    const browser = new Browser(server.transport, server.origin)
    const csrfToken = await browser.csrfToken()
    const host = new URL(server.origin).host
    const body = `csrfToken=${csrfToken}&password=x&username=${"a".repeat(2 * 1024 * 1024)}`
    const fixed = await raw(server.origin, `POST /auth/callback/credentials HTTP/1.1\r\nHost: ${host}\r\nCookie: ${browser.cookieHeader()}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)
    expect(fixed.status).toBe(413)
    noStack(fixed.response)
    const chunks = Array.from({ length: 32 }, (_, i) => `${i ? "&" : ""}f${i}=${"b".repeat(64 * 1024)}`)
      .map((c) => `${c.length.toString(16)}\r\n${c}\r\n`)
      .join("")
    const chunked = await raw(server.origin, `POST /auth/callback/credentials HTTP/1.1\r\nHost: ${host}\r\nCookie: ${browser.cookieHeader()}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunks}0\r\n\r\n`)
    expect(chunked.status).toBe(413)
    noStack(chunked.response)
    expect(await stillServing(server.origin)).toBe(true)
  })

  it("a Content-Length that lies (says 10, sends 1 MiB+) is not a 500", async () => {
    const host = new URL(server.origin).host
    const body = `csrfToken=x&username=${"a".repeat(1024 * 1024 + 10)}`
    const { status, response } = await raw(server.origin, `POST /auth/callback/credentials HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10\r\nConnection: close\r\n\r\n${body}`)
    expect(status === 0 || (status >= 300 && status < 500)).toBe(true)
    noStack(response)
    expect(await stillServing(server.origin)).toBe(true)
  })
})

describe("malformed bodies and methods on the credentials callback", () => {
  const bodies: [string, string, string][] = [
    ["bad percent-encoding", "application/x-www-form-urlencoded", "username=%E0%A4%A&password=%&csrfToken=%ZZ"],
    ["a charset the parser does not read", "application/json; charset=utf-16", '{"username":"ada"}'],
    ["multipart without a boundary", "multipart/form-data", "--x\r\nContent-Disposition: form-data; name=\"username\"\r\n\r\nada\r\n--x--"],
    ["multipart with a broken body", "multipart/form-data; boundary=zz", "--zz\r\nContent-Disposition: form-data; name=\"username\"\r\n\r\nada"],
    ["an unknown media type", "text/xml", "<username>ada</username>"],
    ["a media type with a NUL", "application/json\u0000", '{"username":"ada"}'],
    ["100 000 repeated fields", "application/x-www-form-urlencoded", Array.from({ length: 100_000 }, () => "a=1").join("&")],
  ]

  it.each(bodies)("%s is refused with a 4xx or the sign-in refusal, never a 500 or a session", async (_label, type, body) => {
    const browser = new Browser(server.transport, server.origin)
    await browser.csrfToken()
    const host = new URL(server.origin).host
    const { status, response } = await raw(server.origin, `POST /auth/callback/credentials HTTP/1.1\r\nHost: ${host}\r\nCookie: ${browser.cookieHeader()}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
    expect(status === 400 || (status >= 300 && status < 500)).toBe(true)
    expect(response).not.toMatch(/set-cookie: authjs\.session-token=[^;]/i)
    noStack(response)
  })

  it.each(["PUT", "DELETE", "PATCH", "OPTIONS", "TRACK"])("%s on the callback is a 4xx", async (method) => {
    const host = new URL(server.origin).host
    const { status, response } = await raw(server.origin, `${method} /auth/callback/credentials HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`)
    expect(status).toBeGreaterThanOrEqual(400)
    expect(status).toBeLessThan(500)
    noStack(response)
  })

  // Found by this attack (it was a 500 with the stack in Express's default error page): a Web
  // `Request` cannot be built with the methods Fetch forbids, so ExpressAuth answers core's
  // 405 for them before building one.
  it("TRACE on any auth route is core's 405, not a 500", async () => {
    const host = new URL(server.origin).host
    for (const path of ["/auth/session", "/auth/callback/credentials", "/auth/csrf"]) {
      const { status, response } = await raw(server.origin, `TRACE ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
      expect(status).toBe(405)
      expect(response).toMatch(/\r\nallow: GET, POST\r\n/i)
      expect(response).toContain(`"error":"MethodNotAllowed"`)
      noStack(response)
    }
  })
})

/** Posts `body` (raw JSON text) to the credentials callback with a valid CSRF cookie and token. */
async function postJson(origin: string, build: (csrfToken: string) => string, fetchClient = false) {
  const browser = new Browser((request) => fetch(request, { redirect: "manual" }), origin)
  const csrfToken = await browser.csrfToken()
  return browser.request("/auth/callback/credentials", {
    method: "POST",
    body: build(csrfToken),
    headers: { "content-type": "application/json", ...(fetchClient && { "x-auth-return-redirect": "1" }) },
  })
}

/** Where a response sends the browser, for a redirect or a `200 {url}`. */
async function destination(response: Response): Promise<URL | undefined> {
  const location = response.headers.get("location")
  if (location) return new URL(location)
  const text = await response.clone().text()
  const url = text.startsWith("{") ? (JSON.parse(text) as { url?: string }).url : undefined
  return url ? new URL(url) : undefined
}

describe("a JSON body of the wrong shape to the credentials callback", () => {
  const token = (t: string) => JSON.stringify(t)
  const shapes: [string, (t: string) => string][] = [
    ["an array", () => `["ada","correct horse battery staple"]`],
    ["a string", () => `"username=ada"`],
    ["a number", () => `12345`],
    ["null", () => `null`],
    ["invalid JSON", (t) => `{"csrfToken":${token(t)},"username":`],
    ["username as an object", (t) => `{"csrfToken":${token(t)},"username":{"$ne":null},"password":{"$gt":""}}`],
    ["username as an array", (t) => `{"csrfToken":${token(t)},"username":["ada","bob"],"password":["x"]}`],
    ["csrfToken as an array", (t) => `{"csrfToken":[${token(t)}],"username":"ada","password":"correct horse battery staple"}`],
    ["a __proto__ key", (t) => `{"csrfToken":${token(t)},"__proto__":{"username":"ada","password":"correct horse battery staple"}}`],
  ]

  for (const [label, origin] of [["body read by Portcullis", () => server.origin], ["express.json() mounted first", () => jsonFirst.origin]] as const) {
    // (express.json() answers invalid JSON itself, before Portcullis: the app's error handler decides.)
    it.each(label === "body read by Portcullis" ? shapes : shapes.filter(([shape]) => shape !== "invalid JSON"))(`${label}: %s is refused (4xx or the sign-in refusal), no session, no stack`, async (_shape, build) => {
      for (const fetchClient of [false, true]) {
        const response = await postJson(origin(), build, fetchClient)
        expect(response.status).toBeLessThan(500)
        expect(response.headers.getSetCookie().some((c) => /^authjs\.session-token=[^;]/.test(c))).toBe(false)
        const where = await destination(response)
        expect(where?.searchParams.get("error") ?? null).not.toBe("Configuration")
        noStack(await response.text())
      }
    })
  }

  // Found by this attack (it was a RangeError logged with its stack, answered as
  // `?error=Configuration`): a JSON body nesting deeper than 32 levels is core's 400, whether
  // Portcullis reads the body or `express.json()` did first.
  for (const [label, origin] of [["body read by Portcullis", () => server.origin], ["express.json() mounted first", () => jsonFirst.origin]] as const) {
    it(`a deeply nested username (10 KB of brackets) is a 400 InvalidRequest, no RangeError logged (${label})`, async () => {
      errors.length = 0
      const depth = 5000
      const response = await postJson(origin(), (t) => `{"csrfToken":${token(t)},"username":${"[".repeat(depth)}${"]".repeat(depth)},"password":"x"}`)
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({ error: "InvalidRequest" })
      // At most the refusal itself, as for any malformed body; never a stack overflow.
      expect(errors.filter((e) => !e.startsWith("InvalidRequest: "))).toEqual([])
    })
  }

  it("the process keeps serving after all of the above", async () => {
    expect(await stillServing(server.origin)).toBe(true)
    expect(await stillServing(jsonFirst.origin)).toBe(true)
  })
})

describe("account enumeration through the password pages, over a real socket", () => {
  const LIGHT = { memoryCost: 1024, timeCost: 1, parallelism: 1 }
  const adapter = MemoryAdapter()
  let smtp: TestSmtp
  let app: Awaited<ReturnType<typeof expressServer>>
  let passwordConfig: AuthConfig
  const PASS = "an entirely reasonable passphrase"

  async function seed(email: string, verified: boolean) {
    const user = await adapter.createUser!({ id: crypto.randomUUID(), email, emailVerified: verified ? new Date() : null, name: null, image: null })
    await adapter.setUserPassword!(user.id, await hashPassword(PASS, LIGHT))
    return user
  }

  beforeAll(async () => {
    smtp = await startSmtp()
    passwordConfig = {
      secret: "a-test-secret-with-at-least-32-characters",
      trustHost: true,
      adapter,
      twoFactor: {},
      logger: quiet,
      providers: [Password({ hashing: LIGHT, mailer: Nodemailer({ server: smtp.url, from: "Tests <auth@example.com>" }) })],
    }
    app = await expressServer(passwordConfig)
    await seed("known@example.com", true)
    await seed("pending@example.com", false)
    const guarded = await seed("guarded@example.com", true)
    const settings = await steppedUp(passwordConfig, guarded.id)
    const { secret } = await startTwoFactor({ ...settings, account: "guarded@example.com" }, passwordConfig)
    await confirmTwoFactor({ ...settings, code: await previousStepCode(secret) }, passwordConfig)
  })
  afterAll(async () => {
    await app.close()
    await smtp.close()
  })

  /** What an observer sees of a response: status, where it goes, every header but Date, cookie names and attributes, body. */
  async function observed(response: Response) {
    const headers = [...response.headers].filter(([name]) => name !== "date" && name !== "set-cookie")
    const cookies = response.headers.getSetCookie().map((c) => c.replace(/=[^;]*/, "=<value>").replace(/Expires=[^;]*/i, "Expires=<date>"))
    return { status: response.status, headers, cookies, body: await response.text() }
  }

  async function post(path: string, fields: Record<string, string>) {
    const browser = new Browser(app.transport, app.origin)
    const csrfToken = await browser.csrfToken()
    return observed(await browser.request(path, { form: { ...fields, csrfToken } }))
  }

  it("forgot-password and sign-up answer a known, an unverified and an unknown address identically", async () => {
    for (const step of ["forgot", "signup"]) {
      const fields = (email: string): Record<string, string> => (step === "signup" ? { email, password: "violet tractor sandwich orbit" } : { email })
      const known = await post(`/auth/password/${step}`, fields("known@example.com"))
      expect(await post(`/auth/password/${step}`, fields("nobody-here@example.com"))).toEqual(known)
      expect(await post(`/auth/password/${step}`, fields("pending@example.com"))).toEqual(known)
      expect(await post(`/auth/password/${step}`, fields("KNOWN@example.com"))).toEqual(known)
    }
  })

  it("sign-in refusals are identical without the right password: unknown address, wrong password, unverified or 2FA user with a wrong password", async () => {
    const wrong = await post("/auth/callback/password", { email: "known@example.com", password: "not the password at all" })
    expect(wrong.status).toBe(302)
    expect(await post("/auth/callback/password", { email: "nobody-here@example.com", password: "not the password at all" })).toEqual(wrong)
    expect(await post("/auth/callback/password", { email: "pending@example.com", password: "not the password at all" })).toEqual(wrong)
    expect(await post("/auth/callback/password", { email: "guarded@example.com", password: "not the password at all" })).toEqual(wrong)
  })

  // Issue 32: an unverified account gets its own hint — but only after the right password,
  // which tells its holder nothing they could not learn from their own inbox.
  it("the right password of an unconfirmed address answers code=unverified, on the same page as every refusal", async () => {
    const wrong = await post("/auth/callback/password", { email: "known@example.com", password: "not the password at all" })
    const unverified = await post("/auth/callback/password", { email: "pending@example.com", password: PASS })
    const where = (r: typeof wrong) => new URL(r.headers.find(([n]) => n === "location")![1])
    expect(unverified.status).toBe(wrong.status)
    expect(where(unverified).pathname).toBe(where(wrong).pathname)
    expect(where(unverified).searchParams.get("error")).toBe(where(wrong).searchParams.get("error"))
    expect(where(unverified).searchParams.get("code")).toBe("unverified")
    expect(where(wrong).searchParams.get("code")).not.toBe("unverified")
  })

  it("a forged reset token is refused identically for a known and an unknown address", async () => {
    const fields = (email: string) => ({ email, token: "f".repeat(64), password: "violet tractor sandwich orbit" })
    const known = await post("/auth/password/reset", fields("known@example.com"))
    expect(new URL(known.headers.find(([n]) => n === "location")![1]).searchParams.get("error")).toBe("Verification")
    expect(await post("/auth/password/reset", fields("nobody-here@example.com"))).toEqual(known)
    expect(await post("/auth/password/reset", fields("pending@example.com"))).toEqual(known)
  })
})
