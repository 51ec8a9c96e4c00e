/**
 * Attack class 3 (slow bodies) on core's Node body reader. Core sets no deadline of its own
 * on a body: what bounds a body that trickles below the limit is Node's server — its
 * requestTimeout (the whole request, 300 s by default, checked every
 * connectionsCheckingInterval, 30 s), and after core's answer the keep-alive idle timeout
 * (5 s). These tests run a server with short ones and check core does nothing wrong when
 * Node cuts: no crash, no error-level log, no rejected handler, other clients served. And
 * one stream core never reads at all: a request an app paused before handing it over.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { PassThrough } from "node:stream"
import { RequestTooLarge } from "../../../src/errors.js"
import { readNodeBody } from "../../../src/lib/http/node-body.js"
import { Answers, chunkedHead, closeAll, closed, csrfGet, MiB, open, serve, sleep, watchProcess, write } from "./support.js"

const servers: Server[] = []
afterEach(() => closeAll(servers))

const short = { requestTimeout: 1500, connectionsCheckingInterval: 100 }

describe("what bounds a slow body", () => {
  it("Node 24's defaults on a plain createServer (as raw-http's nodeServer makes): 300 s for a request, 60 s for headers, 5 s idle after an answer", () => {
    const server = createServer()
    expect(server.requestTimeout).toBe(300_000)
    expect(server.headersTimeout).toBe(60_000)
    expect(server.keepAliveTimeout).toBe(5_000)
    // No socket idle timeout while a request is being read: a trickle of one byte a minute
    // is bounded by requestTimeout only.
    expect(server.timeout).toBe(0)
  })

  it("a body trickling below the limit is cut by requestTimeout (Node's 408), core stays quiet, and 10 slow clients do not stop others being served", async () => {
    const watch = watchProcess()
    try {
      const served = await serve(servers, short)
      const slow = await Promise.all(Array.from({ length: 10 }, () => open(served.port)))
      for (const socket of slow) socket.write(chunkedHead(served.port) + "1\r\na\r\n")
      const trickle = setInterval(() => {
        for (const socket of slow) if (!socket.destroyed) socket.write("1\r\n=\r\n")
      }, 100)
      try {
        // Served meanwhile.
        const other = await open(served.port)
        const answers = new Answers(other)
        other.write(csrfGet(served.port))
        expect(await answers.wait(1, 5000)).toEqual([200])
        other.destroy()
        const cut = await Promise.all(slow.map((socket) => closed(socket, 6000)))
        expect(cut.every(Boolean)).toBe(true)
      } finally {
        clearInterval(trickle)
      }
      await sleep(100)
      expect(served.handled.filter((line) => line.startsWith("POST"))).toHaveLength(10)
      expect(served.rejected).toEqual([])
      expect(served.errors).toEqual([])
      expect(watch.seen.unhandled).toEqual([])
    } finally {
      watch.stop()
    }
  })

  it("after the 413, a body trickling on (below DISCARD_LIMIT) is still cut by requestTimeout", async () => {
    const served = await serve(servers, short)
    const socket = await open(served.port)
    const answers = new Answers(socket)
    await write(socket, chunkedHead(served.port))
    const over = Buffer.alloc(MiB + 1, "x")
    await write(socket, Buffer.concat([Buffer.from(`${over.length.toString(16)}\r\n`), over, Buffer.from("\r\n")]))
    expect(await answers.wait(1)).toEqual([413])
    const started = Date.now()
    const trickle = setInterval(() => !socket.destroyed && socket.write("1\r\nx\r\n"), 100)
    try {
      expect(await closed(socket, 6000)).toBe(true)
    } finally {
      clearInterval(trickle)
    }
    expect(Date.now() - started).toBeLessThan(6000)
    // Its 413 first. (Node then writes a raw "408 Request Timeout" on the same connection —
    // a second answer to one request; Node's doing, harmless since it closes right after.)
    expect(answers.statuses[0]).toBe(413)
    expect(served.rejected).toEqual([])
    expect(served.errors).toEqual([])
  })

  it("after the 413, a client that goes quiet mid-body is cut by the keep-alive idle timeout", async () => {
    const served = await serve(servers, { keepAliveTimeout: 500 })
    const socket = await open(served.port)
    const answers = new Answers(socket)
    await write(socket, chunkedHead(served.port))
    const over = Buffer.alloc(MiB + 1, "x")
    await write(socket, Buffer.concat([Buffer.from(`${over.length.toString(16)}\r\n`), over, Buffer.from("\r\n")]))
    expect(await answers.wait(1)).toEqual([413])
    expect(await closed(socket, 5000)).toBe(true)
    expect(served.errors).toEqual([])
  })
})

describe("a request an app paused before core reads it", () => {
  // Control: Node's own async iterator (what the reader before this change used, `for await`)
  // reads a paused request to its end.
  it("Node's async iterator reads a paused IncomingMessage", async () => {
    const server = createServer(async (req, res) => {
      req.pause()
      let body = ""
      for await (const chunk of req) body += chunk
      res.end(body)
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    const answer = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "a=1", signal: AbortSignal.timeout(5000) })
    expect(await answer.text()).toBe("a=1")
  })

  // FIXED, was a weakness (medium; a regression of this change): `readStream` attaches its 'data'
  // listener but never calls `resume()`. Adding a 'data' listener resumes a stream only when
  // `readableFlowing` is not `false`, and an app that called `req.pause()` (a middleware
  // that pauses the request while it does something async, or a `pipe()`/`unpipe()` pair)
  // leaves it `false`: no 'data' or 'end' ever comes, the sign-in is never answered, and as
  // Node already has the whole request (it is complete), requestTimeout does not cut it
  // either — the request and its socket are held until the client gives up. The `for await`
  // reader before this change read such a stream (control above).
  // The fix (made): `readStream` calls `stream.resume()` after attaching its listeners.
  it("readNodeBody reads a paused stream to its end (the unit under the socket test below)", async () => {
    const stream = new PassThrough()
    stream.pause()
    const read = readNodeBody(stream, 100, () => new RequestTooLarge("too large"))
    stream.end("a=1")
    const outcome = await Promise.race([read.then(() => "read"), sleep(500).then(() => "hung")])
    stream.resume()
    await read
    expect(outcome).toBe("read")
  })

  it("a paused request's form is still read and answered (within 3 s, even with requestTimeout 1.5 s)", async () => {
    const served = await serve(servers, { ...short, before: (req) => req.pause() })
    const socket = await open(served.port)
    const answers = new Answers(socket)
    const body = "csrfToken=x&username=ada&password=y"
    socket.write(`POST /auth/callback/credentials HTTP/1.1\r\nHost: 127.0.0.1:${served.port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`)
    const statuses = await answers.wait(1, 3000)
    socket.destroy()
    expect(statuses).toHaveLength(1)
  })
})
