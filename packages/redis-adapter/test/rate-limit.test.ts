// The Redis rate-limit store: the store contract on the shared Redis (own key prefix), and
// what a lockout does when its Redis goes away mid-run — on a throwaway redis-server of the
// test's own, stopped and started again, never the shared one.
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, expect, it } from "vitest"
import { Redis } from "ioredis"
import { redisAvailable, redisService, serviceAvailable } from "@portcullis/adapter-test"
import { runRateLimitStoreContract } from "@portcullis/adapter-test/rate-limit"
import { missingBinaries, startThrowawayRedis, type ThrowawayServer } from "@portcullis/adapter-test/throwaway"
import { createAuth, type AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { createRedisClient } from "@portcullis/redis-adapter"
import { redisRateLimitStore } from "@portcullis/redis-adapter/rate-limit"

const shared = await redisAvailable()

shared.describe("redisRateLimitStore on the shared Redis", () => {
  const prefix = `portcullis-test-rl:${randomBytes(4).toString("hex")}`
  const client = new Redis(redisService().url, { maxRetriesPerRequest: 1, commandTimeout: 5_000 })
  client.on("error", () => {})
  afterAll(async () => {
    const keys = await client.keys(`${prefix}:*`)
    if (keys.length) await client.del(...keys)
    await client.quit()
  })
  runRateLimitStoreContract("redisRateLimitStore", () => redisRateLimitStore(client, { prefix }))

  it("keeps two prefixes apart", async () => {
    const a = redisRateLimitStore(client, { prefix: `${prefix}-a` })
    const b = redisRateLimitStore(client, { prefix: `${prefix}-b` })
    await a.hit("k", 60, 3)
    expect((await b.hit("k", 60)).count).toBe(1)
    await Promise.all([a.reset("k"), b.reset("k")])
  })
})

const throwaway = await serviceAvailable({ name: "redis-server binary", url: "tcp://127.0.0.1:0", start: "apt-get install redis-server" }, async () => {
  const missing = missingBinaries("redis")
  if (missing.length) throw new Error(`not installed: ${missing.join(", ")}`)
})

throwaway.describe("a lockout whose Redis stops mid-run", () => {
  let server: ThrowawayServer
  let client: Redis
  beforeAll(async () => {
    server = await startThrowawayRedis()
    client = createRedisClient(server.url, { commandTimeoutMs: 500, logger: { error: () => {}, warn: () => {} } })
    await new Promise((resolve) => client.once("ready", resolve))
  }, 30_000)
  afterAll(async () => {
    client?.disconnect()
    await server?.close()
  })

  function app() {
    const warnings: string[] = []
    const config: AuthConfig = {
      secret: "a-test-secret-with-at-least-32-characters",
      trustedOrigins: ["http://localhost:3000"],
      session: { strategy: "jwt" },
      rateLimit: { store: redisRateLimitStore(client, { prefix: `faults-${randomBytes(4).toString("hex")}` }), timeout: 1_000 },
      logger: { error: () => {}, debug: () => {}, warn: (code) => void warnings.push(code) },
      providers: [
        Credentials({
          credentials: { username: {}, password: { type: "password" } },
          authorize: async ({ username, password }) => (username === "ada" && password === "right" ? { id: "ada" } : null),
        }),
      ],
    }
    const auth = createAuth(config)
    const jar = new Map<string, string>()
    const request = async (path: string, body?: Record<string, string>, json = false) => {
      const headers = new Headers({ cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") })
      if (json) headers.set("x-auth-return-redirect", "1")
      if (body) headers.set("content-type", "application/x-www-form-urlencoded")
      const response = await auth.handle(new Request(`http://localhost:3000${path}`, { method: body ? "POST" : "GET", headers, body: body && new URLSearchParams(body) }), { clientAddress: "198.51.100.7" })
      for (const c of response.headers.getSetCookie()) {
        const [pair] = c.split(";")
        const [name, ...value] = pair!.split("=")
        jar.set(name!, value.join("="))
      }
      return response
    }
    const signIn = async (password: string, json = false) => {
      const { csrfToken } = (await (await request("/auth/csrf")).json()) as { csrfToken: string }
      return request("/auth/callback/credentials", { username: "ada", password, csrfToken }, json)
    }
    const errorOf = (r: Response) => (r.headers.get("location") ? new URL(r.headers.get("location")!).searchParams.get("error") : null)
    return { signIn, request, errorOf, warnings }
  }

  it("refuses credentials with 503 while Redis is down (fail closed), never 200 and never a crash; counts again once it is back", async () => {
    const { signIn, errorOf, warnings } = app()
    for (let i = 0; i < 3; i++) expect(errorOf(await signIn("wrong"))).toBe("CredentialsSignin")
    await server.stop()
    const during = await signIn("right", true)
    expect(during.status).toBe(503)
    expect(during.headers.get("retry-after")).not.toBeNull()
    expect(errorOf(await signIn("right"))).toBe("ServiceUnavailable")
    expect(warnings).toContain("rate-limit-store-failed")
    await server.start()
    // ioredis reconnects on its own; attempts right after the restart may still fail fast.
    await expect.poll(async () => (await signIn("wrong", true)).status, { timeout: 20_000, interval: 200 }).toBe(200)
    for (let i = 0; i < 10; i++) await signIn("wrong")
    expect(errorOf(await signIn("right"))).toBe("RateLimited")
  }, 60_000)
})
