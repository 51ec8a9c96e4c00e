/**
 * The two-factor step while its store is paused (SIGSTOP on a throwaway redis-server): the
 * step answers "try again" (ServiceUnavailable) and signs nobody in, nothing is consumed,
 * and the same code works once Redis is back. 50 steps at once during the pause all fail
 * the same way and none of them crashes or hangs past adapterTimeout.
 */
import { afterAll, beforeAll, expect, it } from "vitest"
import { serviceAvailable } from "@portcullis/adapter-test"
import { missingBinaries, startThrowawayRedis, type ThrowawayServer } from "@portcullis/adapter-test/throwaway"
import { totpCode } from "@portcullis/core/two-factor"
import { createRedisClient, RedisAdapter } from "@portcullis/redis-adapter"
import { ADA_ID, enroll, firstFactor, secondFactor, twoFactorApp } from "./support.js"

const gate = await serviceAvailable({ name: "redis-server binary", url: "tcp://127.0.0.1:0", start: "apt-get install redis-server" }, async () => {
  const missing = missingBinaries("redis")
  if (missing.length) throw new Error(`not installed: ${missing.join(", ")}`)
})

const quiet = { error() {}, warn() {}, debug() {} }
const storeQuiet = { error() {}, warn() {} }

gate.describe("two-factor on Redis while Redis is paused", () => {
  let server: ThrowawayServer
  let client: ReturnType<typeof createRedisClient>
  beforeAll(async () => {
    server = await startThrowawayRedis()
    client = createRedisClient(server.url, { commandTimeoutMs: 400, logger: storeQuiet })
    await new Promise((resolve) => client.once("ready", resolve))
  }, 30_000)
  afterAll(async () => {
    server?.resume()
    client?.disconnect()
    await server?.close()
  })

  it("answers ServiceUnavailable without a session, consumes nothing, and the same code works after", async () => {
    const adapter = RedisAdapter(client, { prefix: `2fa-faults:${crypto.randomUUID()}:`, logger: storeQuiet })
    await adapter.createUser!({ id: ADA_ID, name: "Ada Lovelace", email: "ada@example.com", emailVerified: null })
    const { config, browser } = twoFactorApp({ logger: quiet, adapterTimeout: 800 }, adapter)
    const { secret } = await enroll(config)
    const browsers = Array.from({ length: 50 }, browser)
    for (const b of browsers) await firstFactor(b)
    // Each browser fetches its CSRF token before the pause; the step itself meets the pause.
    const code = totpCode(secret)
    server.pause()
    let answers: Response[]
    const started = Date.now()
    try {
      answers = await Promise.all(browsers.map((b) => secondFactor(b, code)))
    } finally {
      server.resume()
    }
    expect(Date.now() - started).toBeLessThan(10_000)
    for (const answer of answers) {
      expect(answer.status).not.toBe(500)
      const location = answer.headers.get("location") ?? ""
      expect(location).toContain("ServiceUnavailable")
    }
    expect(browsers.filter((b) => b.sessionCookie() !== undefined)).toHaveLength(0)
    // Back: the code was not used up by the failed attempts; exactly one browser gets in with it.
    await new Promise((resolve) => setTimeout(resolve, 500))
    const after = await Promise.all(browsers.slice(0, 10).map((b) => secondFactor(b, code)))
    expect(after.filter((r) => r.status === 302 && !(r.headers.get("location") ?? "").includes("error"))).toHaveLength(1)
    expect(browsers.filter((b) => b.sessionCookie() !== undefined)).toHaveLength(1)
  }, 60_000)
})
