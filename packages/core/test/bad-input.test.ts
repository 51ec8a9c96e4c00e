import { afterEach, describe, expect, it, vi } from "vitest"
import { Auth } from "@portcullis/core"
import { encode } from "@portcullis/core/jwt"
import { Browser, SECRET, captureLogger, credentialsConfig, direct } from "./helpers.js"

/**
 * Bad input never crashes a request (checklist T30, T38, T44 and §2): a clear status, a
 * log line, no stack trace or secret in any response.
 */
const { lines, logger } = captureLogger()
const config = credentialsConfig({ logger })
const send = direct(config)
const salt = "authjs.session-token"

afterEach(() => vi.useRealTimers())

async function bodyOf(response: Response) {
  const text = await response.text()
  expect(text).not.toContain(SECRET)
  expect(text).not.toMatch(/\bat .+:\d+:\d+\)?/) // no stack frames
  return text
}

function withCookie(cookie: string) {
  return send(new Request("http://localhost:3000/auth/session", { headers: { cookie } }))
}

describe("a broken session cookie means no session (T38, T44)", () => {
  it.each([
    ["garbage", "not-a-jwe"],
    ["empty segments", "...."],
    ["six segments", "a.b.c.d.e.f"],
    ["a header that is not JSON", "bm90IGpzb24.a.b.c.d"],
    ["a JSON-array header", `${Buffer.from("[1]").toString("base64url")}.a.b.c.d`],
    ["alg none", `${Buffer.from('{"alg":"none"}').toString("base64url")}.e30..e30.`],
    ["bad percent-encoding", "%E0%A4%A"],
    ["a 20 KB value", "x".repeat(20_000)],
  ])("%s → 200 null and the cookie cleared", async (_name, value) => {
    const response = await withCookie(`${salt}=${value}`)
    expect(response.status).toBe(200)
    expect(await bodyOf(response)).toBe("null")
    const cleared = response.headers.getSetCookie().find((c) => c.startsWith(`${salt}=`))
    expect(cleared).toContain("Max-Age=0")
  })

  it("a token under another secret → null, and its content is never logged", async () => {
    const token = await encode({ token: { sub: "1", secretClaim: "s3cr3t-claim" }, secret: "another-secret-another-secret-1234", salt })
    lines.length = 0
    const response = await withCookie(`${salt}=${token}`)
    expect(await bodyOf(response)).toBe("null")
    // Expected input, so a warning (rate-limited), not an error; see security/log-flood.test.ts.
    expect(lines.join("\n")).toContain("session-cookie-unreadable")
    expect(lines.join("\n")).not.toContain(token)
  })

  it("an expired token → null", async () => {
    const token = await encode({ token: { sub: "1" }, secret: SECRET, salt, maxAge: 10 })
    vi.useFakeTimers({ toFake: ["Date"] })
    vi.setSystemTime(Date.now() + 60_000)
    expect(await bodyOf(await withCookie(`${salt}=${token}`))).toBe("null")
  })

  it("a sealed check cookie copied into the session cookie → null (purpose confusion, T43)", async () => {
    const state = await encode({ token: { value: "x", provider: "github" }, secret: SECRET, salt: "authjs.state" })
    expect(await bodyOf(await withCookie(`${salt}=${state}`))).toBe("null")
  })

  it("chunks with a gap are not stitched together", async () => {
    const token = await encode({ token: { sub: "1", blob: "y".repeat(8000) }, secret: SECRET, salt })
    const [a, , c] = token.match(/.{1,3936}/g)!
    expect(await bodyOf(await withCookie(`${salt}.0=${a}; ${salt}.2=${c}`))).toBe("null")
  })

  it("the same cookie twice: the first one wins, consistently", async () => {
    const good = await encode({ token: { sub: "1", name: "First" }, secret: SECRET, salt })
    const response = await withCookie(`${salt}=${good}; ${salt}=garbage`)
    expect(JSON.parse(await bodyOf(response)).user.name).toBe("First")
  })
})

describe("requests outside the protocol get clear statuses", () => {
  const req = (path: string, init?: RequestInit) => send(new Request(`http://localhost:3000${path}`, init))

  it("unknown action → 400 with a JSON error naming the actions", async () => {
    for (const path of ["/auth/nope", "/auth/", "/auth/session/extra", "/auth/callback", "/auth/csrf/github", "/elsewhere/session"]) {
      const response = await req(path)
      expect(response.status, path).toBe(400)
      const body = JSON.parse(await bodyOf(response))
      expect(body.error).toBe("UnknownAction")
    }
  })

  it("wrong method → 405 with Allow", async () => {
    for (const [method, path, allow] of [
      ["POST", "/auth/csrf", "GET"],
      ["PUT", "/auth/session", "GET, POST"],
      ["DELETE", "/auth/signout", "GET, POST"],
      ["HEAD", "/auth/providers", "GET"],
      ["GET", "/auth/signin/credentials", "POST"],
    ] as const) {
      const response = await req(path, { method })
      expect(response.status, `${method} ${path}`).toBe(405)
      expect(response.headers.get("allow")).toBe(allow)
    }
  })

  it("a body over 1 MiB → 413, whether or not Content-Length says so", async () => {
    const big = "a=" + "x".repeat(1024 * 1024 + 10)
    const declared = await req("/auth/callback/credentials", { method: "POST", body: big, headers: { "content-type": "application/x-www-form-urlencoded" } })
    expect(declared.status).toBe(413)
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode("x".repeat(100_000)))
        controller.close()
      },
    })
    const undeclared = await req("/auth/session", { method: "POST", body: stream, headers: { "content-type": "application/json" }, duplex: "half" } as RequestInit)
    expect(undeclared.status).toBe(413)
  })

  it("malformed JSON, a JSON array, and bad encodings → 400", async () => {
    for (const body of ["{", "[1,2]", "null"]) {
      const response = await req("/auth/signout", { method: "POST", body, headers: { "content-type": "application/json" } })
      expect(response.status, body).toBe(400)
      await bodyOf(response)
    }
    expect((await req("/auth/callback/%E0%A4%A")).status).toBe(400)
  })

  it("a JSON body may nest 32 levels (the body object included); the 33rd is a 400", async () => {
    const nested = (arrays: number) => `{"x":${"[".repeat(arrays)}${"]".repeat(arrays)}}`
    const within = await req("/auth/signout", { method: "POST", body: nested(31), headers: { "content-type": "application/json" } })
    expect(within.status).not.toBe(400)
    const deeper = await req("/auth/signout", { method: "POST", body: nested(32), headers: { "content-type": "application/json" } })
    expect(deeper.status).toBe(400)
    expect(JSON.parse(await bodyOf(deeper))).toMatchObject({ error: "InvalidRequest" })
    // Objects count as arrays do, and a wide body within the depth is read (1 MiB bounds it).
    const objects = await req("/auth/signout", { method: "POST", body: `${'{"a":'.repeat(33)}1${"}".repeat(33)}`, headers: { "content-type": "application/json" } })
    expect(objects.status).toBe(400)
    const wide = await req("/auth/signout", { method: "POST", body: JSON.stringify({ x: Array.from({ length: 50_000 }, () => [[1]]) }), headers: { "content-type": "application/json" } })
    expect(wide.status).not.toBe(400)
  })

  it("hostile provider ids are just unknown providers", async () => {
    for (const id of ["__proto__", "constructor", "toString", "hasOwnProperty", "x".repeat(4096)]) {
      const response = await req(`/auth/callback/${id}`)
      expect(response.status).toBe(302)
      expect(response.headers.get("location")).toBe("http://localhost:3000/auth/error?error=Configuration")
    }
  })

  it("objects where strings are expected are ignored, not crashed on", async () => {
    const browser = new Browser(send)
    const csrfToken = await browser.csrfToken()
    const response = await browser.request("/auth/callback/credentials", { json: { username: { toString: 1 }, password: ["a"], csrfToken, callbackUrl: { href: "https://evil.example" } } })
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toContain("error=CredentialsSignin")
  })

  it("a forged Host header is refused when host trust is off (AUTH_URL wins)", async () => {
    vi.stubEnv("AUTH_URL", "https://app.example")
    try {
      const cfg = credentialsConfig({ trustHost: false })
      const response = await Auth(new Request("http://localhost/auth/signin", { headers: { host: "evil.example", "x-forwarded-host": "evil.example" } }), cfg)
      const html = await response.text()
      expect(html).not.toContain("evil.example")
      expect(html).toContain("https://app.example/auth/callback/credentials")
    } finally {
      vi.unstubAllEnvs()
    }
  })

  it("a Host header with a path or userinfo → 400", async () => {
    const response = await send(new Request("http://localhost/auth/csrf", { headers: { "x-forwarded-host": "evil.example/path@x" } }))
    expect(response.status).toBe(400)
  })
})

describe("the error page escapes what it is given", () => {
  it("renders unknown and hostile codes as the generic case", async () => {
    const response = await send(new Request(`http://localhost:3000/auth/error?error=${encodeURIComponent('"><script>alert(1)</script>')}`))
    expect(response.status).toBe(200)
    const html = await bodyOf(response)
    expect(html).not.toContain("<script>alert")
    expect(response.headers.get("x-frame-options")).toBe("DENY")
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
  })

  it("Configuration → 500, AccessDenied and Verification → 403", async () => {
    for (const [code, status] of [["Configuration", 500], ["AccessDenied", 403], ["Verification", 403]] as const) {
      expect((await send(new Request(`http://localhost:3000/auth/error?error=${code}`))).status).toBe(status)
    }
  })
})
