/**
 * Issue 28, item 11: a two-factor challenge that already passed worked again on another
 * instance for its whole five-minute life — the spent mark and the wrong-code count lived
 * in each process's memory. Two instances here are two runtimes (two configurations, two
 * real HTTP servers) on one store: a memory adapter they share, and PostgreSQL and Redis
 * through two connections each when the services are up. One challenge cookie gives one
 * session across both, sent one after the other or 50 copies at once; five codes per
 * challenge across both; and a store that fails while the challenge is spent gives no
 * session, ever.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { redisAvailable, redisService } from "@portcullis/adapter-test"
import type { Adapter, VerificationToken } from "@portcullis/core/adapters"
import { disableTwoFactor, getTwoFactorStatus } from "@portcullis/core/integration"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { createRedisClient, RedisAdapter } from "@portcullis/redis-adapter"
import { SqlAdapter } from "@portcullis/sql-adapter"
import { createPostgresKysely } from "@portcullis/sql-adapter/node"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { isReservedIdentifier, twoFactorChallengeIdentifier } from "../../src/lib/verification-identifiers.js"
import { Browser } from "../helpers.js"
import { httpServer, type TestServer } from "../http-server.js"
import { postgresGate } from "../postgres-gate.js"
import { ADA_ID, enroll, firstFactor, secondFactor, twoFactorApp } from "./support.js"
import { steppedUp } from "../step-up/support.js"

const CHALLENGE = "portcullis.two-factor"
const quiet = { error() {}, warn() {}, debug() {} }

const servers: TestServer[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
})

/**
 * Two instances on `adapters` (one adapter each, on one store): each a runtime of its own
 * behind its own real server. Ada is enrolled through the first.
 */
async function twoInstances(adapters: [Adapter, Adapter], extra = {}) {
  const apps = adapters.map((adapter) => twoFactorApp({ logger: quiet, ...extra }, adapter))
  const { secret, backupCodes } = await enroll(apps[0]!.config)
  const [a, b] = await Promise.all(apps.map(async ({ config }) => {
    const server = await httpServer(config)
    servers.push(server)
    return server
  }))
  const browserOn = (server: TestServer) => new Browser(server.transport, server.origin)
  return { secret, backupCodes, a: a!, b: b!, browserOn }
}

/** A browser on `server` holding a copy of `from`'s cookies (the challenge among them). */
function copyOf(from: Browser, server: TestServer): Browser {
  const copy = new Browser(server.transport, server.origin)
  for (const [name, cookie] of from.jar) copy.jar.set(name, { ...cookie })
  return copy
}

const signedIn = (browser: Browser) => browser.sessionCookie() !== undefined

/** The suite every store runs: `open` gives two adapters on one fresh store. */
function suite(open: () => Promise<{ adapters: [Adapter, Adapter]; close(): Promise<void> }>) {
  let store: Awaited<ReturnType<typeof open>>
  beforeAll(async () => {
    store = await open()
  })
  afterAll(() => store?.close())
  // A fresh user per test would need a fresh first factor; a fresh enrolment suffices: the
  // tests below stay under the user's wrong-code cap together.
  afterEach(async () => {
    await store.adapters[0].deleteTwoFactor!(ADA_ID)
  })

  it("a challenge passed on instance A is refused on instance B, with another valid code", async () => {
    const { a, b, secret, backupCodes, browserOn } = await twoInstances(store.adapters)
    const victim = browserOn(a)
    await firstFactor(victim)
    expect(victim.jar.has(CHALLENGE)).toBe(true)
    // The attacker copied the challenge cookie before it was used (a shared computer, a proxy log).
    const attacker = copyOf(victim, b)
    expect((await secondFactor(victim, totpCode(secret))).status).toBe(302)
    expect(signedIn(victim)).toBe(true)
    // Then, on the other instance, a backup code (he knows one) — the challenge is spent.
    const replay = await secondFactor(attacker, backupCodes[0]!)
    expect(replay.headers.get("location")).toContain("error=TwoFactorChallengeInvalid")
    expect(signedIn(attacker)).toBe(false)
  })

  it("five codes per challenge across both instances: the sixth, the right one, is refused", async () => {
    const { a, b, secret, browserOn } = await twoInstances(store.adapters)
    const onA = browserOn(a)
    await firstFactor(onA)
    const onB = copyOf(onA, b)
    const wrong = totpCode(secret) === "000000" ? "111111" : "000000"
    for (const browser of [onA, onB, onA, onB, onA]) expect((await secondFactor(browser, wrong)).status).toBe(401)
    const sixth = await secondFactor(onB, totpCode(secret))
    expect(sixth.headers.get("location")).toContain("error=TwoFactorChallengeInvalid")
    expect(signedIn(onB)).toBe(false)
  })

  it("50 copies of one challenge at once, spread over both instances, each with a valid code: one session", async () => {
    const { a, b, backupCodes, browserOn } = await twoInstances(store.adapters)
    const first = browserOn(a)
    await firstFactor(first)
    const copies = Array.from({ length: 50 }, (_, i) => copyOf(first, i % 2 ? b : a))
    const answers = await Promise.all(copies.map((copy, i) => secondFactor(copy, backupCodes[i % backupCodes.length]!)))
    expect(copies.filter(signedIn)).toHaveLength(1)
    expect(answers.filter((r) => r.status === 302 && !r.headers.get("location")?.includes("error="))).toHaveLength(1)
  })
}

describe("two instances on one memory adapter", () => {
  suite(async () => {
    const adapter = MemoryAdapter()
    return { adapters: [adapter, adapter], close: async () => {} }
  })
})

const { service, postgres } = await postgresGate()
postgres.describe("two instances on PostgreSQL (a connection pool each)", () => {
  let database: TestDatabase
  suite(async () => {
    database = await openTestDatabase("postgres", { url: service.url })
    const second = createPostgresKysely(service.url)
    const adapters: [Adapter, Adapter] = [database.adapter, SqlAdapter(second, { tables: database.tables, passwords: true })]
    await adapters[0].createUser!({ id: ADA_ID, name: "Ada Lovelace", email: "ada@example.com", emailVerified: null })
    return {
      adapters,
      close: async () => {
        await second.destroy()
        await database.close()
      },
    }
  })
})

const redis = await redisAvailable()
redis.describe("two instances on Redis (a client each)", () => {
  suite(async () => {
    const prefix = `portcullis-2fa-instances:${crypto.randomUUID().slice(0, 8)}:`
    const clients = [0, 1].map(() => createRedisClient(redisService().url, { logger: { error() {}, warn() {} } }))
    await Promise.all(clients.map((client) => new Promise((resolve) => client.once("ready", resolve))))
    const adapters = clients.map((client) => RedisAdapter(client, { prefix })) as [Adapter, Adapter]
    await adapters[0].createUser!({ id: ADA_ID, name: "Ada Lovelace", email: "ada@example.com", emailVerified: null })
    return {
      adapters,
      close: async () => {
        const found: string[] = []
        for await (const batch of clients[0]!.scanStream({ match: `${prefix}*`, count: 500 })) found.push(...(batch as string[]))
        if (found.length) await clients[0]!.del(...found)
        for (const client of clients) client.disconnect()
      },
    }
  })
})

describe("the store failing while the challenge is spent", () => {
  /** A memory adapter whose verification-token use fails while `down` is set. */
  function flaky() {
    const inner = MemoryAdapter()
    const state = { down: false }
    const adapter: Adapter = {
      ...inner,
      useVerificationToken: (params) => (state.down ? Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432")) : inner.useVerificationToken!(params)),
    }
    return { adapter, state }
  }

  it("answers 503 and issues no session; the same challenge signs in once the store is back", async () => {
    const { adapter, state } = flaky()
    const { a, secret, browserOn } = await twoInstances([adapter, adapter])
    const victim = browserOn(a)
    await firstFactor(victim)
    state.down = true
    const answer = await secondFactor(victim, totpCode(secret))
    expect(answer.headers.get("location")).toContain("error=ServiceUnavailable")
    expect(signedIn(victim)).toBe(false)
    expect((await victim.request(new URL(answer.headers.get("location")!).pathname + "?error=ServiceUnavailable")).status).toBe(503)
    state.down = false
    // The TOTP code was used; the next step's code (accepted as drift) finishes the same challenge.
    expect((await secondFactor(victim, totpCode(secret, Date.now() + 30_000))).status).toBe(302)
    expect(signedIn(victim)).toBe(true)
  })

  it("50 copies at once while the store fails: not one session", async () => {
    const { adapter, state } = flaky()
    const { a, b, backupCodes, browserOn } = await twoInstances([adapter, adapter])
    const first = browserOn(a)
    await firstFactor(first)
    state.down = true
    const copies = Array.from({ length: 50 }, (_, i) => copyOf(first, i % 2 ? b : a))
    await Promise.all(copies.map((copy, i) => secondFactor(copy, backupCodes[i % backupCodes.length]!)))
    expect(copies.filter(signedIn)).toHaveLength(0)
  })

  it("a store that fails while an attempt is counted: 503 and no session at the step; the enrollment API throws and 2FA stays on", async () => {
    const inner = MemoryAdapter()
    const state = { down: false }
    const adapter: Adapter = {
      ...inner,
      acquireLock: (key, owner, ttl) => (state.down ? Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432")) : inner.acquireLock!(key, owner, ttl)),
    }
    const { a, secret, browserOn } = await twoInstances([adapter, adapter])
    const victim = browserOn(a)
    await firstFactor(victim)
    state.down = true
    const answer = await secondFactor(victim, totpCode(secret))
    expect(answer.headers.get("location")).toContain("error=ServiceUnavailable")
    expect(signedIn(victim)).toBe(false)
    const { config } = twoFactorApp({ logger: quiet }, adapter)
    await expect(disableTwoFactor({ ...(await steppedUp(config, ADA_ID)), code: totpCode(secret) }, config)).rejects.toMatchObject({ type: "AdapterError" })
    expect((await getTwoFactorStatus(await steppedUp(config, ADA_ID), config)).enabled).toBe(true)
    state.down = false
    expect((await secondFactor(victim, totpCode(secret))).status).toBe(302)
    expect(signedIn(victim)).toBe(true)
  })

  it("a store that fails while the challenge is issued fails the first factor: no challenge, no session", async () => {
    const inner = MemoryAdapter()
    const state = { down: false }
    const adapter: Adapter = {
      ...inner,
      createVerificationToken: (token) => (state.down ? Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432")) : inner.createVerificationToken!(token)),
    }
    const { a, browserOn } = await twoInstances([adapter, adapter])
    const victim = browserOn(a)
    state.down = true
    const answer = await firstFactor(victim)
    expect(answer.headers.get("location")).toContain("error=ServiceUnavailable")
    expect(victim.jar.has(CHALLENGE)).toBe(false)
    expect(signedIn(victim)).toBe(false)
  })
})

describe("the challenge's row in the verification-token table", () => {
  it("is a digest under the reserved two-factor-challenge namespace, expiring with the challenge — never a sign-in link", async () => {
    const inner = MemoryAdapter()
    const rows: VerificationToken[] = []
    const adapter: Adapter = { ...inner, createVerificationToken: (token) => (rows.push(token), inner.createVerificationToken!(token)) }
    const { a, browserOn } = await twoInstances([adapter, adapter])
    const victim = browserOn(a)
    await firstFactor(victim)
    expect(rows).toHaveLength(1)
    const [row] = rows
    expect(row!.identifier).toBe(twoFactorChallengeIdentifier(ADA_ID))
    expect(isReservedIdentifier(row!.identifier)).toBe(true)
    expect(row!.token).toMatch(/^[0-9a-f]{64}$/)
    expect(victim.jar.get(CHALLENGE)!.value).not.toContain(row!.token)
    const left = row!.expires.getTime() - Date.now()
    expect(left).toBeGreaterThan(4 * 60_000)
    expect(left).toBeLessThanOrEqual(5 * 60_000)
  })
})
