import { randomBytes } from "node:crypto"
import pg from "pg"
import { Redis } from "ioredis"
import { afterAll, beforeAll, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import { postgresService, redisAvailable, redisService, serviceAvailable } from "@portcullis/adapter-test"
import { openTestDatabase } from "@portcullis/sql-adapter/testing"
import { RedisAdapter } from "@portcullis/redis-adapter"
import { direct } from "../helpers.js"
import { emailConfig, newBrowser, redirectOf, requestLink, startSmtp, type TestSmtp } from "./support.js"

/**
 * One link, opened 50 times at once (checklist T47; better-auth PR #9572): exactly one
 * opening signs in, the other 49 get `Verification`, and one session exists — on the
 * adapters whose consume is atomic in the database (`DELETE … RETURNING`, `GETDEL`).
 * The stored token is only ever the hash (T46), checked in the database itself.
 */
const PARALLEL = 50

interface Store {
  adapter: Adapter
  /** Every stored verification token, as the database holds it. */
  storedTokens(): Promise<string[]>
  sessionCount(): Promise<number>
  close(): Promise<void>
}

function raceSuite(openStore: () => Promise<Store>) {
  let smtp: TestSmtp
  let store: Store
  beforeAll(async () => {
    smtp = await startSmtp()
    store = await openStore()
  })
  afterAll(async () => {
    await store?.close()
    await smtp?.close()
  })

  it("never stores the raw token", async () => {
    const config = emailConfig(store.adapter, smtp.url)
    await requestLink(newBrowser(direct(config)), "stored@example.com")
    const token = new URL(smtp.linkFor("stored@example.com")).searchParams.get("token")!
    const stored = await store.storedTokens()
    expect(stored.length).toBeGreaterThan(0)
    for (const value of stored) expect(value).not.toContain(token)
  })

  it(`${PARALLEL} concurrent openings of one link give exactly one session`, async () => {
    const config = emailConfig(store.adapter, smtp.url)
    await requestLink(newBrowser(direct(config)), "race@example.com")
    const link = smtp.linkFor("race@example.com")
    const sessionsBefore = await store.sessionCount()

    const responses = await Promise.all(Array.from({ length: PARALLEL }, () => newBrowser(direct(config)).request(link)))
    const outcomes = responses.map((r) => {
      const { path, error } = redirectOf(r)
      const session = r.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=") && !c.includes("Max-Age=0"))
      return error ? `error:${error}` : session ? `signed-in:${path}` : `other:${path}`
    })
    expect(outcomes.filter((o) => o === "signed-in:/")).toHaveLength(1)
    expect(outcomes.filter((o) => o === "error:Verification")).toHaveLength(PARALLEL - 1)
    expect((await store.sessionCount()) - sessionsBefore).toBe(1)
  })
}

const pgService = postgresService()
const postgres = await serviceAvailable(pgService, async () => {
  const client = new pg.Client({ connectionString: pgService.url, connectionTimeoutMillis: 3_000 })
  await client.connect()
  await client.end()
})

postgres.describe("email links on PostgreSQL (SqlAdapter)", () => {
  raceSuite(async () => {
    const { db, tables, adapter, close } = await openTestDatabase("postgres", { url: pgService.url })
    return {
      adapter,
      storedTokens: async () => (await db.selectFrom(tables.verificationTokens).select("token").execute()).map((r) => String(r.token)),
      sessionCount: async () => Number((await db.selectFrom(tables.sessions).select(db.fn.countAll().as("n")).executeTakeFirstOrThrow()).n),
      close,
    }
  })
})

const rService = redisService()
const connectRedis = () => new Redis(rService.url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 3_000 })
const redis = await redisAvailable()

redis.describe("email links on Redis (RedisAdapter)", () => {
  raceSuite(async () => {
    const prefix = `portcullis-email-test:${randomBytes(4).toString("hex")}:`
    const client = connectRedis()
    await client.connect()
    const keys = async (pattern: string) => {
      const found: string[] = []
      for await (const batch of client.scanStream({ match: `${prefix}${pattern}`, count: 500 })) found.push(...(batch as string[]))
      return found
    }
    return {
      adapter: RedisAdapter(client, { prefix }),
      // Key names and values both: the key of a token embeds the stored form.
      storedTokens: async () => {
        const names = await keys("verification-token:*")
        const values = names.length ? await client.mget(...names) : []
        return [...names, ...values.filter((v): v is string => v !== null)]
      },
      sessionCount: async () => (await keys("session:*")).length,
      close: async () => {
        const leftover = await keys("*")
        if (leftover.length) await client.del(...leftover)
        await client.quit()
      },
    }
  })
})
