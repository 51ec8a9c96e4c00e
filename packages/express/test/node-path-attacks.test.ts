/**
 * ExpressAuth on core's Node path behind the app's body parsers: what a parser left is
 * encoded back so core reads the body the client sent — `express.raw()`'s bytes as they
 * came, JSON and forms with `__proto__`/`constructor` keys as plain data, never on a prototype.
 */
import express from "express"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { defineExtension } from "@portcullis/core/extension"
import { ExpressAuth } from "@portcullis/express"
import { captureLogger, credentialsConfig } from "../../core/test/helpers.js"
import { rawRequest } from "../../core/test/raw-http.js"

const servers: Server[] = []
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    server.close()
  }
})

const echo = defineExtension({ id: "e", routes: [{ method: "POST", path: "echo", access: "anyone", from: "anywhere", handler: (req) => ({ json: { body: req.body, polluted: ({} as Record<string, unknown>).polluted ?? null } }) }] })

async function app(parser: "raw" | "json" | "urlencoded"): Promise<string> {
  const app = express()
  app.use(parser === "raw" ? express.raw({ type: "*/*" }) : parser === "json" ? express.json() : express.urlencoded({ extended: true }))
  app.use("/auth", ExpressAuth(credentialsConfig({ extensions: [echo], logger: captureLogger().logger })))
  const server = app.listen(0, "127.0.0.1")
  servers.push(server)
  await new Promise((resolve) => server.once("listening", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const post = async (origin: string, type: string, body: string) => (await fetch(`${origin}/auth/e/echo`, { method: "POST", headers: { "content-type": type }, body })).json()

describe("a body express.raw() read", () => {
  it("reaches core as the form and the JSON the client sent", async () => {
    const origin = await app("raw")
    expect(await post(origin, "application/x-www-form-urlencoded", "a=1&b=%20x")).toEqual({ body: { a: "1", b: " x" }, polluted: null })
    expect(await post(origin, "application/json; charset=utf-8", '{"a":"\u00e9"}')).toEqual({ body: { a: "\u00e9" }, polluted: null })
  })
})

describe("prototype keys in a parsed body stay data", () => {
  it.each(["raw", "json", "urlencoded"] as const)("after express.%s()", async (parser) => {
    const origin = await app(parser)
    const json = await post(origin, "application/json", '{"a":{"__proto__":{"polluted":1}},"constructor":{"prototype":{"polluted":1}}}')
    expect(json).toEqual({ body: { a: { ["__proto__"]: { polluted: 1 } }, constructor: { prototype: { polluted: 1 } } }, polluted: null })
    const form = (await post(origin, "application/x-www-form-urlencoded", "__proto__[polluted]=1&constructor[prototype][polluted]=1&a=1")) as { polluted: unknown; body: Record<string, unknown> }
    expect(form.polluted).toBeNull()
    expect(form.body.a).toBe("1")
    expect(Object.getPrototypeOf(form.body)).toBe(Object.prototype)
  })
})

describe("two Host headers through ExpressAuth", () => {
  // As core's own Node path answers them (test/http/node-server.test.ts): Node keeps the first
  // Host in `req.headers`, and a proxy in front may have routed by the last. The request
  // ExpressAuth builds carries `rawHeaders`, so core sees both.
  it("are a 400, and one Host still answers", async () => {
    const origin = await app("json")
    const port = Number(new URL(origin).port)
    const twice = await rawRequest(port, "/auth/session", [`Host: 127.0.0.1:${port}`, "Host: evil.example"])
    expect(twice.status).toBe(400)
    expect(JSON.parse(twice.body)).toEqual({ error: "InvalidRequest", message: "The request has more than one Host header" })
    expect((await rawRequest(port, "/auth/session", [`Host: 127.0.0.1:${port}`])).status).toBe(200)
  })
})

