/**
 * Core's own real-server transport for tests: a `node:http` server that turns each request
 * into a Web `Request`, hands it to `Auth()` and writes the `Response` back — what any
 * fetch-style host (Bun, Deno, an edge runtime, a Node adapter) does, with no framework and
 * no integration package in between. Flows that must hold on a real socket (cookies through
 * `Set-Cookie` headers, streamed bodies, forged `Host` headers) run through it.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Readable } from "node:stream"
import { Auth, type AuthConfig } from "@portcullis/core"
import type { Transport } from "./helpers.js"

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  origin: string
  port: number
  server: Server
  /** `fetch` without following redirects, as the `Browser` expects. */
  transport: Transport
  close(): Promise<void>
}

/** Headers that describe this connection, not the request. */
const connectionHeaders = new Set(["host", "connection", "keep-alive", "transfer-encoding", "upgrade"])

/**
 * The Web `Request` for a Node request: the origin from the `Host` header, and only the path
 * and query of the request target (an absolute-form target names no host of its own). A
 * `Host` no URL can be built from throws, and the listener answers 400.
 */
export function toWebRequest(req: IncomingMessage): Request {
  const { pathname, search } = new URL(req.url ?? "/", "http://target.invalid")
  const url = new URL(`http://${req.headers.host ?? ""}${pathname}${search}`)
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || connectionHeaders.has(name)) continue
    if (Array.isArray(value)) for (const v of value) headers.append(name, v)
    else headers.set(name, value)
  }
  const method = req.method ?? "GET"
  const init: RequestInit & { duplex?: "half" } = { method, headers }
  if (method !== "GET" && method !== "HEAD") {
    init.body = Readable.toWeb(req) as ReadableStream
    init.duplex = "half"
  }
  return new Request(url, init)
}

/** Writes a Web `Response` to Node's response, one `Set-Cookie` line per cookie. */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value)
  const cookies = response.headers.getSetCookie()
  if (cookies.length) res.setHeader("set-cookie", cookies)
  res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined)
}

/** A request listener that answers every request with `Auth(request, config)`. */
export function authListener(config: AuthConfig): RequestListener {
  return (req, res) => {
    let request: Request
    try {
      request = toWebRequest(req)
    } catch {
      res.statusCode = 400
      res.end("Bad Host")
      return
    }
    Auth(request, config)
      .then((response) => sendResponse(res, response))
      .catch((error: unknown) => {
        res.statusCode = 500
        res.end(String(error))
      })
  }
}

/** Starts a real HTTP server on a loopback port answering with `Auth(request, config)`. */
export async function httpServer(config: AuthConfig): Promise<TestServer> {
  const server = createServer(authListener(config))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    server,
    transport: (request) => fetch(request, { redirect: "manual" }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
