/**
 * Core's Node path reads a request body through the stream's events (`http/node-body.ts`):
 * to the end, or refused past the limit with a 413 the client can read — the rest of the
 * body is read and dropped, not answered with a reset — and a client that keeps sending
 * long after the refusal is cut off.
 */
import { PassThrough, Readable } from "node:stream"
import { createServer, type Server } from "node:http"
import { connect, type Socket } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { InvalidRequest, RequestTooLarge } from "../../src/errors.js"
import { DISCARD_LIMIT, dropUnread, readNodeBody, utf8Length } from "../../src/lib/http/node-body.js"
import { handleNodeRequest } from "@portcullis/core/integration"
import { credentialsConfig } from "../helpers.js"
import { nodeServer } from "../raw-http.js"

const MiB = 1024 * 1024
const tooLarge = () => new RequestTooLarge("too large")
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

/** Writes 1 MiB pieces into `stream`, a turn of the event loop apart, until past DISCARD_LIMIT or until it is destroyed. */
async function sendPastDiscardLimit(stream: PassThrough): Promise<void> {
  const piece = Buffer.alloc(MiB)
  for (let sent = 0; sent <= DISCARD_LIMIT && !stream.destroyed; sent += piece.length) {
    stream.write(piece)
    await new Promise((resolve) => setImmediate(resolve))
  }
  await new Promise((resolve) => setImmediate(resolve))
}

describe("readNodeBody on a Node stream", () => {
  it("reads every chunk, strings and bytes, in order", async () => {
    const stream = new PassThrough()
    const read = readNodeBody(stream, 100, tooLarge)
    stream.write("a=1&")
    stream.write(Buffer.from("b=2&"))
    stream.end("c=ü")
    expect(text(await read)).toBe("a=1&b=2&c=ü")
  })

  it("reads a body of exactly the limit, and refuses one byte more", async () => {
    const exact = new PassThrough()
    const ok = readNodeBody(exact, 8, tooLarge)
    exact.end("12345678")
    expect(text(await ok)).toBe("12345678")
    const over = new PassThrough()
    const refused = readNodeBody(over, 8, tooLarge)
    over.end("123456789")
    await expect(refused).rejects.toBeInstanceOf(RequestTooLarge)
  })

  it("after a refusal reads the rest and drops it, without destroying the stream", async () => {
    const stream = new PassThrough()
    const refused = readNodeBody(stream, 4, tooLarge)
    stream.write("12345")
    await expect(refused).rejects.toBeInstanceOf(RequestTooLarge)
    // Still flowing: everything written after the refusal is consumed, and the stream ends normally.
    for (let i = 0; i < 100; i++) stream.write(Buffer.alloc(16 * 1024))
    stream.end()
    await new Promise((resolve) => stream.once("end", resolve))
    // Ended as a stream read to its end does (not destroyed early), with nothing of the reader left on it.
    expect(stream.readableEnded).toBe(true)
    expect(stream.listenerCount("data")).toBe(0)
  })

  it("cuts off a client that sends more than DISCARD_LIMIT after the refusal", async () => {
    const stream = new PassThrough()
    const refused = readNodeBody(stream, 4, tooLarge)
    stream.write("12345")
    await expect(refused).rejects.toBeInstanceOf(RequestTooLarge)
    await sendPastDiscardLimit(stream)
    expect(stream.destroyed).toBe(true)
  })

  it("an error after the refusal is swallowed (no unhandled 'error' event)", async () => {
    const stream = new PassThrough()
    const refused = readNodeBody(stream, 4, tooLarge)
    stream.write("12345")
    await expect(refused).rejects.toBeInstanceOf(RequestTooLarge)
    stream.destroy(new Error("ECONNRESET"))
    await new Promise((resolve) => stream.once("close", resolve))
  })

  it("a stream that closes before its end (the client went away) is an InvalidRequest, and later errors are not thrown", async () => {
    const stream = new PassThrough()
    const read = readNodeBody(stream, 100, tooLarge)
    stream.write("a=1")
    stream.destroy()
    await expect(read).rejects.toBeInstanceOf(InvalidRequest)
    const erroring = new PassThrough()
    const failed = readNodeBody(erroring, 100, tooLarge)
    erroring.destroy(new Error("aborted"))
    await expect(failed).rejects.toBeInstanceOf(InvalidRequest)
  })

  it("a stream read to the end before (an app's parser) is an empty body; a destroyed one an InvalidRequest", async () => {
    const ended = Readable.from(["a=1"])
    ended.resume()
    await new Promise((resolve) => ended.once("end", resolve))
    expect((await readNodeBody(ended, 100, tooLarge)).byteLength).toBe(0)
    const destroyed = new PassThrough()
    destroyed.destroy()
    await expect(readNodeBody(destroyed, 100, tooLarge)).rejects.toBeInstanceOf(InvalidRequest)
  })

  it("leaves no listener of its own behind once read", async () => {
    const stream = new PassThrough()
    const before = ["data", "end", "error", "close"].map((event) => stream.listenerCount(event))
    const read = readNodeBody(stream, 100, tooLarge)
    stream.end("x=1")
    await read
    expect(["data", "end", "error", "close"].map((event) => stream.listenerCount(event))).toEqual(before)
  })
})

describe("readNodeBody's edges on a Node stream", () => {
  const events = ["data", "end", "error", "close"] as const
  const counts = (stream: PassThrough) => events.map((event) => stream.listenerCount(event))

  it("takes chunkCap chunks and refuses the one after it (a body cut a byte per chunk)", async () => {
    const limit = 128 * 64
    const exact = new PassThrough()
    const ok = readNodeBody(exact, limit, tooLarge)
    for (let i = 0; i < 128; i++) exact.write("x")
    exact.end()
    expect(text(await ok)).toBe("x".repeat(128))
    const over = new PassThrough()
    const refused = readNodeBody(over, limit, tooLarge)
    for (let i = 0; i < 129; i++) over.write("x")
    await expect(refused).rejects.toBeInstanceOf(RequestTooLarge)
  })

  it("on a refusal takes its own listeners off at once, leaving only the drop's", async () => {
    const stream = new PassThrough()
    const before = counts(stream)
    const refused = readNodeBody(stream, 4, tooLarge)
    stream.write("12345")
    await expect(refused).rejects.toBeInstanceOf(RequestTooLarge)
    // The drop's: one "data", "end", "close", and a lasting "error" that swallows a late failure.
    expect(counts(stream)).toEqual([before[0]! + 1, before[1]! + 1, before[2]! + 1, before[3]! + 1])
  })

  it("a client gone mid-body: its listeners are off, the message says what happened", async () => {
    const stream = new PassThrough()
    const before = counts(stream)
    const read = readNodeBody(stream, 100, tooLarge)
    stream.write("a=1")
    stream.destroy()
    await expect(read).rejects.toThrow("The request body ended before it was complete")
    expect(counts(stream)).toEqual(before)
  })

  it("a stream destroyed and closed before it is read is refused at once (no listener would ever hear it)", async () => {
    const stream = new PassThrough()
    stream.destroy()
    await new Promise((resolve) => stream.once("close", resolve))
    await expect(readNodeBody(stream, 100, tooLarge)).rejects.toThrow("The request body ended before it was complete")
  })
})

describe("dropUnread: a body still coming that nobody reads, after core answered", () => {
  /** A PassThrough that says, as an IncomingMessage does, whether the message has fully arrived. */
  const incoming = (complete: boolean) => Object.assign(new PassThrough(), { complete })

  it("leaves a request that has fully arrived untouched (the hot path: one property read)", () => {
    const stream = incoming(true)
    dropUnread(stream)
    expect(stream.readableFlowing).toBe(null)
    expect(stream.listenerCount("data")).toBe(0)
    dropUnread(undefined)
    dropUnread("a=1")
  })

  it("drops a body still coming, even one an app paused, and ends normally within the limit", async () => {
    const stream = incoming(false)
    stream.pause()
    dropUnread(stream)
    for (let i = 0; i < 10; i++) stream.write(Buffer.alloc(64 * 1024))
    stream.end()
    await new Promise((resolve) => stream.once("end", resolve))
    expect(stream.readableEnded).toBe(true)
  })

  it("cuts a body still coming past DISCARD_LIMIT", async () => {
    const stream = incoming(false)
    dropUnread(stream)
    await sendPastDiscardLimit(stream)
    expect(stream.destroyed).toBe(true)
  })

  it("leaves a body someone is reading to its reader", () => {
    const stream = incoming(false)
    stream.on("data", () => {})
    dropUnread(stream)
    expect(stream.listenerCount("data")).toBe(1)
  })
})

describe("readNodeBody on other bodies", () => {
  it("an async iterable that is not a Node stream is read with for await, and refused past the limit", async () => {
    async function* parts() {
      yield "a="
      yield new TextEncoder().encode("1")
    }
    expect(text(await readNodeBody(parts(), 10, tooLarge))).toBe("a=1")
    async function* long() {
      for (;;) yield "xxxx"
    }
    await expect(readNodeBody(long(), 10, tooLarge)).rejects.toBeInstanceOf(RequestTooLarge)
    async function* broken() {
      yield "a"
      throw new Error("aborted")
    }
    await expect(readNodeBody(broken(), 10, tooLarge)).rejects.toBeInstanceOf(InvalidRequest)
  })

  it("an object with only some of a stream's methods is read as an async iterable, not through events", async () => {
    const methods = ["on", "removeListener", "resume", "destroy"] as const
    for (const missing of methods) {
      async function* parts() {
        yield "a=1"
      }
      const body = Object.assign(parts(), Object.fromEntries(methods.filter((m) => m !== missing).map((m) => [m, () => { throw new Error(`${m} must not be called`) }])))
      expect(text(await readNodeBody(body, 10, tooLarge)), missing).toBe("a=1")
    }
  })

  it("an async iterable: exactly the limit is read, a byte more refused; chunkCap chunks read, one more refused; a failure says what happened", async () => {
    async function* of(...parts: string[]) {
      yield* parts
    }
    expect(text(await readNodeBody(of("1234", "5678"), 8, tooLarge))).toBe("12345678")
    await expect(readNodeBody(of("1234", "56789"), 8, tooLarge)).rejects.toBeInstanceOf(RequestTooLarge)
    const limit = 128 * 64
    expect(text(await readNodeBody(of(...Array(128).fill("x")), limit, tooLarge))).toBe("x".repeat(128))
    await expect(readNodeBody(of(...Array(129).fill("x")), limit, tooLarge)).rejects.toBeInstanceOf(RequestTooLarge)
    async function* broken() {
      yield "a"
      throw new Error("aborted")
    }
    await expect(readNodeBody(broken(), 10, tooLarge)).rejects.toThrow("The request body ended before it was complete")
  })

  it("a string or bytes a parser left is taken as it is, within the limit", async () => {
    expect(text(await readNodeBody("a=1", 3, tooLarge))).toBe("a=1")
    await expect(readNodeBody(new Uint8Array(4), 3, tooLarge)).rejects.toBeInstanceOf(RequestTooLarge)
  })
})

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

/** Reads off `socket` until `count` complete answers (by Content-Length) came; their statuses. */
function answers(socket: Socket, count: number): Promise<number[] | "reset"> {
  return new Promise((resolve) => {
    let buffered = Buffer.alloc(0)
    const statuses: number[] = []
    const finish = (value: number[] | "reset") => {
      socket.removeAllListeners("data")
      resolve(value)
    }
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      for (;;) {
        const end = buffered.indexOf("\r\n\r\n")
        if (end < 0) return
        const head = buffered.subarray(0, end).toString("latin1")
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0)
        if (buffered.length < end + 4 + length) return
        statuses.push(Number(head.split(" ")[1]))
        buffered = buffered.subarray(end + 4 + length)
        if (statuses.length === count) return finish(statuses)
      }
    })
    socket.once("error", () => finish(statuses.length ? statuses : "reset"))
    socket.once("close", () => finish(statuses.length ? statuses : "reset"))
  })
}

async function pump(socket: Socket, bytes: number, chunked: boolean): Promise<void> {
  const piece = Buffer.alloc(64 * 1024, "x")
  for (let sent = 0; sent < bytes && !socket.destroyed; sent += piece.length) {
    const ok = chunked ? socket.write(`${piece.length.toString(16)}\r\n`) && socket.write(piece) && socket.write("\r\n") : socket.write(piece)
    if (!ok) await new Promise((resolve) => socket.once("drain", resolve).once("close", resolve))
  }
  if (chunked && !socket.destroyed) socket.write("0\r\n\r\n")
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket))
    socket.on("error", () => {})
  })
}

describe("a body past the limit over a real socket", () => {
  it("a chunked body of 1.25 MiB is a 413 the client reads — every time, never a reset — and the connection then serves the next request", async () => {
    const port = await nodeServer(credentialsConfig(), servers)
    for (let i = 0; i < 5; i++) {
      const socket = await open(port)
      const answered = answers(socket, 2)
      socket.write(`POST /auth/callback/credentials HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n`)
      await pump(socket, MiB + 256 * 1024, true)
      socket.write(`GET /auth/csrf HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)
      expect(await answered).toEqual([413, 200])
      socket.destroy()
    }
  })

  it("a declared Content-Length past the limit is a 413 too, with the body still coming", async () => {
    const port = await nodeServer(credentialsConfig(), servers)
    const socket = await open(port)
    const answered = answers(socket, 1)
    const size = 2 * MiB
    socket.write(`POST /auth/callback/credentials HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${size}\r\n\r\n`)
    await pump(socket, size, false)
    expect(await answered).toEqual([413])
    socket.destroy()
  })

  it("a client that keeps sending far past the limit is cut off, and the server goes on serving", async () => {
    const port = await nodeServer(credentialsConfig(), servers)
    const socket = await open(port)
    const answered = answers(socket, 1)
    socket.write(`POST /auth/callback/credentials HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n`)
    await pump(socket, MiB + DISCARD_LIMIT + 2 * MiB, true)
    // Its 413 was written before it was cut off (a client reading it as it sends sees it).
    expect(await answered).toEqual([413])
    await new Promise((resolve) => (socket.destroyed ? resolve(undefined) : socket.once("close", resolve)))
    const next = await open(port)
    const fine = answers(next, 1)
    next.write(`GET /auth/csrf HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)
    expect(await fine).toEqual([200])
    next.destroy()
  })
})

describe("utf8Length (how a dropped string chunk is counted)", () => {
  it("equals TextEncoder's byte count, over every kind of character and lone surrogates", () => {
    const samples = ["", "a", "é", "€", "😀", "a€😀é", "\ud800", "\udc00", "\ud800a", "a\udbff", "\udbff\udfff", "x".repeat(1000)]
    // Every boundary of the encoding: 1/2/3-byte edges, the surrogate ranges' ends, pairs and halves at the ends.
    samples.push("\x7f", "\x80", "\u07ff", "\u0800", "\ud7ff", "\ud800\udc00", "\udbff", "\udc00\ud800", "\ue000", "\uffff", "a\ud800", "\ud800\ud800\udc00")
    // Generated: 2,000 strings of random code units, surrogates included.
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31)
    for (let n = 0; n < 2_000; n++) samples.push(String.fromCharCode(...Array.from({ length: next() % 12 }, () => next() % 0x10000)))
    const encoder = new TextEncoder()
    for (const text of samples) expect(utf8Length(text), JSON.stringify(text)).toBe(encoder.encode(text).byteLength)
  })
})

describe("a request without a body is left alone", () => {
  it("a session check answered at once attaches nothing to the request and does not start it flowing", async () => {
    const seen: Array<{ flowing: boolean | null; data: number }> = []
    const server = createServer((req, res) => {
      const pending = handleNodeRequest(req, res, config)
      // Right after the call: the session lane answered synchronously, before Node's parser marked the request complete.
      seen.push({ flowing: req.readableFlowing, data: req.listenerCount("data") })
      void Promise.resolve(pending).catch(() => res.destroy())
    })
    const config = credentialsConfig()
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as { port: number }
    const socket = await open(port)
    const answered = answers(socket, 3)
    for (let i = 0; i < 3; i++) socket.write(`GET /auth/session HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)
    expect(await answered).toEqual([200, 200, 200])
    socket.destroy()
    expect(seen).toEqual(Array(3).fill({ flowing: null, data: 0 }))
  })
})
