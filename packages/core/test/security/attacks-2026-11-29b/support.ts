/**
 * Shared pieces for the attacks on core's Node body reader (`http/node-body.ts`): a node:http
 * server on core's Node path that counts what it handled and what it logged at error level,
 * raw sockets, an HTTP/1.1 answer reader that counts answers as they come, and a heap
 * measure after a real garbage collection.
 */
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from "node:http"
import { connect, type AddressInfo, type Socket } from "node:net"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import type { AuthConfig } from "@portcullis/core"
import { handleNodeRequest } from "@portcullis/core/integration"
import { credentialsConfig } from "../../helpers.js"

export const MiB = 1024 * 1024
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** What a server of ours saw: requests handled, promises rejected, error-level log lines, warnings, server-side sockets. */
export interface Served {
  port: number
  server: Server
  /** Requests that reached the handler (method and target), in order. */
  handled: string[]
  /** What `handleNodeRequest` rejected with (should stay empty). */
  rejected: unknown[]
  /** `logger.error` calls (a bug's stack: should stay empty). */
  errors: unknown[]
  /** `logger.warn` codes. */
  warnings: string[]
  /** The server's side of every connection. */
  sockets: Socket[]
  /** The requests as the handler got them. */
  requests: IncomingMessage[]
}

/** A logger that keeps error-level calls apart from warnings. */
export function splitLogger(errors: unknown[], warnings: string[]) {
  return {
    error: (error: Error) => void errors.push(error),
    warn: (code: string) => void warnings.push(code),
    debug: () => {},
  }
}

/**
 * A node:http server answering everything through `handleNodeRequest`; `before` runs on the
 * request first (an app's middleware). Pushed to `servers` for cleanup.
 */
export async function serve(servers: Server[], options: ServerOptions & { before?: (req: IncomingMessage, res: ServerResponse) => void; config?: Partial<AuthConfig> } = {}): Promise<Served> {
  const { before, config: extra, ...serverOptions } = options
  const served: Omit<Served, "port" | "server"> = { handled: [], rejected: [], errors: [], warnings: [], sockets: [], requests: [] }
  const config = credentialsConfig({ logger: splitLogger(served.errors, served.warnings), ...extra })
  const server = createServer(serverOptions, (req, res) => {
    served.handled.push(`${req.method} ${req.url}`)
    served.requests.push(req)
    before?.(req, res)
    handleNodeRequest(req, res, config).catch((error: unknown) => {
      served.rejected.push(error)
      res.destroy(error as Error)
    })
  })
  server.on("connection", (socket) => served.sockets.push(socket))
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { ...served, port: (server.address() as AddressInfo).port, server }
}

export async function closeAll(servers: Server[]): Promise<void> {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
}

/** A connected client socket; errors (a reset) are swallowed, the tests look at `closed`. */
export function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket))
    socket.once("error", reject)
    socket.on("error", () => {})
  })
}

/** Resolves once the socket is closed, or after `ms` with false. */
export function closed(socket: Socket, ms: number): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(true)
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    socket.once("close", () => {
      clearTimeout(timer)
      resolve(true)
    })
  })
}

/**
 * Reads HTTP/1.1 answers off `socket` as they come (framed by Content-Length or chunked),
 * so a test can wait for the nth one with a deadline. `raw` is everything received.
 */
export class Answers {
  readonly statuses: number[] = []
  readonly bodies: string[] = []
  raw = ""
  closed = false
  #buffer: Buffer = Buffer.alloc(0)
  #waiters: (() => void)[] = []

  constructor(socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.raw += chunk.toString("latin1")
      this.#buffer = Buffer.concat([this.#buffer, chunk])
      this.#parse()
    })
    socket.on("close", () => {
      this.closed = true
      this.#wake()
    })
  }

  #parse(): void {
    for (;;) {
      const end = this.#buffer.indexOf("\r\n\r\n")
      if (end < 0) return
      const head = this.#buffer.subarray(0, end).toString("latin1")
      let body: string
      let rest: Buffer
      if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
        const terminator = this.#buffer.indexOf("\r\n0\r\n\r\n", end)
        if (terminator < 0) return
        body = this.#buffer.subarray(end + 4, terminator).toString("latin1")
        rest = this.#buffer.subarray(terminator + 7)
      } else {
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
        if (this.#buffer.length < end + 4 + length) return
        body = this.#buffer.subarray(end + 4, end + 4 + length).toString("latin1")
        rest = this.#buffer.subarray(end + 4 + length)
      }
      this.statuses.push(Number(head.split(" ")[1]))
      this.bodies.push(body)
      this.#buffer = rest
      this.#wake()
    }
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake()
  }

  /** Waits until `count` answers came, the socket closed, or `ms` passed; the statuses so far. */
  async wait(count: number, ms = 10_000): Promise<number[]> {
    const deadline = Date.now() + ms
    while (this.statuses.length < count && !this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))
        this.#waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
    return [...this.statuses]
  }
}

/** The head of a POST to the credentials callback with a chunked body. */
export function chunkedHead(port: number, target = "/auth/callback/credentials", extra = ""): string {
  return `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n${extra}\r\n`
}

export const csrfGet = (port: number) => `GET /auth/csrf HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`

/** Writes `data`, waiting for the socket to drain (or close); false once the socket is gone. */
export async function write(socket: Socket, data: string | Buffer): Promise<boolean> {
  if (socket.destroyed) return false
  if (!socket.write(data)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        socket.off("drain", done)
        socket.off("close", done)
        resolve()
      }
      socket.on("drain", done)
      socket.on("close", done)
    })
  }
  return !socket.destroyed
}

/** Sends `bytes` of chunked body in HTTP chunks of `size` bytes, each written as one piece; stops early when the socket closes. The bytes sent. */
export async function pumpChunks(socket: Socket, bytes: number, size: number, extension = ""): Promise<number> {
  const one = Buffer.from(`${size.toString(16)}${extension}\r\n${"x".repeat(size)}\r\n`)
  // Up to ~256 KiB of wire per write.
  const per = Math.max(1, Math.floor((256 * 1024) / one.length))
  const block = Buffer.concat(Array.from({ length: per }, () => one))
  let sent = 0
  while (sent < bytes) {
    const n = Math.min(per, Math.ceil((bytes - sent) / size))
    if (!(await write(socket, n === per ? block : block.subarray(0, n * one.length)))) break
    sent += n * size
  }
  return sent
}

const gc = (() => {
  setFlagsFromString("--expose-gc")
  return runInNewContext("gc") as () => void
})()

/** Heap plus array buffers (Node's Buffers live outside the heap) after full collections, in bytes. */
export async function retained(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc()
    await new Promise((resolve) => setImmediate(resolve))
  }
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.arrayBuffers
}

/** Waits until the server's side of the last connection has read at least `bytes` off the wire (or `ms` passed). */
export async function serverRead(served: Served, bytes: number, ms = 20_000): Promise<number> {
  const deadline = Date.now() + ms
  const socket = served.sockets.at(-1)!
  while (socket.bytesRead < bytes && !socket.destroyed && Date.now() < deadline) await sleep(20)
  return socket.bytesRead
}

/** Collects `unhandledRejection`, `uncaughtException` and process warnings while a test runs; call `stop()` at the end. */
export function watchProcess() {
  const seen: { unhandled: unknown[]; warnings: Error[] } = { unhandled: [], warnings: [] }
  const onUnhandled = (reason: unknown) => void seen.unhandled.push(reason)
  const onWarning = (warning: Error) => void seen.warnings.push(warning)
  process.on("unhandledRejection", onUnhandled)
  process.on("uncaughtException", onUnhandled)
  process.on("warning", onWarning)
  return {
    seen,
    stop() {
      process.off("unhandledRejection", onUnhandled)
      process.off("uncaughtException", onUnhandled)
      process.off("warning", onWarning)
    },
  }
}
