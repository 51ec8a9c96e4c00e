/**
 * `handleNodeRequest` on a real node:http server: core's Node path as an app without a
 * framework mounts it. What a socket adds to the differential suite (node-lane.test.ts):
 * hostile `Host` headers, forwarded headers with and without `trustHost`, bodies streamed
 * in chunks, past the limit, or cut off by the client, 50 browsers at once, and a session
 * store that is down or hangs — every refusal a clear 4xx/503 with no stack, the server
 * still answering afterwards.
 */
import { createServer, request as httpRequest, type Server } from "node:http"
import { connect, type AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { defineExtension } from "@portcullis/core/extension"
import { handleNodeRequest } from "@portcullis/core/integration"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, captureLogger, credentialsConfig, type Transport } from "../helpers.js"
import { outageFixture } from "../outage-fixture.js"
import { rawRequest } from "../raw-http.js"

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

/** A plain node:http server answering everything with `handleNodeRequest`. */
async function serve(config: AuthConfig): Promise<{ port: number; origin: string; transport: Transport; server: Server }> {
  const server = createServer((req, res) => {
    handleNodeRequest(req, res, config).catch((error: unknown) => {
      res.destroy(error as Error)
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  const origin = `http://127.0.0.1:${port}`
  const transport: Transport = (request) => fetch(request, { redirect: "manual" })
  return { port, origin, transport, server }
}

describe("handleNodeRequest on node:http", () => {
  it("signs in, checks and signs out 50 browsers at once, each seeing only its own session", async () => {
    const { origin, transport } = await serve(credentialsConfig({ session: { strategy: "database" }, adapter: MemoryAdapter() }))
    const browsers = Array.from({ length: 50 }, () => new Browser(transport, origin))
    await Promise.all(browsers.map((b) => b.signIn()))
    const tokens = new Set(browsers.map((b) => b.sessionCookie()))
    expect(tokens.size).toBe(50)
    const sessions = await Promise.all(browsers.map(async (b) => (await (await b.request("/auth/session")).json()) as { user?: { email?: string } }))
    expect(sessions.every((s) => s.user?.email === "ada@example.com")).toBe(true)
    // Half sign out; the other half keep their sessions.
    await Promise.all(browsers.slice(0, 25).map((b) => b.signOut()))
    const after = await Promise.all(browsers.map(async (b) => (await (await b.request("/auth/session")).json()) as unknown))
    expect(after.slice(0, 25).every((s) => s === null)).toBe(true)
    expect(after.slice(25).every((s) => (s as { user?: unknown } | null)?.user)).toBe(true)
  })

  it("answers with a Content-Length, not chunked framing", async () => {
    const { port } = await serve(credentialsConfig())
    const response = await rawRequest(port, "/auth/csrf", [`Host: 127.0.0.1:${port}`])
    expect(response.status).toBe(200)
    expect(response.headers["content-length"]).toBe(String(Buffer.byteLength(response.body)))
    expect(response.headers["transfer-encoding"]).toBeUndefined()
  })

  it("an answer without a body says Content-Length: 0 (a redirect), and a 204 sends no length at all", async () => {
    const gone = defineExtension({ id: "gone", routes: [{ method: "DELETE", path: "x", access: "anyone", from: "anywhere", handler: () => ({ empty: true }) }] })
    const { port } = await serve(credentialsConfig({ extensions: [gone] }))
    const redirect = await rawRequest(port, "/auth/signin/credentials?x=1", [`Host: 127.0.0.1:${port}`], "POST")
    expect(redirect.status).toBe(302)
    expect(redirect.headers["content-length"]).toBe("0")
    expect(redirect.headers["transfer-encoding"]).toBeUndefined()
    const empty = await rawRequest(port, "/auth/gone/x", [`Host: 127.0.0.1:${port}`], "DELETE")
    expect(empty.status).toBe(204)
    expect(empty.headers["content-length"]).toBeUndefined()
    expect(empty.headers["transfer-encoding"]).toBeUndefined()
  })

  it("refuses a Host no URL can be built from with core's 400, no stack, and keeps serving", async () => {
    const log = captureLogger()
    const { port } = await serve(credentialsConfig({ logger: log.logger }))
    for (const host of ["bad host/x", "a@b", "[::1", "x:99999"]) {
      const response = await rawRequest(port, "/auth/session", [`Host: ${host}`])
      expect(response.status, host).toBe(400)
      expect(JSON.parse(response.body)).toMatchObject({ error: "InvalidRequest" })
      expect(response.body).not.toMatch(/\n\s+at /)
    }
    expect((await rawRequest(port, "/auth/session", [`Host: 127.0.0.1:${port}`])).status).toBe(200)
  })

  it("refuses two Host headers with a 400 (a proxy in front may have routed by the other one)", async () => {
    const { port } = await serve(credentialsConfig())
    const response = await rawRequest(port, "/auth/session", [`Host: 127.0.0.1:${port}`, "Host: evil.example"])
    expect(response.status).toBe(400)
    expect(JSON.parse(response.body)).toEqual({ error: "InvalidRequest", message: "The request has more than one Host header" })
  })

  it("reads X-Forwarded-Host and -Proto only with trustHost", async () => {
    const forwarded = ["X-Forwarded-Host: app.example", "X-Forwarded-Proto: https", "Accept: text/html"]
    const trusting = await serve(credentialsConfig({ trustHost: true }))
    const trusted = await rawRequest(trusting.port, "/auth/signin", [`Host: 127.0.0.1:${trusting.port}`, ...forwarded])
    expect(trusted.body).toContain("https://app.example/auth/")
    // Without it the origin is the Host's — which this site does not serve, and says so; had
    // the forwarded host counted, the page would have been served for it (it is trusted).
    const strict = await serve(credentialsConfig({ trustHost: false, trustedOrigins: ["https://app.example"], logger: captureLogger().logger }))
    const ignored = await rawRequest(strict.port, "/auth/signin", [`Host: 127.0.0.1:${strict.port}`, ...forwarded])
    expect(ignored.status).toBe(400)
    expect(ignored.body).toContain(`http://127.0.0.1:${strict.port}`)
    expect(ignored.body).not.toContain("app.example")
  })

  it("reads a body streamed in chunks, and refuses one past the limit with 413 and keeps serving", async () => {
    const { port, origin, transport } = await serve(credentialsConfig())
    const csrf = await (await transport(new Request(`${origin}/auth/csrf`))).json()
    expect(csrf).toHaveProperty("csrfToken")
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ port, host: "127.0.0.1", method: "POST", path: "/auth/callback/credentials", headers: { "content-type": "application/x-www-form-urlencoded", "transfer-encoding": "chunked" } }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on("error", () => resolve(-1))
      const chunk = "x".repeat(64 * 1024)
      let sent = 0
      const pump = () => {
        while (sent < 2 * 1024 * 1024) {
          sent += chunk.length
          if (!req.write(chunk)) return void req.once("drain", pump)
        }
        req.end()
      }
      pump()
      setTimeout(() => reject(new Error("no answer")), 10_000).unref()
    })
    // A 413, or the connection ended by the server once it stopped reading: never a 5xx.
    expect([413, -1]).toContain(status)
    expect((await rawRequest(port, "/auth/session", [`Host: 127.0.0.1:${port}`])).status).toBe(200)
  })

  it("a client that goes away mid-body costs a warning at most, never an error with a stack, and the server keeps serving", async () => {
    const log = captureLogger()
    const { port } = await serve(credentialsConfig({ logger: log.logger }))
    await new Promise<void>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.write(`POST /auth/callback/credentials HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ncsrfToken=abc&user`)
        setTimeout(() => {
          socket.destroy()
          resolve()
        }, 50)
      })
    })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect((await rawRequest(port, "/auth/session", [`Host: 127.0.0.1:${port}`])).status).toBe(200)
    expect(log.lines.join("\n")).not.toMatch(/\n\s+at /)
  })

  it("a session store that is down answers 503 (not signed out), with no stack; back up, the session is there", async () => {
    const fixture = outageFixture()
    const cookie = await fixture.signedInCookie()
    const { port } = await serve(fixture.config({ basePath: "/auth" }))
    const check = () => rawRequest(port, "/auth/session", [`Host: 127.0.0.1:${port}`, `Cookie: ${cookie}`])
    expect(JSON.parse((await check()).body)).toMatchObject({ user: { email: "ada@example.com" } })
    fixture.down = true
    const down = await check()
    expect(down.status).toBe(503)
    expect(down.body).not.toMatch(/ECONNREFUSED|\n\s+at /)
    fixture.down = false
    expect(JSON.parse((await check()).body)).toMatchObject({ user: { email: "ada@example.com" } })
  })

  it("a session store that hangs answers 503 once adapterTimeout passes", async () => {
    const memory = MemoryAdapter()
    let hang = false
    const adapter = new Proxy(memory, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown
        if (typeof value !== "function") return value
        return (...args: unknown[]) => (hang ? new Promise(() => {}) : (value as (...a: unknown[]) => unknown).apply(target, args))
      },
    })
    const config = credentialsConfig({ adapter, session: { strategy: "database" }, adapterTimeout: 200, logger: captureLogger().logger })
    const { origin, transport, port } = await serve(config)
    const browser = new Browser(transport, origin)
    await browser.signIn()
    hang = true
    const started = Date.now()
    const response = await rawRequest(port, "/auth/session", [`Host: 127.0.0.1:${port}`, `Cookie: authjs.session-token=${browser.sessionCookie()}`])
    expect(response.status).toBe(503)
    expect(Date.now() - started).toBeLessThan(5_000)
  })
})
