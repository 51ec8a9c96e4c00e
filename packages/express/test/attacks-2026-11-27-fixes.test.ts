/**
 * Review of the 2026-11-27 Express fixes (TRACE as core's 405; a parsed body that cannot be
 * re-encoded as core's 400), over a real socket. The attacker looks for other ways to make
 * `toWebRequest` throw something that is not `InvalidRequest` (Express's 500 page with a
 * stack) and for other methods Node parses but a Web `Request` may not carry.
 */
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import express from "express"
import type { AuthConfig } from "@portcullis/core"
import { Browser, credentialsConfig } from "../../core/test/helpers.js"
import { expressServer } from "./support.js"

const errors: string[] = []
const config: AuthConfig = credentialsConfig({
  logger: { warn: () => {}, debug: () => {}, error: (e: Error) => void errors.push(`${e.name}: ${e.message}`) },
  session: { strategy: "jwt" },
  rateLimit: { perAddress: { credentials: false }, perIdentifier: { credentials: false } },
})

let plain: Awaited<ReturnType<typeof expressServer>>
let jsonFirst: Awaited<ReturnType<typeof expressServer>>
beforeAll(async () => {
  plain = await expressServer(config)
  // The common set-up: express.json() with its defaults, mounted app-wide before Portcullis.
  jsonFirst = await expressServer(config, (app) => app.use(express.json()))
})
afterAll(async () => {
  await plain.close()
  await jsonFirst.close()
})

/** Sends `text` as-is on a fresh socket; resolves with the whole answer once the server closes. */
function rawExchange(origin: string, text: string): Promise<{ status: number; response: string }> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let received = ""
    socket.setEncoding("utf8")
    socket.on("data", (chunk: string) => (received += chunk))
    socket.on("error", reject)
    socket.on("close", () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0), response: received }))
    socket.write(text)
  })
}

function withoutStack(text: string) {
  expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/)
  expect(text).not.toContain("RangeError")
  expect(text).not.toContain("node_modules")
}

describe("methods Node parses that the fix's list may miss", () => {
  it("TRACK and lower-case trace (Fetch-forbidden) never reach Express's 500 page: Node's 400 or core's 405", async () => {
    const host = new URL(plain.origin).host
    for (const method of ["TRACK", "trace", "Trace"]) {
      for (const path of ["/auth/session", "/auth/signin", "/auth/callback/credentials"]) {
        const { status, response } = await rawExchange(plain.origin, `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
        expect([400, 405], `${method} ${path}`).toContain(status)
        withoutStack(response)
      }
    }
  })

  it("WebDAV, SSDP and other tokens Node accepts (PROPFIND, M-SEARCH, QUERY, PURGE, LINK, SOURCE…) are never a 500", async () => {
    const host = new URL(plain.origin).host
    for (const method of ["PROPFIND", "M-SEARCH", "QUERY", "PURGE", "LINK", "UNLINK", "SOURCE", "MKCALENDAR", "SUBSCRIBE", "PUT", "DELETE", "OPTIONS", "PATCH"]) {
      const { status, response } = await rawExchange(plain.origin, `${method} /auth/session HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`)
      expect(status, method).toBeGreaterThanOrEqual(400)
      expect(status, method).toBeLessThan(500)
      withoutStack(response)
    }
  })

  it("a GET (200) and a HEAD (core's 405) that carry a body are answered without a 500: the body is never put on the Request", async () => {
    const host = new URL(plain.origin).host
    for (const [method, expected] of [["GET", 200], ["HEAD", 405]] as const) {
      const { status, response } = await rawExchange(plain.origin, `${method} /auth/session HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 9\r\nConnection: close\r\n\r\n{"a":[1]}`)
      expect(status, method).toBe(expected)
      withoutStack(response)
    }
  })
})

describe("a body express.json() parsed, re-encoded by the integration", () => {
  async function postNested(origin: string, contentType: string) {
    const browser = new Browser((request) => fetch(request, { redirect: "manual" }), origin)
    const csrfToken = await browser.csrfToken()
    const depth = 20_000
    return browser.request("/auth/callback/credentials", {
      method: "POST",
      headers: { "content-type": contentType },
      body: `{"csrfToken":${JSON.stringify(csrfToken)},"username":${"[".repeat(depth)}${"]".repeat(depth)},"password":"x"}`,
    })
  }

  it("deep nesting under a plain application/json type is core's 400 (the fix)", async () => {
    errors.length = 0
    const response = await postNested(jsonFirst.origin, "application/json")
    expect(response.status).toBe(400)
    withoutStack(await response.text())
  })

  // Found by this review (a 500 with Express's stack page): `reencode` chose the form branch
  // when the raw Content-Type merely contained the form type, and `String()` of a deep array
  // overflowed outside its try. It now reads the type's essence and catches the whole encoding.
  it("a JSON type whose parameter names the form type does not turn deep nesting into a 500 with a stack", async () => {
    errors.length = 0
    const response = await postNested(jsonFirst.origin, `application/json; x="application/x-www-form-urlencoded"`)
    const text = await response.text()
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(response.status).toBeLessThan(500)
    withoutStack(text)
  })

  it("the process keeps serving afterwards", async () => {
    const response = await fetch(`${jsonFirst.origin}/auth/session`)
    expect(response.status).toBe(200)
  })
})
