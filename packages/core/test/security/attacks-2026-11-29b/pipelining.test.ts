/**
 * Attack class 4 (pipelining and smuggling) on core's Node body reader: now that a refused
 * body is read on and the connection kept, the next request on it is parsed where Node's
 * parser delimits it — nothing inside a discarded body is ever taken for a request, a
 * request after it is answered exactly once, and framing Node refuses never reaches core.
 */
import type { Server } from "node:http"
import { afterEach, describe, expect, it } from "vitest"
import { Answers, chunkedHead, closeAll, closed, csrfGet, MiB, open, serve, write } from "./support.js"

const servers: Server[] = []
afterEach(() => closeAll(servers))

/** A chunked piece of body. */
const chunk = (data: string | Buffer) => Buffer.concat([Buffer.from(`${Buffer.byteLength(data).toString(16)}\r\n`), Buffer.from(data), Buffer.from("\r\n")])

describe("requests hidden in a refused body", () => {
  it("request lines inside the dropped body are data: only the framed requests are handled, each answered once", async () => {
    const served = await serve(servers)
    const socket = await open(served.port)
    const answers = new Answers(socket)
    const hidden = `\r\n\r\n0\r\n\r\nPOST /auth/signout HTTP/1.1\r\nHost: 127.0.0.1:${served.port}\r\nContent-Length: 0\r\n\r\n${csrfGet(served.port)}`
    await write(socket, chunkedHead(served.port))
    await write(socket, chunk(Buffer.alloc(MiB, "x")))
    // Past the limit with request-looking text, before and after the refusal.
    for (let i = 0; i < 64; i++) await write(socket, chunk(hidden.repeat(50)))
    await write(socket, `0\r\n\r\n${csrfGet(served.port)}`)
    expect(await answers.wait(2)).toEqual([413, 200])
    expect(await answers.wait(3, 500)).toEqual([413, 200])
    expect(served.handled).toEqual(["POST /auth/callback/credentials", "GET /auth/csrf"])
    socket.destroy()
  })

  it("a client that sends its next request after the 413 but before ending the body has it read as body, not run", async () => {
    const served = await serve(servers)
    const socket = await open(served.port)
    const answers = new Answers(socket)
    await write(socket, chunkedHead(served.port))
    await write(socket, chunk(Buffer.alloc(MiB + 1, "x")))
    expect(await answers.wait(1)).toEqual([413])
    // Not a chunk size: Node's parser refuses the connection (its own raw 400, after the 413);
    // the text is never a request.
    await write(socket, csrfGet(served.port))
    expect(await closed(socket, 5000)).toBe(true)
    expect(answers.statuses[0]).toBe(413)
    expect(answers.raw).not.toContain("csrfToken")
    expect(answers.statuses.slice(1)).toEqual(answers.statuses.length > 1 ? [400] : [])
    expect(served.handled).toEqual(["POST /auth/callback/credentials"])
    expect(served.errors).toEqual([])
  })

  it("pipelined in one write — a refused chunked body, then two GETs — three answers in order, each once", async () => {
    const served = await serve(servers)
    const socket = await open(served.port)
    const answers = new Answers(socket)
    await write(socket, Buffer.concat([Buffer.from(chunkedHead(served.port)), chunk(Buffer.alloc(MiB + 10, "x")), Buffer.from(`0\r\n\r\n${csrfGet(served.port)}${csrfGet(served.port)}`)]))
    expect(await answers.wait(3)).toEqual([413, 200, 200])
    // Nothing more comes.
    expect(await answers.wait(4, 300)).toEqual([413, 200, 200])
    expect(served.handled).toHaveLength(3)
    socket.destroy()
  })

  it("50 refusals on one keep-alive connection, each followed by a GET: 100 answers, in order", async () => {
    const served = await serve(servers)
    const socket = await open(served.port)
    const answers = new Answers(socket)
    const body = chunk(Buffer.alloc(MiB + 1, "x"))
    for (let i = 0; i < 50; i++) await write(socket, Buffer.concat([Buffer.from(chunkedHead(served.port)), body, Buffer.from(`0\r\n\r\n${csrfGet(served.port)}`)]))
    const statuses = await answers.wait(100, 20_000)
    expect(statuses).toEqual(Array.from({ length: 50 }, () => [413, 200]).flat())
    expect(served.handled).toHaveLength(100)
    expect(served.errors).toEqual([])
    socket.destroy()
  })
})

describe("framing Node's parser refuses never reaches core", () => {
  it.each([
    ["Content-Length with Transfer-Encoding", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"],
    ["Transfer-Encoding: chunked, identity", "Transfer-Encoding: chunked, identity\r\n"],
    ["two Content-Lengths that disagree", "Content-Length: 5\r\nContent-Length: 6\r\n"],
    ["an obfuscated Transfer-Encoding", "Transfer-Encoding : chunked\r\n"],
  ])("%s: a 400 from Node, the connection closed, no request handled", async (_name, framing) => {
    const served = await serve(servers)
    const socket = await open(served.port)
    const answers = new Answers(socket)
    await write(socket, `POST /auth/callback/credentials HTTP/1.1\r\nHost: 127.0.0.1:${served.port}\r\nContent-Type: application/x-www-form-urlencoded\r\n${framing}\r\n5\r\na=1&b\r\n0\r\n\r\n${csrfGet(served.port)}`)
    expect(await closed(socket, 5000)).toBe(true)
    expect(answers.statuses).toEqual([400])
    expect(served.handled).toEqual([])
  })
})

describe("a Content-Length that does not match the bytes", () => {
  it("shorter than sent: the body is its first bytes, and the rest is the next request, answered once", async () => {
    const served = await serve(servers)
    const socket = await open(served.port)
    const answers = new Answers(socket)
    await write(socket, `POST /auth/callback/credentials HTTP/1.1\r\nHost: 127.0.0.1:${served.port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5\r\n\r\na=1&b${csrfGet(served.port)}`)
    const statuses = await answers.wait(2)
    // No CSRF token in "a=1&b": the sign-in is refused (a redirect), then the GET's 200.
    expect(statuses).toEqual([302, 200])
    expect(served.handled).toEqual(["POST /auth/callback/credentials", "GET /auth/csrf"])
    socket.destroy()
  })

  it("longer than sent, the client then closing: no answer to write, a warning (not an error), nothing rejected, the server serves on", async () => {
    const served = await serve(servers)
    const socket = await open(served.port)
    const early = new Answers(socket)
    await write(socket, `POST /auth/callback/credentials HTTP/1.1\r\nHost: 127.0.0.1:${served.port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\na=1&${csrfGet(served.port)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
    socket.end()
    expect(await closed(socket, 5000)).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 100))
    // Node's own 400 for the cut-short message (its parser's), not one of core's.
    expect(early.statuses).toEqual([400])
    expect(served.warnings).toContain("request-malformed")
    expect(served.handled).toEqual(["POST /auth/callback/credentials"])
    expect(served.rejected).toEqual([])
    expect(served.errors).toEqual([])
    const next = await open(served.port)
    const answers = new Answers(next)
    next.write(csrfGet(served.port))
    expect(await answers.wait(1)).toEqual([200])
    next.destroy()
  })

  it("a declared length past the limit, with a request pipelined after a body of that length: 413, then the request, each once", async () => {
    const served = await serve(servers)
    const socket = await open(served.port)
    const answers = new Answers(socket)
    const length = MiB + 100
    await write(socket, `POST /auth/callback/credentials HTTP/1.1\r\nHost: 127.0.0.1:${served.port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${length}\r\n\r\n`)
    // The body itself holds a request; only the one after it is one.
    const inner = Buffer.from(csrfGet(served.port))
    await write(socket, Buffer.concat([inner, Buffer.alloc(length - inner.length, "x")]))
    await write(socket, csrfGet(served.port))
    expect(await answers.wait(3, 1000)).toEqual([413, 200])
    expect(served.handled).toEqual(["POST /auth/callback/credentials", "GET /auth/csrf"])
    socket.destroy()
  })
})
