// JWT sessions with a RedisSessionRegistry whose server is killed, paused and restarted
// (a throwaway redis-server of the test's own): a check that must ask the registry answers
// 503 with the cookie kept — never "signed out", never a 500, never "valid" unchecked — and
// the same session works again once Redis is back. docs/sessions.md, "When the store is down".
import { afterAll, beforeAll, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { serviceAvailable } from "@portcullis/adapter-test"
import { missingBinaries, startThrowawayRedis, type ThrowawayServer } from "@portcullis/adapter-test/throwaway"
import { createRedisClient, RedisSessionRegistry } from "@portcullis/redis-adapter"
import { Browser } from "../../core/test/helpers.js"

const gate = await serviceAvailable({ name: "redis-server binary", url: "tcp://127.0.0.1:0", start: "apt-get install redis-server" }, async () => {
  const missing = missingBinaries("redis")
  if (missing.length) throw new Error(`not installed: ${missing.join(", ")}`)
})

gate.describe("JWT sessions while the session registry's Redis is down", () => {
  let server: ThrowawayServer
  let client: ReturnType<typeof createRedisClient>
  let config: AuthConfig
  beforeAll(async () => {
    server = await startThrowawayRedis()
    client = createRedisClient(server.url, { commandTimeoutMs: 500, logger: { error: () => {}, warn: () => {} } })
    await new Promise((resolve) => client.once("ready", resolve))
    config = {
      secret: "registry-faults-secret-0123456789abcdef0123",
      trustHost: true,
      adapterTimeout: 1_000,
      // Ask the registry on every check, so every check meets the outage.
      session: { strategy: "jwt", registry: new RedisSessionRegistry(client, { prefix: `faults:${crypto.randomUUID()}:` }), revocationCheckInterval: 0 },
      logger: { error: () => {} },
      providers: [Credentials({ credentials: { username: {} }, authorize: async () => ({ id: "u-ada", name: "Ada" }) })],
    }
  }, 30_000)
  afterAll(async () => {
    client?.disconnect()
    await server?.close()
  })

  const statuses = async (browser: Browser, n: number) =>
    Promise.all(Array.from({ length: n }, async () => (await browser.request("/auth/session")).status))

  it("kill -9: checks answer 503 and keep the cookie; after the restart the session is valid again", async () => {
    const browser = new Browser((r) => Auth(r, config))
    await browser.signIn({ username: "ada" })
    const cookie = browser.sessionCookie()
    expect((await browser.session())?.user?.name).toBe("Ada")

    await server.kill()
    expect(new Set(await statuses(browser, 10))).toEqual(new Set([503]))
    expect(browser.sessionCookie()).toBe(cookie)
    // A sign-in cannot register its session: refused, no cookie handed out.
    const newcomer = new Browser((r) => Auth(r, config))
    const response = await newcomer.signIn({ username: "ada" })
    expect(response.headers.get("location")).toContain("error=ServiceUnavailable")
    expect(newcomer.sessionCookie()).toBeUndefined()

    await server.start()
    await expect.poll(async () => (await browser.request("/auth/session")).status, { timeout: 10_000, interval: 200 }).toBe(200)
    expect((await browser.session())?.user?.name).toBe("Ada")
  }, 30_000)

  it("paused (no answers at all): checks answer 503 within adapterTimeout, and recover on resume", async () => {
    const browser = new Browser((r) => Auth(r, config))
    await browser.signIn({ username: "ada" })
    server.pause()
    try {
      const started = Date.now()
      expect(new Set(await statuses(browser, 5))).toEqual(new Set([503]))
      expect(Date.now() - started).toBeLessThan(5_000)
    } finally {
      server.resume()
    }
    await expect.poll(async () => (await browser.request("/auth/session")).status, { timeout: 10_000, interval: 200 }).toBe(200)
  }, 30_000)
})
