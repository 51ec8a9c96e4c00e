import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ExpressAuth, getSession, InvalidRequest } from "@portcullis/express"
import { captureLogger, credentialsConfig } from "../../core/test/helpers.js"
import { rawRequest, type RawResponse } from "../../core/test/raw-http.js"

/**
 * T32 for Express: the attacker's raw requests (a hostile `Host` cannot be sent with
 * `fetch`) against a real Express server on a loopback port. Express builds the URL core
 * sees, so it must run core's host check first: every malformed value is core's 400, never
 * Express's 500 page with a stack, a `null` origin, or a path or userinfo in an origin.
 */

interface App {
  port: number
  close(): Promise<void>
}

/** `ExpressAuth` at /auth, and /me answering `getSession`'s result or the type of its error. */
async function start(trustProxy: boolean): Promise<App> {
  const { logger } = captureLogger()
  const config = credentialsConfig({ logger })
  const app = express()
  if (trustProxy) app.set("trust proxy", "loopback")
  app.use("/auth", ExpressAuth(config))
  app.get("/me", async (req, res) => {
    try {
      res.json({ session: await getSession(req, config) })
    } catch (error) {
      res.status(error instanceof InvalidRequest ? 400 : 500).json({ thrown: (error as Error).constructor.name, type: (error as InvalidRequest).type })
    }
  })
  const server: Server = createServer(app)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

/** A refusal as core answers it: 400 JSON `InvalidRequest`, nothing of the server inside. */
function expectRefused(response: RawResponse) {
  expect(response.status).toBe(400)
  expect(response.headers["content-type"]).toContain("application/json")
  expect(JSON.parse(response.body)).toMatchObject({ error: "InvalidRequest" })
  expectNothingLeaked(response)
}

function expectNothingLeaked(response: RawResponse) {
  expect(response.body).not.toMatch(/\bat .+:\d+:\d+\)?/) // a stack frame
  expect(response.body).not.toMatch(/\/(work|home|node_modules)\//) // a file path
  expect(response.body).not.toContain("null/")
  expect(response.headers.location ?? "").not.toMatch(/^null|evil/)
}

const hostileHosts = [
  ["userinfo", "a@evil.example"],
  ["a port above 65535", "x:99999"],
  ["a path", "evil.example/x"],
  ["a space", "evil example"],
  ["a tab", "evil\texample"],
  ["a query", "evil.example?x=1"],
  ["an unbracketed IPv6 address", "::1"],
]

const hostileForwarded: [string, string][] = [
  ["X-Forwarded-Host", "evil.example/x"],
  ["X-Forwarded-Host", "a@evil.example"],
  ["X-Forwarded-Host", "evil.example:99999"],
  ["X-Forwarded-Proto", "javascript"],
  ["X-Forwarded-Proto", "ftp, https"],
]

describe.each([
  ["trusts its proxy", true],
  ["trusts no proxy", false],
])("an Express app that %s", (_, trustProxy) => {
  let app: App
  beforeAll(async () => {
    app = await start(trustProxy)
  })
  afterAll(() => app.close())
  const host = () => `Host: 127.0.0.1:${app.port}`

  describe("a malformed Host is core's 400, never an Express error page", () => {
    it.each(hostileHosts)("Host with %s (%j) on a JSON endpoint", async (_, value) => {
      expectRefused(await rawRequest(app.port, "/auth/providers", [`Host: ${value}`]))
    })

    it.each(hostileHosts)("Host with %s (%j) on a page", async (_, value) => {
      expectRefused(await rawRequest(app.port, "/auth/signin", [`Host: ${value}`, "Accept: text/html"]))
    })

    it.each(hostileHosts)("Host with %s (%j) makes getSession throw InvalidRequest", async (_, value) => {
      const response = await rawRequest(app.port, "/me", [`Host: ${value}`])
      expect(response.status).toBe(400)
      expect(JSON.parse(response.body)).toEqual({ thrown: "InvalidRequest", type: "InvalidRequest" })
    })

    it("a CR inside the Host is refused before any code runs (Node's parser)", async () => {
      const response = await rawRequest(app.port, "/auth/providers", ["Host: evil.example\rx"])
      expect(response.status).toBe(400)
      expectNothingLeaked(response)
    })
  })

  describe("a request target in absolute form cannot choose the origin", () => {
    it("GET http://evil.example/auth/providers keeps the Host's origin", async () => {
      const response = await rawRequest(app.port, "http://evil.example/auth/providers", [host()])
      expect(response.status).toBe(200)
      expect(JSON.parse(response.body).credentials.signinUrl).toBe(`http://127.0.0.1:${app.port}/auth/signin/credentials`)
    })
  })

  describe(trustProxy ? "trusted forwarded headers are checked like Host" : "untrusted forwarded headers are ignored, hostile or not", () => {
    it.each(hostileForwarded)("%s: %s", async (name, value) => {
      const response = await rawRequest(app.port, "/auth/providers", [host(), `${name}: ${value}`])
      if (trustProxy) return expectRefused(response)
      expect(response.status).toBe(200)
      expectNothingLeaked(response)
      expect(JSON.parse(response.body).credentials.signinUrl).toBe(`http://127.0.0.1:${app.port}/auth/signin/credentials`)
    })

    it.each(hostileForwarded)("%s: %s, through getSession", async (name, value) => {
      const response = await rawRequest(app.port, "/me", [host(), `${name}: ${value}`])
      if (trustProxy) {
        expect(response.status).toBe(400)
        expect(JSON.parse(response.body)).toEqual({ thrown: "InvalidRequest", type: "InvalidRequest" })
      } else {
        expect(response.status).toBe(200)
        expect(JSON.parse(response.body)).toEqual({ session: null })
      }
    })

    it("X-Forwarded-Proto: https, http counts by its first value", async () => {
      const response = await rawRequest(app.port, "/auth/providers", [host(), "X-Forwarded-Proto: https, http"])
      expect(response.status).toBe(200)
      const scheme = trustProxy ? "https" : "http"
      expect(JSON.parse(response.body).credentials.signinUrl).toBe(`${scheme}://127.0.0.1:${app.port}/auth/signin/credentials`)
    })

    it("a redirect built from the headers has no null origin", async () => {
      const response = await rawRequest(app.port, "/auth/signin/credentials", [host(), "X-Forwarded-Proto: javascript", "Content-Type: application/x-www-form-urlencoded", "Content-Length: 0"], "POST")
      if (trustProxy) return expectRefused(response)
      expectNothingLeaked(response)
    })
  })
})

/**
 * Issue 30: an app that lists its exact origins (`trustedOrigins`, trustHost off — the
 * Express demo at localhost and 127.0.0.1) refuses any other Host. `getSession` must throw
 * `InvalidRequest` for it, as for a malformed Host, so the app answers 400: core's
 * refusal used to come back as a plain `Error`, which the app's error handler made a 500.
 */
describe("an Express app that serves only its listed origins", () => {
  let server: Server
  let port: number
  beforeAll(async () => {
    server = createServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    port = (server.address() as AddressInfo).port
    const config = credentialsConfig({ logger: captureLogger().logger, trustHost: false, trustedOrigins: [`http://localhost:${port}`, `http://127.0.0.1:${port}`] })
    const app = express()
    app.use("/auth", ExpressAuth(config))
    app.get("/me", async (req, res) => {
      try {
        res.json({ session: await getSession(req, config) })
      } catch (error) {
        res.status(error instanceof InvalidRequest ? 400 : 500).json({ thrown: (error as Error).constructor.name })
      }
    })
    server.on("request", app)
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it("answers both listed origins", async () => {
    for (const name of ["localhost", "127.0.0.1"]) {
      const response = await rawRequest(port, "/me", [`Host: ${name}:${port}`])
      expect(response.status).toBe(200)
      expect(JSON.parse(response.body)).toEqual({ session: null })
    }
  })

  it("getSession throws InvalidRequest for any other Host", async () => {
    const response = await rawRequest(port, "/me", ["Host: evil.example"])
    expect(response.status).toBe(400)
    expect(JSON.parse(response.body)).toEqual({ thrown: "InvalidRequest" })
    expectRefused(await rawRequest(port, "/auth/providers", ["Host: evil.example"]))
  })
})
