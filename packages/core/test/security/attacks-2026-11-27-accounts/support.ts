/**
 * Shared by the 2026-11-27 account attacks: a TCP proxy between a test's Redis client and the
 * shared Redis, which the test can cut or make hang without touching the server itself.
 */
import { once } from "node:events"
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net"

const REDIS = { host: "127.0.0.1", port: 6379 }

/** A TCP proxy to Redis that can be cut (connections dropped, listener closed) or made to hang. */
export class RedisLink {
  server: Server | undefined
  port = 0
  mode: "forward" | "hang" = "forward"
  readonly sockets = new Set<Socket>()

  async start(port = 0) {
    this.server = createServer((client) => {
      this.sockets.add(client)
      client.on("close", () => this.sockets.delete(client))
      client.on("error", () => client.destroy())
      if (this.mode === "hang") return
      const upstream = connect(REDIS.port, REDIS.host)
      this.sockets.add(upstream)
      upstream.on("close", () => this.sockets.delete(upstream))
      upstream.on("error", () => client.destroy())
      client.pipe(upstream).pipe(client)
      client.on("close", () => upstream.destroy())
      upstream.on("close", () => client.destroy())
    })
    this.server.listen(port, "127.0.0.1")
    await once(this.server, "listening")
    this.port = (this.server.address() as AddressInfo).port
  }

  async cut() {
    for (const s of this.sockets) s.destroy()
    await new Promise<void>((resolve) => this.server!.close(() => resolve()))
  }
}


/**
 * Waits until a Redis client has reconnected through a restarted link. ioredis retries with
 * a growing delay (up to 2 s), so a fixed pause can end before its next attempt does.
 */
export async function untilReady(client: { status: string }, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (client.status !== "ready") {
    if (Date.now() > deadline) throw new Error(`the Redis client did not reconnect within ${timeoutMs} ms (status ${client.status})`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
