/**
 * Attack on "a cors route's refusals before its handler carry the CORS headers too"
 * (extensions/cors.ts `withPathCors`, runtime.ts's parse-failure catch, handle.ts's 405).
 * `withPathCors` re-derives the route from the URL on its own, apart from the router: any
 * way to make it see a `cors: true` path where the router sees another (a page route, a
 * machine route without cors, core's own actions, an unknown extension, a path outside the
 * base path) would make that refusal readable by every site's script. Tried here: percent-
 * encoding, doubled and trailing slashes, dot segments, case, a base-path look-alike, query
 * strings, parameters, and a path whose cors GET sits beside a non-cors POST; that no refusal
 * with CORS carries credentials, a cookie or a stack; and that core's Node path on a real
 * node:http server answers these refusals with the same headers as `Auth()`.
 */
import type { Server } from "node:http"
import { connect } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { defineExtension } from "@portcullis/core/extension"
import { captureLogger, credentialsConfig } from "../../helpers.js"
import { nodeServer, rawRequest } from "../../raw-http.js"

const ORIGIN = "http://localhost:3000"
const SPA = "https://spa.example"
const MiB = 1024 * 1024

const api = defineExtension({
  id: "api",
  routes: [
    { method: "POST", path: "token", access: "anyone", from: "anywhere", cors: true, handler: () => ({ json: { token: "t" } }) },
    { method: "POST", path: "items/:id", access: "anyone", from: "anywhere", cors: true, handler: (req) => ({ json: { id: req.params.id } }) },
    { method: "POST", path: "items/:id/edit", access: "anyone", from: "anywhere", handler: () => ({ json: {} }) },
    { method: "POST", path: "plain", access: "anyone", from: "anywhere", handler: () => ({ json: { ok: true } }) },
    { method: "GET", path: "page", access: "anyone", handler: (req) => req.page("Hi", [] as never) },
    // One path, two routes: a cors GET anyone may read, and a POST of the site's own pages
    // (it may read the browser's cookies, and its answers carry no CORS headers).
    { method: "GET", path: "mixed", access: "anyone", from: "anywhere", cors: true, handler: () => ({ json: {} }) },
    { method: "POST", path: "mixed", access: "anyone", handler: () => ({ json: { mine: true } }) },
  ],
})

function setup(extra: Partial<AuthConfig> = {}) {
  const log = captureLogger()
  const config = credentialsConfig({ extensions: [api], logger: log.logger, ...extra })
  const send = (path: string, init: RequestInit = {}) => Auth(new Request(`${ORIGIN}${path}`, { ...init, headers: { origin: SPA, ...(init.headers as Record<string, string>) } }), config)
  return { log, config, send }
}

const broken: RequestInit = { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" }
const big: RequestInit = { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `grant=${"x".repeat(MiB)}` }

/** Nothing a refusal with CORS headers may carry besides them. */
async function expectBareRefusal(answer: Response, label: string) {
  expect(answer.status, label).toBeGreaterThanOrEqual(400)
  expect(answer.status, label).toBeLessThan(500)
  expect(answer.headers.get("access-control-allow-credentials"), label).toBeNull()
  expect(answer.headers.get("set-cookie"), label).toBeNull()
  const text = await answer.text()
  expect(text, label).not.toMatch(/\bat .*\(|node_modules|\.ts:\d|secret/i)
}

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

const serve = (config: AuthConfig) => nodeServer(config, servers)

describe("path tricks do not put CORS headers on a refusal of a path that is not a cors route", () => {
  const notCors = [
    // routes without cors, spelled every way the router still reads them
    "/auth/api/plain",
    "/auth/api/pla%69n",
    "/auth/api/plain/",
    "/auth/api//plain",
    "/auth/api/./plain",
    "/auth/api/token/../plain",
    "/auth/api/plain?next=/auth/api/token",
    "/auth/api/page",
    "/auth/api/items/1/edit",
    "/auth/api/items//1/edit",
    // what the router reads as no route, or no extension
    "/auth/api/TOKEN",
    "/auth/API/token",
    "/auth/%61pi/token",
    "/auth/api%2Ftoken",
    "/auth/api%2ftoken",
    "/auth%2Fapi/token",
    "/auth/api/to%252Fken",
    "/auth/api/token%2F",
    "/auth/api/token/x",
    "/auth/api/%2e%2e/session",
    `/auth/api/items/${"a".repeat(257)}`,
    "/auth/nope/token",
    // outside the base path, and core's own actions
    "/authx/api/token",
    "/api/token",
    "/auth",
    "/auth/",
    "/auth/callback/credentials",
    "/auth/signin",
    "/auth/signin/credentials",
    "/auth/signout",
    "/auth/session",
    "/auth/csrf",
  ]

  it.each(notCors)("a body that does not parse at %s: no CORS headers", async (path) => {
    const { send } = setup()
    const answer = await send(path, broken)
    expect(answer.status, path).toBeGreaterThanOrEqual(400)
    expect(answer.headers.get("access-control-allow-origin"), path).toBeNull()
    expect(answer.headers.get("access-control-expose-headers"), path).toBeNull()
  })

  it("a body over 1 MiB at a path that is not a cors route: 413 with no CORS headers", async () => {
    const { send } = setup()
    for (const path of ["/auth/api/plain", "/auth/api/pla%69n", "/auth/API/token", "/authx/api/token", "/auth/callback/credentials", "/auth/api/items/1/edit"]) {
      const answer = await send(path, big)
      expect(answer.status, path).toBeGreaterThanOrEqual(400)
      expect(answer.headers.get("access-control-allow-origin"), path).toBeNull()
    }
  })

  it("a method a non-cors path does not take: 405 with no CORS headers, spelled any way", async () => {
    const { send } = setup()
    for (const path of ["/auth/api/plain", "/auth/api/pla%69n", "/auth/api//plain/", "/auth/api/page"]) {
      const answer = await send(path, { method: "PUT" })
      expect(answer.status, path).toBe(405)
      expect(answer.headers.get("access-control-allow-origin"), path).toBeNull()
    }
    const page = await send("/auth/api/page", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
    expect(page.status).toBe(405)
    expect(page.headers.get("access-control-allow-origin")).toBeNull()
  })

  it("a basePath other than the default: its look-alikes and the default's paths get none", async () => {
    const { send } = setup({ basePath: "/api/auth" })
    for (const path of ["/auth/api/token", "/api/authx/api/token", "/api/auth%2Fapi/token", "/api/auth/api/plain"]) {
      const answer = await send(path, broken)
      expect(answer.headers.get("access-control-allow-origin"), path).toBeNull()
    }
    const cors = await send("/api/auth/api/token", broken)
    expect(cors.status).toBe(400)
    expect(cors.headers.get("access-control-allow-origin")).toBe("*")
  })

  it("an extension whose id is one of core's actions is a configuration error whose 500 carries no CORS headers", async () => {
    const session = defineExtension({ id: "session", routes: [{ method: "POST", path: "token", access: "anyone", from: "anywhere", cors: true, handler: () => ({ json: {} }) }] })
    const config = credentialsConfig({ extensions: [session], logger: captureLogger().logger })
    const answer = await Auth(new Request(`${ORIGIN}/auth/session/token`, { ...broken, headers: { ...(broken.headers as Record<string, string>), origin: SPA } }), config)
    expect(answer.status).toBe(500)
    expect(answer.headers.get("access-control-allow-origin")).toBeNull()
  })
})

describe("a cors route spelled as the router reads it keeps its CORS headers on these refusals", () => {
  it.each(["/auth/api/token", "/auth/api/%74oken", "/auth/api//token/", "/auth/api/./token", "/auth/api/plain/../token", "/auth/api/token?x=1", "/auth/api/items/1", "/auth/api/items/a%2Fedit"])(
    "%s: a 400 for a body that does not parse, readable and bare",
    async (path) => {
      const { send } = setup()
      const answer = await send(path, broken)
      expect(answer.status, path).toBe(400)
      expect(answer.headers.get("access-control-allow-origin"), path).toBe("*")
      await expectBareRefusal(answer, path)
    },
  )

  it("a 413 and a 405 at a cors path: readable, no credentials, no cookie, no stack", async () => {
    const { send } = setup()
    for (const [label, answer] of [["413", await send("/auth/api/token", big)], ["405", await send("/auth/api/token", { method: "PUT" })], ["405 GET", await send("/auth/api/items/7")]] as const) {
      expect(answer.headers.get("access-control-allow-origin"), label).toBe("*")
      await expectBareRefusal(answer, label)
    }
  })

  it("its refusal body says no more than the same refusal of a route without cors", async () => {
    const { send } = setup()
    const cors = await send("/auth/api/token", broken)
    const plain = await send("/auth/api/plain", broken)
    expect(await cors.json()).toEqual(await plain.json())
    const corsBig = await send("/auth/api/token", big)
    const plainBig = await send("/auth/api/plain", big)
    expect(corsBig.status).toBe(plainBig.status)
    expect(await corsBig.json()).toEqual(await plainBig.json())
  })

  it("even for a browser that sends its session cookie along: no cookie set, no credentials allowed", async () => {
    const { send } = setup()
    const answer = await send("/auth/api/token", { ...broken, headers: { "content-type": "application/json", cookie: "authjs.session-token=whatever; authjs.csrf-token=x" } })
    expect(answer.headers.get("access-control-allow-origin")).toBe("*")
    await expectBareRefusal(answer, "with cookie")
  })
})

describe("a path with a cors GET and a non-cors POST", () => {
  // Found by the attack pass of 2026-11-29 and fixed: `withPathCors` asked only whether the
  // *path* had a cors route, so a non-cors POST beside a cors GET got the CORS headers on its
  // 400 and 413 (its own refusals had none). It now decides by the route the method takes,
  // as handle.ts does.
  it("a POST's unparsable body (400) and too-large body (413) carry no CORS headers", async () => {
    const { send } = setup()
    for (const init of [broken, big]) {
      const answer = await send("/auth/api/mixed", init)
      expect(answer.status).toBeGreaterThanOrEqual(400)
      expect(answer.headers.get("access-control-allow-origin")).toBeNull()
    }
  })

  it("the POST's own refusal (cross-site, no CSRF token) carries none, and the GET's answer does", async () => {
    const { send } = setup()
    const post = await send("/auth/api/mixed", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
    expect(post.status).toBe(403)
    expect(post.headers.get("access-control-allow-origin")).toBeNull()
    const get = await send("/auth/api/mixed")
    expect(get.status).toBe(200)
    expect(get.headers.get("access-control-allow-origin")).toBe("*")
  })
})

/** One POST with a chunked body of `size` bytes, written in 64 KiB pieces; the answer, or "reset". */
function chunkedPost(port: number, target: string, size: number): Promise<{ status: number; head: string } | "reset"> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1")
    const chunks: Buffer[] = []
    let done = false
    const finish = (value: { status: number; head: string } | "reset") => {
      if (done) return
      done = true
      socket.destroy()
      resolve(value)
    }
    socket.setTimeout(10_000, () => finish("reset"))
    socket.on("data", (c) => chunks.push(c))
    socket.on("error", () => {
      const text = Buffer.concat(chunks).toString("latin1")
      finish(text ? { status: Number(text.split(" ")[1]), head: text.split("\r\n\r\n")[0]!.toLowerCase() } : "reset")
    })
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("latin1")
      finish(text ? { status: Number(text.split(" ")[1]), head: text.split("\r\n\r\n")[0]!.toLowerCase() } : "reset")
    })
    socket.on("connect", async () => {
      socket.write(`POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${SPA}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`)
      const piece = Buffer.alloc(64 * 1024, "x")
      for (let sent = 0; sent < size && !socket.destroyed; sent += piece.length) {
        if (!socket.write(`${piece.length.toString(16)}\r\n`) || !socket.write(piece) || !socket.write("\r\n")) await new Promise((r) => socket.once("drain", r).once("close", r))
      }
      if (!socket.destroyed) socket.write("0\r\n\r\n")
    })
  })
}

describe("core's Node path answers these refusals with the Web path's headers", () => {
  const cases: Array<[string, string, string[], string]> = [
    ["cors 400", "/auth/api/token", ["Content-Type: application/json", "Content-Length: 5"], "{nope"],
    ["cors 400 encoded", "/auth/api//%74oken/", ["Content-Type: application/json", "Content-Length: 5"], "{nope"],
    ["plain 400", "/auth/api/plain", ["Content-Type: application/json", "Content-Length: 5"], "{nope"],
    ["look-alike 400", "/authx/api/token", ["Content-Type: application/json", "Content-Length: 5"], "{nope"],
    ["core action 400", "/auth/callback/credentials", ["Content-Type: application/json", "Content-Length: 5"], "{nope"],
    ["encoded id 400", "/auth/api%2Ftoken", ["Content-Type: application/json", "Content-Length: 5"], "{nope"],
  ]

  it.each(cases)("%s", async (_label, target, lines, body) => {
    const { config, send } = setup()
    const port = await serve(config)
    const web = await send(target, { method: "POST", headers: { "content-type": "application/json" }, body })
    // (rawRequest writes no body: this one is written by hand.)
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1")
      const chunks: Buffer[] = []
      socket.on("data", (c) => chunks.push(c))
      socket.on("error", reject)
      socket.on("end", () => resolve(Buffer.concat(chunks).toString("latin1")))
      socket.on("connect", () => socket.write([`POST ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, `Origin: ${SPA}`, ...lines, "Connection: close", "", body].join("\r\n")))
    })
    const status = Number(raw.split(" ")[1])
    const head = raw.split("\r\n\r\n")[0]!.toLowerCase()
    expect(status).toBe(web.status)
    const acao = /\r\naccess-control-allow-origin: \*/.test(head)
    expect(acao).toBe(web.headers.get("access-control-allow-origin") === "*")
    expect(/\r\naccess-control-expose-headers:/.test(head)).toBe(web.headers.get("access-control-expose-headers") !== null)
    expect(head).not.toContain("access-control-allow-credentials")
    expect(head).not.toContain("set-cookie")
    expect(raw).not.toMatch(/\bat .*\(|node_modules/)
  })

  it("a 405 of a cors path and of a non-cors path, as the Web path answers them", async () => {
    const { config, send } = setup()
    const port = await serve(config)
    for (const target of ["/auth/api/token", "/auth/api/plain", "/auth/api/pla%69n"]) {
      const web = await send(target, { method: "PUT" })
      const node = await rawRequest(port, target, [`Host: 127.0.0.1:${port}`, `Origin: ${SPA}`, "Content-Length: 0"], "PUT")
      expect(node.status, target).toBe(405)
      expect(node.headers["access-control-allow-origin"], target).toBe(web.headers.get("access-control-allow-origin") ?? undefined)
      expect(node.headers["access-control-allow-credentials"]).toBeUndefined()
    }
  })

  it("a chunked body over 1 MiB: a 413 with the CORS headers at a cors path, without at a plain one (or a reset) — never a 5xx", async () => {
    const { config } = setup()
    const port = await serve(config)
    const cors = await chunkedPost(port, "/auth/api/token", MiB + 256 * 1024)
    if (cors !== "reset") {
      expect(cors.status).toBe(413)
      expect(cors.head).toContain("\r\naccess-control-allow-origin: *")
      expect(cors.head).not.toContain("access-control-allow-credentials")
      expect(cors.head).not.toContain("set-cookie")
    }
    const plain = await chunkedPost(port, "/auth/api/plain", MiB + 256 * 1024)
    if (plain !== "reset") {
      expect(plain.status).toBe(413)
      expect(plain.head).not.toContain("access-control-allow-origin")
    }
    // Still serving.
    expect((await rawRequest(port, "/auth/csrf", [`Host: 127.0.0.1:${port}`])).status).toBe(200)
  })
})
