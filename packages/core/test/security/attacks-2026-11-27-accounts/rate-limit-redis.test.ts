/**
 * The password sign-in limiter on a real Redis (2026-11-27): spellings of one address, many
 * addresses from one client, forged X-Forwarded-For without trustHost, and the Redis link
 * cut or hung mid-run through a TCP proxy this test owns (the shared Redis is never touched):
 * credentials fail closed with 503, sign-up goes on uncounted, the process keeps answering,
 * and counting resumes when the link is back.
 */
import { once } from "node:events"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createRedisClient } from "@portcullis/redis-adapter"
import { redisRateLimitStore } from "@portcullis/redis-adapter/rate-limit"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { redisAvailable } from "@portcullis/adapter-test"
import { RedisLink, untilReady } from "./support.js"
import { passwordApp, passwordSignIn, postStep, seedUser, LIGHT } from "../../password/support.js"

const PASSWORD = "a long and rather unguessable passphrase"

const link = new RedisLink()
const redis = () => createRedisClient(link.url, { commandTimeoutMs: 500, logger: { error: () => {}, warn: () => {} } })
let client: ReturnType<typeof redis>

// Needs the shared Redis: skipped without it locally, failing without it in CI (one gate for every such suite).
const redisGate = await redisAvailable()

redisGate.describe("the password sign-in limiter on Redis, through a link the test can cut", () => {
  beforeAll(async () => {
    await link.start()
    client = redis()
    await once(client, "ready")
  })
  afterAll(async () => {
    client.disconnect()
    if (link.server?.listening) await link.cut()
  })

  function limitedApp(extra: { perAddressMax?: number } = {}) {
    const adapter = MemoryAdapter()
    const rateLimit = {
      store: redisRateLimitStore(client, { prefix: `pcl-attack-${crypto.randomUUID().slice(0, 8)}` }),
      timeout: 300,
      ...(extra.perAddressMax && { perAddress: { credentials: { max: extra.perAddressMax, window: 900 } } }),
    }
    return { adapter, ...passwordApp(adapter, { provider: { hashing: LIGHT, emailVerification: "optional", mailer: { id: "m", type: "email", name: "m", sendVerificationRequest: async () => {} } as never }, extra: { rateLimit } }) }
  }

  describe("identifiers and addresses", () => {
    it("five wrong passwords under five spellings of one address lock it: the right password is then refused", async () => {
      const { adapter, browser } = limitedApp()
      await seedUser(adapter, { email: "grace@example.com", password: PASSWORD })
      const spellings = ["Grace@Example.com", "  grace@example.com", "GRACE@EXAMPLE.COM\t", "ｇｒａｃｅ@example.com", "gr\u00ADace@example.com"]
      for (const [i, email] of spellings.entries()) await passwordSignIn(browser(`198.51.100.${i + 1}`), { email, password: "wrong guess" })
      const right = await passwordSignIn(browser("198.51.100.50"), { email: "grace@example.com", password: PASSWORD })
      expect(right.error).toBe("RateLimited")
    })

    it("many addresses guessed from one client run into the per-address limit; forged X-Forwarded-For changes nothing without trustHost", async () => {
      const { browser } = limitedApp({ perAddressMax: 10 })
      const attacker = browser("198.51.100.60")
      const errors: (string | null)[] = []
      for (let i = 0; i < 14; i++) {
        const csrfToken = await attacker.csrfToken()
        const response = await attacker.request("/auth/callback/password", {
          form: { email: `user${i}@example.com`, password: "Winter2026!", csrfToken },
          headers: { "x-forwarded-for": `203.0.113.${i}`, "x-real-ip": `203.0.113.${i}`, forwarded: `for=203.0.113.${i}`, "cf-connecting-ip": `203.0.113.${i}` },
        })
        errors.push(new URL(response.headers.get("location")!).searchParams.get("error"))
      }
      expect(errors.slice(0, 10).every((e) => e === "CredentialsSignin")).toBe(true)
      expect(errors.slice(10)).toEqual(["RateLimited", "RateLimited", "RateLimited", "RateLimited"])
    })
  })

  describe("the Redis link cut, hung, and back", () => {
    it("credentials fail closed (503 / ServiceUnavailable), sign-up is let through, nothing crashes; counting resumes after", async () => {
      const { adapter, browser } = limitedApp()
      await seedUser(adapter, { email: "ada@example.com", password: PASSWORD })
      expect((await passwordSignIn(browser(), { email: "ada@example.com", password: PASSWORD })).error).toBeNull()

      const port = link.port
      await link.cut()
      const json = await passwordSignIn(browser(), { email: "ada@example.com", password: PASSWORD }, { json: true })
      expect(json.status).toBe(503)
      expect(json.response.headers.get("retry-after")).toMatch(/^\d+$/)
      expect(await json.response.text()).not.toMatch(/\n\s+at /)
      const form = await passwordSignIn(browser(), { email: "ada@example.com", password: PASSWORD })
      expect(form.error).toBe("ServiceUnavailable")
      expect(form.response.headers.getSetCookie().some((c) => /^authjs\.session-token=[^;]/.test(c))).toBe(false)
      const signup = await postStep(browser("198.51.100.70"), "signup", { email: "new-during-outage@example.com", password: "violet tractor sandwich orbit" })
      expect(signup.path).toBe("/auth/password/sent")

      // Hung: the proxy accepts and never answers; the limiter's timeout answers for it.
      link.mode = "hang"
      await link.start(port)
      const hung = await passwordSignIn(browser(), { email: "ada@example.com", password: PASSWORD }, { json: true })
      expect(hung.status).toBe(503)

      // Back: five wrong passwords lock the address again.
      await link.cut()
      link.mode = "forward"
      await link.start(port)
      await untilReady(client)
      for (let i = 0; i < 5; i++) await passwordSignIn(browser(`198.51.100.${80 + i}`), { email: "ada@example.com", password: "wrong" })
      expect((await passwordSignIn(browser("198.51.100.90"), { email: "ada@example.com", password: PASSWORD })).error).toBe("RateLimited")
    }, 20_000)

    it("the link cut while 20 sign-ins are in flight: every one is answered (never a 500), and the process keeps serving", async () => {
      const { adapter, browser } = limitedApp()
      await seedUser(adapter, { email: "lin@example.com", password: PASSWORD })
      const port = link.port
      const browsers = Array.from({ length: 20 }, (_, i) => browser(`198.51.100.${150 + i}`))
      const tokens = await Promise.all(browsers.map((b) => b.csrfToken()))
      const inFlight = browsers.map((b, i) =>
        b.request("/auth/callback/password", { json: { email: "lin@example.com", password: i % 2 ? PASSWORD : "wrong", csrfToken: tokens[i] }, headers: { "x-auth-return-redirect": "1" } }),
      )
      await new Promise((resolve) => setImmediate(resolve))
      await link.cut()
      const answers = await Promise.all(inFlight)
      for (const a of answers) {
        expect([200, 401, 503]).toContain(a.status)
        expect(await a.text()).not.toMatch(/\n\s+at /)
      }
      await link.start(port)
      await untilReady(client)
      expect((await passwordSignIn(browser("198.51.100.199"), { email: "lin@example.com", password: PASSWORD })).status).toBe(302)
    }, 20_000)
  })
})
