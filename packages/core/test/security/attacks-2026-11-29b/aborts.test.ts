/**
 * Attack class 5 (aborts) on core's Node body reader: clients that reset mid-body — before
 * the refusal, after it, right after the headers — one after another and 50 at once. The
 * server must not crash, log no error-level stack (a client going away is a warning),
 * reject no handler promise, leave nothing unhandled, and keep serving `GET /auth/csrf`.
 */
import type { Server } from "node:http"
import type { Socket } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { Answers, chunkedHead, closeAll, closed, csrfGet, MiB, open, serve, sleep, watchProcess, write, type Served } from "./support.js"

const servers: Server[] = []
afterEach(() => closeAll(servers))

const chunk = (bytes: number) => Buffer.concat([Buffer.from(`${bytes.toString(16)}\r\n`), Buffer.alloc(bytes, "x"), Buffer.from("\r\n")])

async function stillServes(served: Served): Promise<void> {
  const socket = await open(served.port)
  const answers = new Answers(socket)
  socket.write(csrfGet(served.port))
  expect(await answers.wait(1, 5000)).toEqual([200])
  expect(answers.bodies[0]).toContain("csrfToken")
  socket.destroy()
}

function quiet(served: Served, watch: ReturnType<typeof watchProcess>): void {
  expect(watch.seen.unhandled).toEqual([])
  expect(served.rejected).toEqual([])
  expect(served.errors).toEqual([])
  // Only a client's refusals are logged: warnings under request-malformed (and nothing else).
  expect(new Set(served.warnings)).toSatisfy((codes: Set<string>) => [...codes].every((code) => code === "request-malformed"))
}

/** Resets (RST) the connection, or destroys it where reset is unavailable. */
function reset(socket: Socket): void {
  if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy()
  else socket.destroy()
}

describe("a client resetting mid-body", () => {
  it("before the refusal (half a MiB in), 20 times: nothing rejected, no error logged, the server serves on", async () => {
    const watch = watchProcess()
    try {
      const served = await serve(servers)
      for (let i = 0; i < 20; i++) {
        const socket = await open(served.port)
        await write(socket, chunkedHead(served.port))
        await write(socket, chunk(512 * 1024))
        await sleep(10)
        reset(socket)
      }
      await sleep(200)
      expect(served.handled).toHaveLength(20)
      quiet(served, watch)
      await stillServes(served)
    } finally {
      watch.stop()
    }
  })

  it("right after the headers, before any body byte, 20 times (chunked and with a Content-Length)", async () => {
    const watch = watchProcess()
    try {
      const served = await serve(servers)
      for (let i = 0; i < 20; i++) {
        const socket = await open(served.port)
        await write(socket, i % 2 ? chunkedHead(served.port) : `POST /auth/callback/credentials HTTP/1.1\r\nHost: 127.0.0.1:${served.port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n`)
        await sleep(10)
        reset(socket)
      }
      await sleep(200)
      quiet(served, watch)
      await stillServes(served)
    } finally {
      watch.stop()
    }
  })

  it("after the 413, in the middle of the discarded rest, 20 times", async () => {
    const watch = watchProcess()
    try {
      const served = await serve(servers)
      for (let i = 0; i < 20; i++) {
        const socket = await open(served.port)
        const answers = new Answers(socket)
        await write(socket, chunkedHead(served.port))
        await write(socket, chunk(MiB + 1))
        expect(await answers.wait(1)).toEqual([413])
        await write(socket, chunk(256 * 1024))
        reset(socket)
      }
      await sleep(200)
      quiet(served, watch)
      await stillServes(served)
    } finally {
      watch.stop()
    }
  })

  it("a client that half-closes (FIN) mid-body after the 413: the connection ends, nothing logged at error level", async () => {
    const watch = watchProcess()
    try {
      const served = await serve(servers)
      const socket = await open(served.port)
      const answers = new Answers(socket)
      await write(socket, chunkedHead(served.port))
      await write(socket, chunk(MiB + 1))
      expect(await answers.wait(1)).toEqual([413])
      socket.end()
      expect(await closed(socket, 5000)).toBe(true)
      quiet(served, watch)
      await stillServes(served)
    } finally {
      watch.stop()
    }
  })
})

describe("50 oversized uploads at once", () => {
  it("all get their 413; half reset right after it, half end the body and are served a GET on the same connection; then the server serves on", async () => {
    const watch = watchProcess()
    try {
      const served = await serve(servers)
      const sockets = await Promise.all(Array.from({ length: 50 }, () => open(served.port)))
      const body = chunk(MiB + 256 * 1024)
      const outcomes = await Promise.all(
        sockets.map(async (socket, i) => {
          const answers = new Answers(socket)
          await write(socket, Buffer.concat([Buffer.from(chunkedHead(served.port)), body]))
          const first = await answers.wait(1, 20_000)
          if (i % 2) {
            reset(socket)
            return first
          }
          await write(socket, `0\r\n\r\n${csrfGet(served.port)}`)
          const both = await answers.wait(2, 20_000)
          socket.destroy()
          return both
        }),
      )
      outcomes.forEach((statuses, i) => expect(statuses).toEqual(i % 2 ? [413] : [413, 200]))
      await sleep(200)
      quiet(served, watch)
      await stillServes(served)
    } finally {
      watch.stop()
    }
  })

  it("50 at once, all reset at random points before, at and after the limit", async () => {
    const watch = watchProcess()
    try {
      const served = await serve(servers)
      const sockets = await Promise.all(Array.from({ length: 50 }, () => open(served.port)))
      await Promise.all(
        sockets.map(async (socket, i) => {
          await write(socket, chunkedHead(served.port))
          // 0 .. 1.5 MiB, in 64 KiB chunks, then a reset.
          const pieces = i % 25
          for (let p = 0; p < pieces; p++) if (!(await write(socket, chunk(64 * 1024)))) break
          reset(socket)
        }),
      )
      await sleep(300)
      quiet(served, watch)
      await stillServes(served)
    } finally {
      watch.stop()
    }
  })
})
