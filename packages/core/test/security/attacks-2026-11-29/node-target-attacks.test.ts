/**
 * Attack on core's Node path URL building (`prepare` and `PLAIN_TARGET` in
 * `lib/http/node.ts`, 2026-11-29): a target matching PLAIN_TARGET is appended to the origin
 * (one URL parse) instead of being resolved on a placeholder first. The invariants: the URL's
 * host is always the origin's, and the URL is the one resolving gives. Attacked in-process
 * (every ASCII byte, generated targets, several origin shapes) and through a real socket
 * (absolute-form and `//host` targets, backslashes, encoded dots and slashes, tabs,
 * non-ASCII bytes, `#`, trailing `?`): answers are 4xx or normal, never a 500 with a stack;
 * no Location names another host; the session check and a credentials sign-in still work on
 * odd-but-valid targets.
 */
import type { Server } from "node:http"
import { connect } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { prepare, type NodeRequest } from "../../../src/lib/http/node.js"
import { ada, captureLogger, credentialsConfig } from "../../helpers.js"
import { nodeServer } from "../../raw-http.js"

/** The definition: the target resolved on a placeholder host, its path and query on the origin. */
function resolved(origin: string, target: string): string | undefined {
  try {
    const { pathname, search } = new URL(target, "http://target.invalid")
    return new URL(`${origin}${pathname}${search}`).href
  } catch {
    return undefined
  }
}

function preparedUrl(origin: string, target: string): string | undefined {
  const request: NodeRequest = { method: "GET", origin, target, headers: {} }
  const prepared = prepare(request, origin, "GET")
  return "web" in prepared ? prepared.web.url : undefined
}

/** Origins as `originFromHeaders` writes them (`URL#origin`): no path, no trailing slash. */
const ORIGINS = ["https://app.example", "http://127.0.0.1:3000", "http://[::1]:8080", "https://xn--bcher-kva.example", "https://app.example:8443"]

describe("prepare: the fast path's URL is the resolved one", () => {
  it("for '/' followed by every single ASCII byte, alone, before a path and before a query", () => {
    for (const origin of ORIGINS) {
      for (let c = 0; c < 128; c++) {
        const ch = String.fromCharCode(c)
        for (const target of [`/${ch}`, `/${ch}x`, `/a${ch}`, `/a/${ch}/b`, `/a?${ch}`, `/a?x=${ch}`, `/${ch}${ch}evil.example/x`, `/a${ch}?`]) {
          expect(preparedUrl(origin, target), `${origin} ${JSON.stringify(target)}`).toBe(resolved(origin, target))
        }
      }
    }
  })

  it("for generated targets of dots, slashes, encodings, quotes and query marks", () => {
    const pieces = ["/", "/", ".", "..", "%2e", "%2E", "%2f", "%2F", "%5c", "%5C", "%00", "%", "?", "??", "'", '"', "<", ">", "`", "{", "}", "|", "^", "@", ":", ";", "=", "&", "[", "]", "~", "$", "a", "evil.example", "\u007f"]
    let seed = 29112026
    const pick = () => pieces[(seed = (seed * 1103515245 + 12345) % 2147483648) % pieces.length]!
    for (let i = 0; i < 6000; i++) {
      const origin = ORIGINS[i % ORIGINS.length]!
      const target = `/${Array.from({ length: 1 + (i % 9) }, pick).join("")}`
      const url = preparedUrl(origin, target)
      expect(url, `${origin} ${JSON.stringify(target)}`).toBe(resolved(origin, target))
      if (url) expect(new URL(url).host, JSON.stringify(target)).toBe(new URL(origin).host)
    }
  })

  it("never carries the target's host, whatever shape it takes", () => {
    const hostile = ["//evil.example/x", "/\\evil.example/x", "http://evil.example/x", "https://evil.example", "/..//evil.example/x", "/.%2e//evil.example", "/%2f%2fevil.example/x", "/%5c%5cevil.example", "///evil.example", "/\t/evil.example", "/\n//evil.example", "\\\\evil.example", "/./\\evil.example", "/@evil.example", "/:@evil.example", "evil.example", "?//evil.example"]
    for (const origin of ORIGINS) {
      for (const target of hostile) {
        const url = preparedUrl(origin, target)
        if (url) expect(new URL(url).host, `${origin} ${JSON.stringify(target)}`).toBe(new URL(origin).host)
      }
    }
  })

  it("keeps no fragment and no empty query", () => {
    expect(preparedUrl("https://app.example", "/auth/session#frag")).toBe("https://app.example/auth/session")
    expect(preparedUrl("https://app.example", "/auth/session?")).toBe("https://app.example/auth/session")
    expect(preparedUrl("https://app.example", "/auth/session?#")).toBe("https://app.example/auth/session")
  })

  // Found by the attack pass of 2026-11-29 and fixed: the short way equals resolving only on a
  // bare origin (`scheme://host[:port]`). Given an origin with a path or a trailing slash (an
  // integration passing its own string), a target's dot segments climbed out of that path; the
  // host never changed. `prepare` now takes the short way only for a bare origin.
  it("for an origin given with a path or a trailing slash, too", () => {
    for (const origin of ["https://app.example/", "https://app.example/base"]) {
      for (const target of ["/../x", "/%2e%2e/x", "/a/../../x", "/.."]) {
        expect(preparedUrl(origin, target), `${origin} ${target}`).toBe(resolved(origin, target))
      }
    }
  })
})

// ---------------------------------------------------------------------------------------
// Through a real socket.

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

/** The credentials config with a captured logger (refusals warn; the test reads the answers). */
const quiet = () => credentialsConfig({ logger: captureLogger().logger })

const serve = (config: AuthConfig) => nodeServer(config, servers)

interface Raw {
  status: number
  headers: Record<string, string[]>
  body: string
}

/** One HTTP/1.1 request written byte for byte (the target as given, in latin1 or UTF-8), read to the close. */
function raw(port: number, method: string, target: string | Buffer, headerLines: string[], body = ""): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    const chunks: Buffer[] = []
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${method} ${String(target)}`)))
    socket.on("data", (chunk) => chunks.push(chunk))
    socket.on("error", reject)
    socket.on("end", () => {
      socket.end()
      const text = Buffer.concat(chunks).toString("latin1")
      const split = text.indexOf("\r\n\r\n")
      const [statusLine = "", ...lines] = (split === -1 ? text : text.slice(0, split)).split("\r\n")
      const headers: Record<string, string[]> = {}
      for (const line of lines) {
        const colon = line.indexOf(":")
        if (colon > 0) (headers[line.slice(0, colon).trim().toLowerCase()] ??= []).push(line.slice(colon + 1).trim())
      }
      resolve({ status: Number(statusLine.split(" ")[1] ?? 0), headers, body: split === -1 ? "" : text.slice(split + 4) })
    })
    socket.on("connect", () => {
      const head = Buffer.concat([Buffer.from(`${method} `), typeof target === "string" ? Buffer.from(target, "latin1") : target, Buffer.from(` HTTP/1.1\r\n${[...headerLines, "Connection: close", ...(body ? [`Content-Length: ${Buffer.byteLength(body)}`] : [])].join("\r\n")}\r\n\r\n`)])
      socket.write(Buffer.concat([head, Buffer.from(body)]))
    })
  })
}

/** Every Location and URL-looking header value of an answer names no host but the server's. */
function namesOnlyServer(answer: Raw, port: number, label: string): void {
  for (const location of answer.headers.location ?? []) {
    const url = new URL(location, `http://127.0.0.1:${port}`)
    expect(url.host, `${label}: Location ${location}`).toBe(`127.0.0.1:${port}`)
  }
  expect(answer.body, label).not.toMatch(/evil\.example/i)
}

function noStack(answer: Raw, label: string): void {
  expect(answer.status, label).toBeGreaterThanOrEqual(200)
  expect(answer.status, label).toBeLessThan(500)
  expect(answer.body, label).not.toMatch(/\n\s+at .+\(.*:\d+:\d+\)/)
}

describe("odd request targets on a real socket", () => {
  it("are answered 2xx–4xx without a stack, and no redirect names another host", async () => {
    const port = await serve(quiet())
    const host = `Host: 127.0.0.1:${port}`
    const targets: (string | Buffer)[] = [
      "http://evil.example/auth/session",
      "https://evil.example/auth/signin",
      "//evil.example/auth/session",
      "//evil.example/auth/signin",
      "/\\evil.example/auth/signin",
      "/\\\\evil.example/auth/session",
      "/auth/%2e%2e/auth/session",
      "/auth/%2E%2E//evil.example/auth/signin",
      "/auth/..%2f..%2fevil.example",
      "/auth/%2f%2fevil.example",
      "/auth/%5c%5cevil.example",
      "/auth/session#frag",
      "/auth/session?",
      "/auth/session??",
      "/auth/signin?callbackUrl=//evil.example",
      "/auth/signin?callbackUrl=%2F%2Fevil.example",
      "/auth/signin?callbackUrl=/\\evil.example",
      "/auth/signin?callbackUrl=http://evil.example/",
      "/auth/signin/credentials?callbackUrl=https:%2F%2Fevil.example",
      "/auth/signout?callbackUrl=//evil.example",
      "/auth/error?error=%0d%0aLocation:%20http://evil.example",
      "/auth/\u00e9",
      Buffer.from("/auth/s\u00e9ance", "utf8"),
      Buffer.from([0x2f, 0x61, 0x75, 0x74, 0x68, 0x2f, 0xff, 0xfe]),
      "/auth/%00",
      "/auth/%zz",
      "/auth/session;x=1",
      "*",
      "/auth/" + "a".repeat(6000),
    ]
    for (const target of targets) {
      for (const method of ["GET", "POST"]) {
        const label = `${method} ${String(target).slice(0, 80)}`
        const answer = await raw(port, method, target, [host])
        noStack(answer, label)
        namesOnlyServer(answer, port, label)
      }
    }
  })

  it("a tab, a raw '#' or a control character in the request line is Node's or core's 4xx, never a 500", async () => {
    const port = await serve(quiet())
    for (const target of ["/auth/\tsession", "/auth/ses\u0001sion", "/auth/ses\u007fsion", "/auth/session\u0000"]) {
      const answer = await raw(port, "GET", target, [`Host: 127.0.0.1:${port}`])
      expect(answer.status, JSON.stringify(target)).toBeGreaterThanOrEqual(400)
      expect(answer.status, JSON.stringify(target)).toBeLessThan(500)
    }
    // The server still answers afterwards.
    expect((await raw(port, "GET", "/auth/session", [`Host: 127.0.0.1:${port}`])).status).toBe(200)
  })

  it("the session check answers on odd-but-valid spellings of its path", async () => {
    const port = await serve(quiet())
    for (const target of ["/auth/session", "/auth/session?", "/auth/session?x=1", "/auth/./session", "/auth/x/../session", "/auth/%2e/session", "/auth/session#x", "/x/../auth/session?y=%20"]) {
      const answer = await raw(port, "GET", target, [`Host: 127.0.0.1:${port}`])
      expect(answer.status, target).toBe(200)
      expect(answer.body.trim(), target).toBe("null")
    }
  })

  it("a credentials sign-in works through odd-but-valid targets, and its redirect stays on the server", async () => {
    const port = await serve(quiet())
    const host = `Host: 127.0.0.1:${port}`
    for (const target of ["/auth/callback/credentials", "/auth/callback/credentials?", "/auth/./callback/credentials", "/auth/x/%2e%2e/callback/credentials?y=1", "/auth/callback/credentials#frag"]) {
      const csrf = await raw(port, "GET", "/auth/./csrf?", [host])
      expect(csrf.status, target).toBe(200)
      const token = (JSON.parse(csrf.body) as { csrfToken: string }).csrfToken
      const cookie = (csrf.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]).join("; ")
      const form = new URLSearchParams({ ...ada, csrfToken: token, callbackUrl: "//evil.example/after" }).toString()
      const signIn = await raw(port, "POST", target, [host, `Cookie: ${cookie}`, "Content-Type: application/x-www-form-urlencoded"], form)
      expect(signIn.status, target).toBe(302)
      namesOnlyServer(signIn, port, target)
      const session = (signIn.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]).find((c) => c.startsWith("authjs.session-token="))
      expect(session, target).toBeDefined()
      const check = await raw(port, "GET", "/auth/session?", [host, `Cookie: ${session}`])
      expect(check.status, target).toBe(200)
      expect((JSON.parse(check.body) as { user?: { email?: string } }).user?.email, target).toBe("ada@example.com")
    }
  })
})
