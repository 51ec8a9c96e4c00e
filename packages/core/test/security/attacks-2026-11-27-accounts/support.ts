/**
 * Shared by the 2026-11-27 account attacks: a TCP proxy between a test's Redis client and the
 * shared Redis, which the test can cut or make hang without touching the server itself. The
 * shared Redis is the one the service gate probes (`redisService()`: `PORTCULLIS_REDIS_URL`
 * or the loopback default); the suites run under that gate (`redisAvailable()`), so a missing
 * Redis skips them locally and fails them in CI.
 */
import { once } from "node:events"
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net"
import { redisService } from "@portcullis/adapter-test"

/** A TCP proxy to Redis that can be cut (connections dropped, listener closed) or made to hang. */
export class RedisLink {
  server: Server | undefined
  port = 0
  mode: "forward" | "hang" = "forward"
  readonly sockets = new Set<Socket>()
  /** The Redis behind the link. */
  readonly upstream: URL

  constructor(service = redisService()) {
    this.upstream = new URL(service.url)
  }

  /** The URL a client connects to so as to go through the link: the service's, pointed at the proxy. */
  get url(): string {
    const url = new URL(this.upstream.href)
    url.hostname = "127.0.0.1"
    url.port = String(this.port)
    return url.href
  }

  async start(port = 0) {
    this.server = createServer((client) => {
      this.sockets.add(client)
      client.on("close", () => this.sockets.delete(client))
      client.on("error", () => client.destroy())
      if (this.mode === "hang") return
      const upstream = connect(Number(this.upstream.port || 6379), this.upstream.hostname.replace(/^\[|\]$/g, ""))
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
