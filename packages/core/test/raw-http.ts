import { createServer, request as httpRequest, type Server } from "node:http"
import { connect, type AddressInfo } from "node:net"
import type { AuthConfig } from "@portcullis/core"
import { handleNodeRequest } from "@portcullis/core/integration"

/**
 * A node:http server on a free loopback port that answers every request through core's Node
 * path (`handleNodeRequest`), kept in `servers` for the test's cleanup; its port.
 */
export async function nodeServer(config: AuthConfig, servers: Server[]): Promise<number> {
  const server = createServer((req, res) => {
    handleNodeRequest(req, res, config).catch((error: unknown) => res.destroy(error as Error))
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return (server.address() as AddressInfo).port
}

/** An HTTP/1.1 answer as it came off the socket. */
export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * Sends one HTTP/1.1 request with exactly the given header lines (`fetch` and `http.request`
 * refuse or rewrite a hostile `Host`; an attacker's client does not) and reads the answer
 * until the server closes the connection.
 */
export function rawRequest(port: number, target: string, headerLines: string[], method = "GET"): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    const chunks: Buffer[] = []
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${method} ${target}`)))
    socket.on("data", (chunk) => chunks.push(chunk))
    socket.on("error", reject)
    socket.on("end", () => {
      socket.end()
      resolve(parse(Buffer.concat(chunks).toString("latin1")))
    })
    socket.on("connect", () => socket.write([`${method} ${target} HTTP/1.1`, ...headerLines, "Connection: close", "", ""].join("\r\n")))
  })
}

function parse(text: string): RawResponse {
  const split = text.indexOf("\r\n\r\n")
  const head = split === -1 ? text : text.slice(0, split)
  let body = split === -1 ? "" : text.slice(split + 4)
  const [statusLine = "", ...lines] = head.split("\r\n")
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    if (colon > 0) {
      const name = line.slice(0, colon).trim().toLowerCase()
      headers[name] = headers[name] === undefined ? line.slice(colon + 1).trim() : `${headers[name]}, ${line.slice(colon + 1).trim()}`
    }
  }
  if (headers["transfer-encoding"] === "chunked") body = unchunk(body)
  return { status: Number(statusLine.split(" ")[1]), headers, body }
}

function unchunk(body: string): string {
  let out = ""
  let rest = body
  for (;;) {
    const eol = rest.indexOf("\r\n")
    const size = parseInt(rest.slice(0, eol), 16)
    if (!size) return out
    out += rest.slice(eol + 2, eol + 2 + size)
    rest = rest.slice(eol + 2 + size + 2)
  }
}

/** An answer with its `Set-Cookie` lines apart. */
export interface Exchange {
  status: number
  headers: Record<string, string | string[] | undefined>
  setCookie: string[]
  body: string
}

/**
 * One request through `node:http` with the headers as given — `Host` included, which
 * `fetch` will not forge — to a server on 127.0.0.1. For attacker's steps that need a body
 * and the cookies back (a CSRF round trip under a forged host).
 */
export function exchange(port: string | number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: Number(port), method, path, headers: { ...headers, ...(body !== undefined && { "content-length": String(Buffer.byteLength(body)) }) } }, (res) => {
      const chunks: Buffer[] = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, setCookie: res.headers["set-cookie"] ?? [], body: Buffer.concat(chunks).toString("utf8") }))
    })
    req.on("error", reject)
    req.end(body)
  })
}
