/**
 * Attacks on core's Node path (`handleNodeRequest`, `AuthRuntime.handleNode`): what an
 * extension answers that a Node server cannot write, hostile hosts and targets on a real
 * socket, the session lane's fast path against `Auth()`, and 50 bodies at once.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { defineExtension } from "@portcullis/core/extension"
import { handleNodeRequest, runtimeFor } from "@portcullis/core/integration"
import { captureLogger, credentialsConfig, direct } from "../helpers.js"
import { rawRequest } from "../raw-http.js"

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

async function serve(config: AuthConfig): Promise<{ port: number; rejected: unknown[] }> {
  const rejected: unknown[] = []
  const server = createServer((req, res) => {
    handleNodeRequest(req, res, config).catch((error: unknown) => {
      rejected.push(error)
      res.destroy(error as Error)
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { port: (server.address() as AddressInfo).port, rejected }
}

/** An extension whose answers carry what no server should write, and an echo of the body. */
function hostile() {
  const route = (path: string, answer: Record<string, unknown>) => ({ method: "GET" as const, path, access: "anyone" as const, from: "anywhere" as const, handler: () => answer as never })
  return defineExtension({
    id: "h",
    routes: [
      route("euro", { json: { a: 1 }, headers: { "X-Name": "caf\u00e9 \u20ac" } }),
      route("nul", { json: { a: 1 }, headers: { "X-Nul": "a\u0000b" } }),
      route("ctl", { json: { a: 1 }, headers: { "X-Ctl": "a\u0001b" } }),
      route("name", { json: { a: 1 }, headers: { "X Bad": "1" } }),
      route("framing", { json: { a: 1 }, headers: { "Transfer-Encoding": "chunked", Connection: "keep-alive, x-a", Upgrade: "h2c", "Content-Length": "3" } }),
      route("empty-length", { empty: true, status: 200, headers: { "Content-Length": "5" } }),
      route("s99", { json: { a: 1 }, status: 99 }),
      route("s101", { json: { a: 1 }, status: 101 }),
      route("s600", { json: { a: 1 }, status: 600 }),
      route("text", { text: "\u00e9\u20ac\ud83d\ude00", contentType: "text/plain" }),
      { method: "POST", path: "echo", access: "anyone", from: "anywhere", handler: (req) => ({ json: { body: req.body } }) },
    ],
  })
}

const config = () => credentialsConfig({ extensions: [hostile()], logger: captureLogger().logger })

describe("an extension's answer a Node server cannot write is answered, as Auth() answers it", () => {
  it.each(["euro", "nul", "ctl", "name", "framing", "empty-length", "s99", "s101", "s600"])("%s: an answer on the socket, the status Auth() gives, no framing header of the extension's", async (path) => {
    const c = config()
    const { port, rejected } = await serve(c)
    const node = await rawRequest(port, `/auth/h/${path}`, [`Host: 127.0.0.1:${port}`])
    const web = await direct(c)(new Request(`http://127.0.0.1:${port}/auth/h/${path}`))
    expect(rejected).toEqual([])
    expect(node.status).toBe(web.status)
    expect(node.headers.location).toBe(web.headers.get("location") ?? undefined)
    expect(node.headers["transfer-encoding"] === undefined || node.headers["content-length"] === undefined).toBe(true)
    expect(node.headers).not.toHaveProperty("upgrade")
    expect(node.headers.connection).toBe("close")
    if (path === "empty-length") expect(node.headers["content-length"]).not.toBe("5")
    // The Web path agrees: the same header is left out there.
    for (const name of ["x-name", "x-nul", "transfer-encoding", "upgrade"]) expect(web.headers.has(name)).toBe(false)
  })

  it("a status outside 200–599 is the bug's error page on both paths, never a 1xx or 6xx with a body", async () => {
    const c = config()
    const { port } = await serve(c)
    for (const path of ["s99", "s101", "s600"]) {
      const node = await rawRequest(port, `/auth/h/${path}`, [`Host: 127.0.0.1:${port}`])
      expect(node.status).toBe(302)
      expect(node.headers.location).toBe(`http://127.0.0.1:${port}/auth/error?error=Configuration`)
    }
  })

  it("a non-ASCII body goes out with its length in bytes, not characters", async () => {
    const { port } = await serve(config())
    const node = await rawRequest(port, "/auth/h/text", [`Host: 127.0.0.1:${port}`])
    expect(node.headers["content-length"]).toBe(String(Buffer.byteLength("\u00e9\u20ac\ud83d\ude00")))
    expect(Buffer.from(node.body, "latin1").toString("utf8")).toBe("\u00e9\u20ac\ud83d\ude00")
  })
})

describe("hostile hosts and targets on the Node path build no URL on the attacker's host", () => {
  const strict = () => credentialsConfig({ trustHost: false, trustedOrigins: ["http://127.0.0.1"], logger: captureLogger().logger } as Partial<AuthConfig>)

  it.each([
    ["evil.example", 400],
    ["127.0.0.1@evil.example", 400],
    ["evil.example/x", 400],
    ["127.0.0.1:0", 400],
    ["127.0.0.1:65536", 400],
    ["[::1", 400],
    ["EVIL.example.", 400],
  ])("without trustHost, Host %s is a 400 with no stack and no redirect", async (host, status) => {
    const { port, rejected } = await serve(strict())
    const answer = await rawRequest(port, "/auth/signin/credentials", [`Host: ${host}`], "POST")
    expect(answer.status).toBe(status)
    expect(answer.headers.location).toBeUndefined()
    expect(answer.body).not.toMatch(/\n\s+at /)
    expect(rejected).toEqual([])
  })

  it.each(["evil.example/x", "a@evil.example", "evil.example:0", "javascript:x"])("with trustHost, X-Forwarded-Host %j is core's 400, no URL built on it", async (forwarded) => {
    const { port, rejected } = await serve(credentialsConfig({ logger: captureLogger().logger }))
    const answer = await rawRequest(port, "/auth/signin", [`Host: 127.0.0.1:${port}`, `X-Forwarded-Host: ${forwarded}`])
    expect(rejected).toEqual([])
    // Refused (the message quotes the value, as JSON), or served on a host without its path or userinfo.
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toMatchObject({ error: "InvalidRequest" })
    expect(answer.headers.location).toBeUndefined()
  })

  it("with trustHost, only the first of an X-Forwarded-Host list counts", async () => {
    const { port } = await serve(credentialsConfig({ logger: captureLogger().logger }))
    const answer = await rawRequest(port, "/auth/signin", [`Host: 127.0.0.1:${port}`, "X-Forwarded-Host: a.example, evil.example/x"])
    expect(answer.status).toBe(200)
    expect(answer.body).toContain("http://a.example/auth/")
    expect(answer.body).not.toContain("evil.example")
  })

  it.each(["http://evil.example/auth/signin", "//evil.example/auth/signin", "https:evil.example/auth/signin"])("a target %s keeps the server's origin", async (target) => {
    const { port } = await serve(credentialsConfig({ logger: captureLogger().logger }))
    const answer = await rawRequest(port, target, [`Host: 127.0.0.1:${port}`])
    expect(answer.status).toBeLessThan(500)
    expect(answer.body).not.toContain("evil.example")
    expect(answer.headers.location ?? "").not.toContain("evil.example")
  })

  it("a target of * is core's 400", async () => {
    const { port } = await serve(credentialsConfig({ logger: captureLogger().logger }))
    expect((await rawRequest(port, "*", [`Host: 127.0.0.1:${port}`])).status).toBe(400)
  })
})

describe("the session lane answers only what Auth() answers", () => {
  it.each([
    ["/auth/session?x=1", {}],
    ["/Auth/session", {}],
    ["/auth/session/", {}],
    ["/auth//session", {}],
    ["/auth/session", { "x-auth-return-redirect": "1" }],
    ["/auth/session", { cookie: ["a=1", "authjs.session-token=forged"] }],
  ] as const)("GET %s %j", async (target, extra) => {
    const c = credentialsConfig({ logger: captureLogger().logger })
    const runtime = runtimeFor(c)
    // The lane only answers for an origin a full request worked out: make one.
    await runtime.handleNode({ method: "GET", origin: "http://127.0.0.1:3000", target: "/auth/session", headers: { host: "127.0.0.1:3000" } })
    const headers = { host: "127.0.0.1:3000", ...extra } as Record<string, string | string[]>
    const node = await runtime.handleNode({ method: "get", origin: "http://127.0.0.1:3000", target, headers })
    const webHeaders = new Headers()
    for (const [k, v] of Object.entries(headers)) for (const one of [v].flat()) webHeaders.append(k, one)
    const web = await direct(c)(new Request(`http://127.0.0.1:3000${target}`, { headers: webHeaders }))
    expect(node.status).toBe(web.status)
    expect(node.body ?? "").toBe(await web.text())
    expect(node.headers["set-cookie"] ?? []).toEqual(web.headers.getSetCookie())
  })
})

describe("50 bodies at once through handleNodeRequest", () => {
  it("each answer carries its own body, none another's", async () => {
    const { port, rejected } = await serve(config())
    const answers = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const response = await fetch(`http://127.0.0.1:${port}/auth/h/echo`, { method: "POST", headers: { "content-type": "application/json; charset=utf-8" }, body: JSON.stringify({ i, pad: "\u00e9".repeat(i * 100) }) })
        return { i, body: (await response.json()) as { body: { i: number; pad: string } } }
      }),
    )
    for (const { i, body } of answers) {
      expect(body.body.i).toBe(i)
      expect(body.body.pad).toBe("\u00e9".repeat(i * 100))
    }
    expect(rejected).toEqual([])
  })
})
