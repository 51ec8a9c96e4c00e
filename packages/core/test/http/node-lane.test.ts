/**
 * Core's Node path (`AuthRuntime.handleNode`, `handleNodeRequest`): a request as a Node
 * server holds it — its origin worked out by the integration, its target, Node's headers,
 * its body as a stream of chunks — answered without a Web `Request` carrying the body or a
 * Web `Response`. It must answer exactly what `Auth()` answers for the same request: the
 * same statuses, headers, cookies and bodies, through whole flows (sign-in, session,
 * update, sign-out), refusals (bad bodies, methods, paths, cross-site posts) and
 * extension routes. Tokens and dates differ between two runs by design; they are masked.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { defineExtension, html } from "@portcullis/core/extension"
import { runtimeFor, type NodeAnswer } from "@portcullis/core/integration"
import { ada, Browser, captureLogger, credentialsConfig, direct, type Transport } from "../helpers.js"

/** Node's headers of a Web request: lower-case names, `Host` from the URL. */
function nodeHeaders(request: Request): Record<string, string> {
  const headers: Record<string, string> = { host: new URL(request.url).host }
  request.headers.forEach((value, name) => (headers[name] = value))
  return headers
}

/** The body in three chunks, as a socket delivers it. */
async function* chunks(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  const third = Math.ceil(bytes.byteLength / 3)
  for (let i = 0; i < bytes.byteLength; i += third) yield bytes.subarray(i, i + third)
}

/** A Web `Response` of a Node answer, as a client reads it off the socket. */
export function responseOf(answer: NodeAnswer): Response {
  const headers = new Headers()
  for (const [name, value] of Object.entries(answer.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v)
    else headers.set(name, value)
  }
  return new Response(answer.body ?? null, { status: answer.status, headers })
}

/** A transport through core's Node path: what `direct` is for `Auth()`. */
function nodePath(config: AuthConfig): Transport {
  const runtime = runtimeFor(config)
  return async (request) => {
    const url = new URL(request.url)
    const bytes = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined
    const answer = await runtime.handleNode({
      method: request.method,
      origin: url.origin,
      target: url.pathname + url.search,
      headers: nodeHeaders(request),
      ...(bytes && { body: chunks(bytes) }),
    })
    return responseOf(answer)
  }
}

const TOKEN = /[A-Za-z0-9_\-.~%]{32,}/g
const DATE = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z|\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT/g

/** What a client can observe of a response, with tokens and dates masked. */
async function observed(response: Response) {
  const mask = (s: string) => s.replace(DATE, "<date>").replace(TOKEN, "<token>").replace(/"latencyMs":[\d.]+/g, '"latencyMs":<ms>')
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = mask(value)
  })
  return { status: response.status, headers, cookies: response.headers.getSetCookie().map(mask), body: mask(await response.text()) }
}

/** A SCIM-like extension with routes another party calls, and a site route. */
function protocolExtension() {
  return defineExtension({
    id: "proto",
    routes: [
      { method: "POST", path: "form", access: "anyone", from: "anywhere", handler: (req) => ({ json: { form: req.form ? [...req.form] : null, body: req.body } }) },
      { method: "PUT", path: "Users/:id", access: "anyone", from: "anywhere", handler: (req) => ({ json: { id: req.params.id, ...req.body }, contentType: "application/scim+json", headers: { ETag: 'W/"2"', "Set-Cookie": "stolen=1" } }) },
      { method: "DELETE", path: "Users/:id", access: "anyone", from: "anywhere", handler: () => ({ empty: true, headers: { "X-Request-Id": "r1" } }) },
      { method: "GET", path: "metadata", access: "anyone", handler: () => ({ text: "<EntityDescriptor/>", contentType: "application/samlmetadata+xml" }) },
      { method: "POST", path: "site", access: "anyone", handler: () => ({ json: { ok: true } }) },
      { method: "GET", path: "me", handler: async (req) => ({ json: { userId: (await req.requireSession()).userId } }) },
      { method: "GET", path: "page", access: "anyone", handler: (req) => req.page("Hello", html`<p>${req.query.name ?? ""}</p>`) },
    ],
  })
}

/** One scripted visit: every response a browser sees, observed. */
async function visit(transport: Transport): Promise<unknown[]> {
  const browser = new Browser(transport)
  const seen: unknown[] = []
  const see = async (response: Response) => void seen.push(await observed(response))
  await see(await browser.request("/auth/providers"))
  await see(await browser.request("/auth/signin", { headers: { accept: "text/html", "accept-language": "de" } }))
  const csrf = ((await (await browser.request("/auth/csrf")).json()) as { csrfToken: string }).csrfToken
  // A wrong password, then the right one (as a fetch client asks: the URL as JSON).
  await see(await browser.request("/auth/callback/credentials", { form: { csrfToken: csrf, username: ada.username, password: "wrong" } }))
  await see(await browser.request("/auth/callback/credentials", { form: { csrfToken: csrf, ...ada, callbackUrl: "/after" }, headers: { "x-auth-return-redirect": "1" } }))
  await see(await browser.request("/auth/session"))
  await see(await browser.request("/auth/session", { json: { csrfToken: csrf, data: { name: "Ada" } } }))
  await see(await browser.request("/auth/proto/me"))
  await see(await browser.request("/auth/proto/page?name=%3Cb%3E", { headers: { accept: "text/html" } }))
  await see(await browser.request("/auth/signout", { headers: { accept: "text/html" } }))
  await see(await browser.request("/auth/signout", { form: { csrfToken: csrf } }))
  await see(await browser.request("/auth/session"))
  // Refusals.
  await see(await browser.request("/auth/nope"))
  await see(await browser.request("/auth/session", { method: "PUT" }))
  await see(await browser.request("/auth/callback/credentials", { method: "POST", body: "{", headers: { "content-type": "application/json" } }))
  await see(await browser.request("/auth/callback/credentials", { method: "POST", body: "[".repeat(40) + "]".repeat(40), headers: { "content-type": "application/json" } }))
  await see(await browser.request("/auth/callback/credentials", { method: "POST", body: "x=".padEnd(1024 * 1024 + 10, "y"), headers: { "content-type": "application/x-www-form-urlencoded" } }))
  await see(await browser.request("/auth/proto/site", { method: "POST", body: "{}", headers: { "content-type": "application/json", origin: "https://evil.example" } }))
  await see(await browser.request("/elsewhere/session"))
  // Extension routes another party calls.
  await see(await browser.request("/auth/proto/form", { method: "POST", body: "a=1&a=2&b=%20x", headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://idp.example" } }))
  await see(await browser.request("/auth/proto/Users/u%201", { method: "PUT", body: JSON.stringify({ userName: "ada" }), headers: { "content-type": "application/scim+json" } }))
  await see(await browser.request("/auth/proto/Users/u1", { method: "DELETE" }))
  await see(await browser.request("/auth/proto/metadata"))
  await see(await browser.request("/auth/proto/Users/u1", { method: "OPTIONS" }))
  return seen
}

function config(): AuthConfig {
  return credentialsConfig({ extensions: [protocolExtension()], logger: captureLogger().logger })
}

describe("core's Node path answers as Auth() does", () => {
  it("through a whole visit: sign-in, session, update, extension routes, sign-out and refusals", async () => {
    const web = await visit(direct(config()))
    const node = await visit(nodePath(config()))
    expect(node).toEqual(web)
    // The visit is what it says: a session, then none; the oversized body refused.
    expect(web.map((r) => (r as { status: number }).status)).toEqual([200, 200, 302, 200, 200, 200, 200, 200, 200, 302, 200, 400, 405, 400, 400, 413, 403, 400, 200, 200, 204, 200, 405])
  })

  it("with database sessions and the session lane (a row read once, then the cached answer path)", async () => {
    const { MemoryAdapter } = await import("@portcullis/memory-adapter")
    const make = () => credentialsConfig({ adapter: MemoryAdapter(), session: { strategy: "database" }, logger: captureLogger().logger })
    for (const transport of [direct(make()), nodePath(make())]) {
      const browser = new Browser(transport)
      await browser.signIn()
      const first = (await (await browser.request("/auth/session")).json()) as { user?: { email?: string } }
      const again = (await (await browser.request("/auth/session")).json()) as { user?: { email?: string } }
      expect(first.user?.email).toBe("ada@example.com")
      expect(again).toEqual(first)
    }
  })
})

describe("a configuration that cannot work", () => {
  it("answers its error page and its health report through the Node path as Auth() does", async () => {
    const broken = () => credentialsConfig({ session: { strategy: "database" }, health: { endpoint: true }, logger: captureLogger().logger })
    for (const path of ["/auth/signin", "/auth/session", "/auth/health"]) {
      const web = await observed(await direct(broken())(new Request(`http://localhost:3000${path}`, { headers: { accept: "text/html" } })))
      const node = await observed(await nodePath(broken())(new Request(`http://localhost:3000${path}`, { headers: { accept: "text/html" } })))
      expect(node, path).toEqual(web)
      expect(web.status, path).toBeGreaterThanOrEqual(500)
    }
  })
})

describe("what only a Node request can carry", () => {
  const runtime = () => runtimeFor(config())

  it("TRACE, TRACK and CONNECT: core's 405, as for any method no action takes", async () => {
    for (const method of ["TRACE", "track", "CONNECT"]) {
      const answer = await runtime().handleNode({ method, origin: "http://localhost:3000", target: "/auth/session", headers: { host: "localhost:3000" } })
      expect(answer.status).toBe(405)
      expect(answer.headers.allow).toBe("GET, POST")
      expect(JSON.parse(answer.body!)).toMatchObject({ error: "MethodNotAllowed" })
    }
  })

  it("a target in absolute form or starting with // names no host of its own", async () => {
    for (const target of ["http://evil.example/auth/signin", "//evil.example/auth/signin"]) {
      const answer = await runtime().handleNode({ method: "GET", origin: "http://localhost:3000", target, headers: { host: "localhost:3000", accept: "text/html" } })
      // `//evil.example/auth/signin` is the path `/auth/signin` of… no: a scheme-relative
      // target parses with evil.example as its host, and only its path is kept.
      expect(answer.status).toBe(200)
      expect(answer.body).not.toContain("evil.example")
      expect(answer.body).toContain("http://localhost:3000/auth/")
    }
  })

  it("an origin that makes no URL is core's 400, with no stack", async () => {
    const answer = await runtime().handleNode({ method: "GET", origin: "http://bad host", target: "/auth/session", headers: {} })
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body!)).toEqual({ error: "InvalidRequest", message: "The request target or origin is not valid" })
  })

  it("forwarded headers are not passed on: the integration judged them when it worked out the origin", async () => {
    const answer = await runtime().handleNode({
      method: "GET",
      origin: "http://localhost:3000",
      target: "/auth/signin",
      headers: { host: "localhost:3000", accept: "text/html", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https", forwarded: "host=evil.example" },
    })
    expect(answer.status).toBe(200)
    expect(answer.body).not.toContain("evil.example")
    expect(answer.body).not.toContain("https://localhost")
  })

  it("a body as a string, as bytes, or as chunks (strings included) reads the same", async () => {
    const form = new URLSearchParams({ a: "1", b: "zwei ü" }).toString()
    const extension = defineExtension({ id: "echo", routes: [{ method: "POST", path: "x", access: "anyone", from: "anywhere", handler: (req) => ({ json: req.body }) }] })
    const rt = runtimeFor(credentialsConfig({ extensions: [extension] }))
    const bodies = [form, new TextEncoder().encode(form), chunks(new TextEncoder().encode(form)), (async function* () { yield form.slice(0, 3); yield new TextEncoder().encode(form.slice(3)) })()]
    for (const body of bodies) {
      const answer = await rt.handleNode({ method: "POST", origin: "http://localhost:3000", target: "/auth/echo/x", headers: { host: "localhost:3000", "content-type": "application/x-www-form-urlencoded" }, body })
      expect(JSON.parse(answer.body!)).toEqual({ a: "1", b: "zwei ü" })
    }
  })

  it("a body that ends early (the client went away) is a 400 and a warning, never a stack", async () => {
    const log = captureLogger()
    const rt = runtimeFor(credentialsConfig({ logger: log.logger }))
    async function* aborted() {
      yield new TextEncoder().encode("csrfToken=abc&user")
      throw Object.assign(new Error("aborted"), { code: "ECONNRESET" })
    }
    const answer = await rt.handleNode({ method: "POST", origin: "http://localhost:3000", target: "/auth/callback/credentials", headers: { host: "localhost:3000", "content-type": "application/x-www-form-urlencoded" }, body: aborted() })
    expect(answer.status).toBe(400)
    expect(answer.body).not.toContain("at ")
    expect(log.lines.join("\n")).not.toMatch(/\n\s+at /)
  })

  it("a body past the limit stops being read at the limit (a stream that never ends included)", async () => {
    let read = 0
    async function* endless() {
      for (;;) {
        read += 64 * 1024
        yield new Uint8Array(64 * 1024)
      }
    }
    const answer = await runtime().handleNode({ method: "POST", origin: "http://localhost:3000", target: "/auth/callback/credentials", headers: { host: "localhost:3000", "content-type": "application/x-www-form-urlencoded" }, body: endless() })
    expect(answer.status).toBe(413)
    expect(read).toBeLessThanOrEqual(1024 * 1024 + 64 * 1024)
  })

  it("a declared length past the limit is refused before a byte is read", async () => {
    let touched = false
    async function* body() {
      touched = true
      yield new Uint8Array(1)
    }
    const answer = await runtime().handleNode({ method: "POST", origin: "http://localhost:3000", target: "/auth/callback/credentials", headers: { host: "localhost:3000", "content-length": String(2 * 1024 * 1024) }, body: body() })
    expect(answer.status).toBe(413)
    expect(touched).toBe(false)
  })
})
