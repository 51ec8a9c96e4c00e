/**
 * The Redis reachability probe, shared by the service gate (`redisAvailable`) and the
 * throwaway servers' readiness check. No vitest import: `throwaway` runs outside tests too.
 * @module
 */
import { connect as connectTcp, type Socket } from "node:net"
import { connect as connectTls } from "node:tls"

/**
 * Resolves when the Redis server at `url` answers `PING` with `+PONG` (after `AUTH` when the
 * URL carries credentials; `rediss:` over TLS). Speaks RESP on a socket of its own, so the
 * probe needs no client library and leaves no client behind. Rejects with the server's
 * error line (`-NOAUTH …`), a socket error, or after `timeoutMs` without an answer.
 */
export function pingRedis(url: string, timeoutMs = 3_000): Promise<void> {
  const target = new URL(url)
  const tls = target.protocol === "rediss:"
  const host = target.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1"
  const port = Number(target.port) || 6379
  const commands: string[][] = []
  const password = decodeURIComponent(target.password)
  const username = decodeURIComponent(target.username)
  if (password) commands.push(username ? ["AUTH", username, password] : ["AUTH", password])
  commands.push(["PING"])
  const wire = commands.map((args) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`).join("")
  return new Promise((resolve, reject) => {
    const socket: Socket = tls ? connectTls({ host, port, servername: host }) : connectTcp({ host, port })
    const finish = (error?: Error) => {
      clearTimeout(timer)
      socket.destroy()
      if (error) reject(error)
      else resolve()
    }
    const timer = setTimeout(() => finish(new Error(`no answer to PING within ${timeoutMs} ms`)), timeoutMs)
    let received = ""
    socket.once(tls ? "secureConnect" : "connect", () => socket.write(wire))
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("utf8")
      const replies = received.split("\r\n").slice(0, -1)
      const failed = replies.find((line) => line.startsWith("-"))
      if (failed) finish(new Error(`Redis answered ${failed}`))
      else if (replies.length >= commands.length) finish(replies.at(-1) === "+PONG" ? undefined : new Error(`Redis answered ${JSON.stringify(received)}`))
    })
    socket.on("error", (error) => finish(error))
    socket.on("close", () => finish(new Error(`connection closed; got ${JSON.stringify(received)}`)))
  })
}
