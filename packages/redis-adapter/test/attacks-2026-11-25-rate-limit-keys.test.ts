// Attack on the Redis rate-limit counters (docs/rate-limiting.md, "Stores"): identifiers
// and addresses an attacker writes — separators, glob and format characters, very long
// strings, look-alike spellings — must never reach a Redis key, must share the counter of
// the account they name, and must not give a fresh one. Real Redis, own key prefix.
import { randomBytes } from "node:crypto"
import { afterAll, expect, it } from "vitest"
import { Redis } from "ioredis"
import { redisAvailable, redisService } from "@portcullis/adapter-test"
import { createAuth, type AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { redisRateLimitStore } from "@portcullis/redis-adapter/rate-limit"

const shared = await redisAvailable()

shared.describe("what held: hostile identifiers on the Redis store", () => {
  const prefix = `atk1125-rl:${randomBytes(4).toString("hex")}`
  const client = new Redis(redisService().url, { maxRetriesPerRequest: 1, commandTimeout: 5_000 })
  client.on("error", () => {})
  afterAll(async () => {
    const keys = await client.keys(`${prefix}:*`)
    if (keys.length) await client.del(...keys)
    await client.quit()
  })

  const config: AuthConfig = {
    secret: "a-test-secret-with-at-least-32-characters",
    trustHost: false,
    trustedOrigins: ["http://localhost:3000"],
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    rateLimit: { store: redisRateLimitStore(client, { prefix }) },
    providers: [Credentials({ credentials: { username: {}, password: { type: "password" } }, authorize: async () => null })],
  }
  const auth = createAuth(config)

  async function attempt(username: unknown, address: string) {
    const csrf = await auth.handle(new Request("http://localhost:3000/auth/csrf"))
    const cookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ")
    const { csrfToken } = (await csrf.json()) as { csrfToken: string }
    const response = await auth.handle(
      new Request("http://localhost:3000/auth/callback/credentials", {
        method: "POST",
        headers: { cookie, "content-type": "application/json", "x-auth-return-redirect": "1" },
        body: JSON.stringify({ username, password: "x", csrfToken }),
      }),
      { clientAddress: address },
    )
    return response.status
  }

  it("no part of an identifier reaches a key: keys are the action, the kind and a hex digest or an address bucket", async () => {
    const hostile = ["a:b", "*", "%s%n%x", "credentials:lock:0", "x".repeat(20_000), "\r\nFLUSHALL\r\n", ["a", "b"], { $ne: null }]
    for (const [i, username] of hostile.entries()) await attempt(username, `2001:db8:${i}::${i + 1}`)
    const keys = await client.keys(`${prefix}:*`)
    expect(keys.length).toBeGreaterThan(0)
    for (const key of keys) {
      expect(key.slice(prefix.length + 1)).toMatch(/^credentials:(i|lock|strikes):[0-9a-f]{32}$|^credentials:a:[0-9a-f:.]+(::\/64)?$/)
    }
  })

  it("look-alike spellings of one name count against one counter in Redis", async () => {
    const spellings = ["eve:admin", "EVE:ADMIN", "éve:admin", "eve:ad\u00admin", "ＥＶＥ:admin", ["eve:admin"]]
    const statuses = []
    for (const [i, s] of spellings.entries()) statuses.push(await attempt(s, `198.51.100.${i + 10}`))
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
  })
})
