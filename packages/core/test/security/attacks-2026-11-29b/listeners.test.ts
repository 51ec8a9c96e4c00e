/**
 * Attack class 7 (listeners) on core's Node body reader: many requests on one keep-alive
 * connection — forms, chunked forms, refused bodies, bodies ending mid-discard, GETs — leave
 * no listener behind on the socket or on a request, and no MaxListenersExceededWarning.
 */
import type { IncomingMessage, Server } from "node:http"
import { afterEach, describe, expect, it } from "vitest"
import { Answers, chunkedHead, closeAll, csrfGet, MiB, open, serve, watchProcess, write } from "./support.js"

const servers: Server[] = []
afterEach(() => closeAll(servers))

const EVENTS = ["data", "end", "error", "close", "drain", "timeout", "readable", "finish", "pause", "resume"] as const
const counts = (emitter: NodeJS.EventEmitter) => Object.fromEntries(EVENTS.map((event) => [event, emitter.listenerCount(event)]))

describe("one keep-alive connection, 200 requests", () => {
  it("the server's socket has as many listeners after as before; each request keeps no reader of core's; no MaxListenersExceededWarning", async () => {
    const watch = watchProcess()
    try {
      const served = await serve(servers)
      const socket = await open(served.port)
      const answers = new Answers(socket)
      const form = "csrfToken=x&username=ada&password=nope"
      const plain = `POST /auth/callback/credentials HTTP/1.1\r\nHost: 127.0.0.1:${served.port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\n\r\n${form}`
      const chunked = `${chunkedHead(served.port)}${form.length.toString(16)}\r\n${form}\r\n0\r\n\r\n`
      const big = Buffer.concat([Buffer.from(chunkedHead(served.port)), Buffer.from(`${(MiB + 1).toString(16)}\r\n`), Buffer.alloc(MiB + 1, "x"), Buffer.from("\r\n")])
      let socketBaseline: Record<string, number> | undefined
      let expected = 0
      for (let i = 0; i < 200; i++) {
        const kind = i % 20 === 19 ? "refused" : ["plain", "chunked", "get"][i % 3]!
        if (kind === "refused") {
          // Refused, then some of the rest dropped, then the end.
          await write(socket, big)
          await write(socket, Buffer.concat([Buffer.from(`${(64 * 1024).toString(16)}\r\n`), Buffer.alloc(64 * 1024, "y"), Buffer.from("\r\n0\r\n\r\n")]))
        } else await write(socket, kind === "plain" ? plain : kind === "chunked" ? chunked : csrfGet(served.port))
        expected++
        const statuses = await answers.wait(expected, 10_000)
        expect(statuses).toHaveLength(expected)
        expect(statuses.at(-1)).toBe(kind === "refused" ? 413 : kind === "get" ? 200 : 302)
        // Taken once the connection has served a few of each kind.
        if (i === 20) socketBaseline = counts(served.sockets[0]!)
      }
      // One more GET so the last refused body's discard has finished before counting.
      await write(socket, csrfGet(served.port))
      expect(await answers.wait(expected + 1)).toHaveLength(expected + 1)
      expect(served.sockets).toHaveLength(1)
      expect(counts(served.sockets[0]!)).toEqual(socketBaseline)
      // Every request read to its end holds no 'data' listener (neither the reader's nor the discard's).
      const requests: IncomingMessage[] = served.requests
      expect(requests).toHaveLength(201)
      expect(requests.filter((req) => req.listenerCount("data") > 0)).toEqual([])
      // At most the discard's error sink is left on a refused request (harmless: the request object is dropped with it).
      expect(Math.max(...requests.map((req) => req.listenerCount("error")))).toBeLessThanOrEqual(1)
      expect(watch.seen.warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([])
      expect(served.errors).toEqual([])
      socket.destroy()
    } finally {
      watch.stop()
    }
  })
})
