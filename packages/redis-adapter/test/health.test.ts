// Issue 29, health checks on a real Redis: with rate limits and the JWT session registry on
// the shared test Redis, every check answers `ok`; with a throwaway redis-server of the
// test's own stopped, the registry is `down` (so the app is) and the rate-limit store too,
// each within the probe's bound, and `ok` again once it is back.
import { afterAll, beforeAll, expect, it } from "vitest"
import { redisAvailable, redisService, serviceAvailable } from "@portcullis/adapter-test"
import { missingBinaries, startThrowawayRedis, type ThrowawayServer } from "@portcullis/adapter-test/throwaway"
import { createAuth, type AuthConfig } from "@portcullis/core"
import { health } from "@portcullis/core/integration"
import Credentials from "@portcullis/core/providers/credentials"
import { createRedisClient, RedisSessionRegistry } from "@portcullis/redis-adapter"
import { redisRateLimitStore } from "@portcullis/redis-adapter/rate-limit"

const shared = await redisAvailable()
const binaries = await serviceAvailable({ name: "redis-server binary", url: "tcp://127.0.0.1:0", start: "apt-get install redis-server" }, async () => {
  const missing = missingBinaries("redis")
  if (missing.length) throw new Error(`not installed: ${missing.join(", ")}`)
})

type Client = ReturnType<typeof createRedisClient>
function config(client: Client): AuthConfig {
  const prefix = `health:${crypto.randomUUID().slice(0, 8)}:`
  return {
    secret: "a-test-secret-with-at-least-32-characters",
    trustHost: true,
    session: { strategy: "jwt", registry: new RedisSessionRegistry(client, { prefix }) },
    rateLimit: { store: redisRateLimitStore(client, { prefix: `${prefix}rl` }) },
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    providers: [Credentials({ credentials: { username: {} }, authorize: async () => null })],
  }
}

async function connect(url: string): Promise<Client> {
  const client = createRedisClient(url, { commandTimeoutMs: 500, logger: { error() {}, warn() {} } })
  await new Promise((resolve) => client.once("ready", resolve))
  return client
}

shared.describe("health on the shared Redis", () => {
  let client: Client
  beforeAll(async () => {
    client = await connect(redisService().url)
  })
  afterAll(() => client?.disconnect())

  it("reports the session registry and the rate-limit store ok", async () => {
    const report = await health(createAuth(config(client)))
    expect(report).toMatchObject({ status: "ok", checks: { sessionRegistry: { status: "ok" }, rateLimit: { status: "ok" } } })
    expect(report.checks.stepUp).toBeUndefined()
  })
})

binaries.describe("health while a Redis of the test's own is stopped", () => {
  let server: ThrowawayServer
  let client: Client
  beforeAll(async () => {
    server = await startThrowawayRedis()
    client = await connect(server.url)
  }, 30_000)
  afterAll(async () => {
    client?.disconnect()
    await server?.close()
  })

  it("is ok, then down (the registry) within the bound, then ok after the restart", async () => {
    const auth = createAuth(config(client))
    expect((await health(auth)).status).toBe("ok")

    await server.stop()
    const started = performance.now()
    const down = await health(auth, { timeout: 800 })
    expect(performance.now() - started).toBeLessThan(1_500)
    expect(down).toMatchObject({ status: "down", checks: { sessionRegistry: { status: "down" }, rateLimit: { status: "down" } } })
    expect(JSON.stringify(down)).not.toContain(server.url)

    await server.start()
    await expect.poll(async () => (await health(auth, { timeout: 800 })).status, { timeout: 15_000, interval: 250 }).toBe("ok")
  }, 60_000)
})
