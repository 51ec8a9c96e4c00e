/**
 * Attack on "a NodeRequest carries rawHeaders, and two Host headers are a 400 on every Node
 * request" (core's http/node.ts `#answer` / `hostCount`, Express's `nodeRequest`). Node keeps
 * the first `Host` in `req.headers`; a proxy in front may have routed by another one, so core
 * must see every spelling of a second Host in `rawHeaders`: other cases, three of them, an
 * empty one, one beside a trusted `X-Forwarded-Host`. What Node's parser refuses itself
 * (`Host ` or `Hos t` as a name, an obs-fold) must stay a 400 and not reach the app. And
 * `runtime.handleNode` called by an app with a hostile `rawHeaders` array (odd length, holes,
 * non-strings, a million entries) answers a 400 or normally — never a 500, a stack, a crash.
 * `getSession(req, config)` on an app's page route reads no `rawHeaders`: checked that it
 * neither crashes nor answers for the second Host.
 */
import express from "express"
import type { Server } from "node:http"
import { connect, type AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { createAuth } from "@portcullis/core"
import type { NodeRequest } from "@portcullis/core/integration"
import { InvalidRequest } from "@portcullis/core/errors"
import { ExpressAuth, getSession } from "@portcullis/express"
import { captureLogger, credentialsConfig } from "../../core/test/helpers.js"
import { rawRequest } from "../../core/test/raw-http.js"

const servers: Server[] = []
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    server.close()
  }
})

const TWO_HOSTS = { error: "InvalidRequest", message: "The request has more than one Host header" }

async function app(options: { trustProxy?: boolean } = {}) {
  const log = captureLogger()
  const config = credentialsConfig({ logger: log.logger })
  const app = express()
  if (options.trustProxy) app.set("trust proxy", "loopback")
  app.use("/auth", ExpressAuth(config))
  app.get("/page", async (req, res) => {
    try {
      res.json({ session: await getSession(req as never, config), host: req.headers.host })
    } catch (error) {
      res.status(error instanceof InvalidRequest ? 400 : 500).json({ error: (error as Error).name })
    }
  })
  const server = app.listen(0, "127.0.0.1")
  servers.push(server)
  await new Promise((resolve) => server.once("listening", resolve))
  return { port: (server.address() as AddressInfo).port, log }
}

/** Exactly these bytes on a socket; the status line's code (0 when the server sent nothing). */
function rawBytes(port: number, text: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1")
    const chunks: Buffer[] = []
    const done = () => {
      const out = Buffer.concat(chunks).toString("latin1")
      resolve({ status: Number(out.split(" ")[1] ?? 0) || 0, text: out })
    }
    socket.setTimeout(5_000, () => socket.destroy())
    socket.on("data", (c) => chunks.push(c))
    socket.on("error", done)
    socket.on("close", done)
    socket.on("connect", () => socket.write(text))
  })
}

const noStack = (body: string) => expect(body).not.toMatch(/\bat .*\(|node_modules|\.ts:\d/)

describe("a second Host in any spelling is a 400 through ExpressAuth", () => {
  const spellings: Array<[string, string[]]> = [
    ["HOST and host", ["HOST: 127.0.0.1:PORT", "host: evil.example"]],
    ["Host and hOsT", ["Host: 127.0.0.1:PORT", "hOsT: evil.example"]],
    ["three Hosts", ["Host: 127.0.0.1:PORT", "Host: evil.example", "Host: other.example"]],
    ["an empty second Host", ["Host: 127.0.0.1:PORT", "Host:"]],
    ["the same Host twice", ["Host: 127.0.0.1:PORT", "Host: 127.0.0.1:PORT"]],
    ["a second Host with a tab", ["Host: 127.0.0.1:PORT", "Host:\tevil.example"]],
    ["a second Host apart from the first", ["Host: 127.0.0.1:PORT", "Accept: */*", "HoSt: evil.example"]],
  ]

  it.each(spellings)("%s: on the session check", async (_label, lines) => {
    const { port } = await app()
    const answer = await rawRequest(port, "/auth/session", lines.map((l) => l.replace("PORT", String(port))))
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual(TWO_HOSTS)
  })

  it.each(spellings)("%s: on a POST to a core action", async (_label, lines) => {
    const { port } = await app()
    const answer = await rawRequest(port, "/auth/callback/credentials", [...lines.map((l) => l.replace("PORT", String(port))), "Content-Length: 0"], "POST")
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual(TWO_HOSTS)
    expect(answer.headers["set-cookie"]).toBeUndefined()
  })

  it("an empty first Host and a real second: a 400 too (Express's origin is refused first: no Host), no cookie", async () => {
    const { port } = await app()
    for (const [target, method] of [["/auth/session", "GET"], ["/auth/callback/credentials", "POST"]] as const) {
      const answer = await rawRequest(port, target, ["Host:", `Host: 127.0.0.1:${port}`, "Content-Length: 0"], method)
      expect(answer.status, target).toBe(400)
      expect(JSON.parse(answer.body).error, target).toBe("InvalidRequest")
      expect(answer.headers["set-cookie"], target).toBeUndefined()
    }
  })

  it("one Host with a trusted X-Forwarded-Host is one Host (answered), and two Hosts with it still a 400", async () => {
    const { port } = await app({ trustProxy: true })
    const one = await rawRequest(port, "/auth/session", [`Host: 127.0.0.1:${port}`, "X-Forwarded-Host: 127.0.0.1:" + port, "X-Forwarded-Proto: http"])
    expect(one.status).toBe(200)
    const two = await rawRequest(port, "/auth/session", [`Host: 127.0.0.1:${port}`, "Host: evil.example", "X-Forwarded-Host: 127.0.0.1:" + port])
    expect(two.status).toBe(400)
    expect(JSON.parse(two.body)).toEqual(TWO_HOSTS)
  })

  it("a single Host in odd case, with a tab or surrounding spaces is answered normally", async () => {
    const { port } = await app()
    for (const line of [`HOST: 127.0.0.1:${port}`, `host:127.0.0.1:${port}`, `Host:\t127.0.0.1:${port}`, `hOsT:   127.0.0.1:${port}   `]) {
      const answer = await rawRequest(port, "/auth/session", [line])
      expect(answer.status, line).toBe(200)
    }
  })

  it("a header named like Host but not Host (X-Host, Hosts, Host-Name) is not counted", async () => {
    const { port } = await app()
    const answer = await rawRequest(port, "/auth/session", [`Host: 127.0.0.1:${port}`, "X-Host: evil.example", "Hosts: evil.example", "Host-Name: evil.example"])
    expect(answer.status).toBe(200)
  })
})

describe("what Node's own parser refuses never reaches ExpressAuth", () => {
  it.each([
    ["a space before the colon", "Host : evil.example"],
    ["a space inside the name", "Hos t: evil.example"],
    ["an obs-fold continuing the Host", "Host: 127.0.0.1:PORT\r\n evil.example"],
    ["an obs-fold line after Host", "Host: 127.0.0.1:PORT\r\n\tHost: evil.example"],
  ])("%s: a 400 (or a closed connection), never a 5xx, the server still answering", async (_label, line) => {
    const { port, log } = await app()
    const answer = await rawBytes(port, `GET /auth/session HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${line.replace("PORT", String(port))}\r\nConnection: close\r\n\r\n`)
    expect([0, 400]).toContain(answer.status)
    noStack(answer.text)
    expect(log.lines.join("\n")).not.toMatch(/TypeError/)
    expect((await rawRequest(port, "/auth/session", [`Host: 127.0.0.1:${port}`])).status).toBe(200)
  })
})

describe("getSession(req, config) on an app's page route under hostile Hosts", () => {
  // getSession reads only the cookies and answers no one: no rawHeaders check there. What must
  // hold is that it neither crashes nor takes the second Host for the request's origin.
  it("two Hosts: answered from the first (the one Node and Express use) or refused as a 400 — never a 500", async () => {
    const { port } = await app()
    const answer = await rawRequest(port, "/page", [`Host: 127.0.0.1:${port}`, "Host: evil.example"])
    expect([200, 400]).toContain(answer.status)
    if (answer.status === 200) expect(JSON.parse(answer.body)).toEqual({ session: null, host: `127.0.0.1:${port}` })
    noStack(answer.body)
  })

  it("a malformed Host is its InvalidRequest (the app's 400), never a 500", async () => {
    const { port } = await app()
    for (const host of ["evil.example/path", "user@evil.example", "127.0.0.1:99999", "[::1"]) {
      const answer = await rawRequest(port, "/page", [`Host: ${host}`])
      expect([200, 400], host).toContain(answer.status)
      noStack(answer.body)
    }
  })

  it("one Host in odd case: the session (none) is read", async () => {
    const { port } = await app()
    const answer = await rawRequest(port, "/page", [`hOsT: 127.0.0.1:${port}`])
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body).session).toBeNull()
  })
})

describe("runtime.handleNode with a hostile rawHeaders array", () => {
  const runtime = createAuth(credentialsConfig({ logger: captureLogger().logger }))
  const request = (rawHeaders: unknown): NodeRequest => ({
    method: "GET",
    origin: { host: "localhost:3000", protocol: "http", trustForwarded: false },
    target: "/auth/csrf",
    headers: { host: "localhost:3000" },
    rawHeaders: rawHeaders as string[],
  })
  const ask = async (rawHeaders: unknown) => {
    try {
      const answer = await runtime.handleNode(request(rawHeaders))
      return { status: answer.status, body: String(answer.body ?? "") }
    } catch (error) {
      return { status: -1, body: String((error as Error)?.stack ?? error) }
    }
  }

  it("an empty array, one Host pair, or a Host value in a name's place: answered normally", async () => {
    for (const raw of [[], ["Host", "localhost:3000"], ["Host", "localhost:3000", "X-Note", "Host"]]) {
      expect((await ask(raw)).status, JSON.stringify(raw)).toBe(200)
    }
  })

  it("two Host names in an odd-length array: a 400", async () => {
    const answer = await ask(["Host", "localhost:3000", "host"])
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual(TWO_HOSTS)
  })

  it("an odd-length array with one Host: answered normally", async () => {
    expect((await ask(["Host", "localhost:3000", "Accept"])).status).toBe(200)
    expect((await ask(["Host"])).status).toBe(200)
  })

  it("a million entries with Hosts at both ends: a 400, quickly", async () => {
    const raw: string[] = ["Host", "localhost:3000"]
    for (let i = 0; i < 500_000; i++) raw.push("X-Pad", "1")
    raw.push("HOST", "evil.example")
    const started = performance.now()
    const answer = await ask(raw)
    expect(answer.status).toBe(400)
    expect(performance.now() - started).toBeLessThan(1_000)
  })

  it("numbers, objects and arrays in a name's place: a 400 or a normal answer, never a throw", async () => {
    for (const raw of [[1, 2], [{}, "x"], [["Host"], "evil.example", "Host", "localhost:3000"], [4444, "x"], [{ length: 4, toLowerCase: () => "host" }, "a", "Host", "b"]]) {
      const answer = await ask(raw)
      expect([200, 400], JSON.stringify(raw)).toContain(answer.status)
      noStack(answer.body)
    }
  })

  // Found by the attack pass of 2026-11-29 and fixed: `hostCount` read `raw[i]!.length`, which
  // threw for a null or undefined entry (or a hole in a sparse array) an app's own array may
  // hold, so `handleNode` rejected instead of answering. Entries that are not strings are now
  // skipped.
  it("null, undefined or a hole in a name's place: a 400 or a normal answer, never a throw", async () => {
    for (const raw of [[null, "x"], [undefined, "x"], ["Host", "localhost:3000", null, "x"], new Array(4)]) {
      const answer = await ask(raw)
      expect([200, 400], String(raw)).toContain(answer.status)
    }
  })

  it("rawHeaders that is not an array at all (a string): a normal answer, never a throw", async () => {
    expect([200, 400]).toContain((await ask("Host: a\r\nHost: b")).status)
  })
})
