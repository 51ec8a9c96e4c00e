/**
 * The two-factor step on real stores (PostgreSQL, SQLite and Redis): the secret is sealed
 * in the row, and one code used by 10 sign-ins at the same moment gives exactly one
 * session — the store's atomic update decides, through the whole request path.
 */
import { randomBytes } from "node:crypto"
import { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { redisAvailable, redisService } from "@portcullis/adapter-test"
import { postgresGate } from "../postgres-gate.js"
import type { Adapter } from "@portcullis/core/adapters"
import { RedisAdapter, redisKeys } from "@portcullis/redis-adapter"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { totpCode } from "@portcullis/core/two-factor"
import Credentials from "@portcullis/core/providers/credentials"
import { ada } from "../helpers.js"
import { ADA_ID, enroll, raceSecondFactor, twoFactorApp } from "./support.js"

const { service, postgres } = await postgresGate()

/** A store under test: its adapter, what it holds for Ada (secret as stored, backup code hashes), and its teardown. */
interface Store {
  adapter: Adapter
  stored(userId: string): Promise<{ secret: string; backupCodes: string[] }>
  close(): Promise<void>
}

function suite(open: () => Promise<Store>) {
  let store: Store
  beforeAll(async () => {
    store = await open()
  })
  afterAll(() => store.close())

  // A user per test: the copies that lose a race with one backup code find it gone (a wrong
  // code), and wrong codes count against their user's cap for 15 minutes.
  let users = 0
  async function app() {
    const userId = `${ADA_ID}-${++users}`
    await store.adapter.createUser!({ id: userId, name: "Ada Lovelace", email: `ada-${users}@example.com`, emailVerified: null })
    const signsIn = Credentials({
      credentials: { username: {}, password: { type: "password" } },
      authorize: ({ username, password }) => (username === ada.username && password === ada.password ? { id: userId, name: "Ada Lovelace" } : null),
    })
    const { config, browser } = twoFactorApp({ providers: [signsIn] }, store.adapter)
    return { config, browser, userId, ...(await enroll(config, userId)) }
  }

  it("stores the TOTP secret sealed: the store holds a JWE, not the secret", async () => {
    const { secret, userId } = await app()
    const stored = await store.stored(userId)
    expect(stored.secret.split(".")).toHaveLength(5)
    expect(stored.secret).not.toContain(secret)
    expect(stored.backupCodes).toHaveLength(10)
  })

  it("gives exactly one of 10 concurrent sign-ins with one backup code a session", async () => {
    const { browser, backupCodes, userId } = await app()
    const { responses, signedIn } = await raceSecondFactor(browser, backupCodes[0]!)
    expect(responses.filter((r) => r.status === 302)).toHaveLength(1)
    expect(signedIn).toHaveLength(1)
    expect((await store.adapter.getTwoFactor!(userId))!.backupCodes).toHaveLength(9)
  })

  it("gives exactly one of 10 concurrent sign-ins with one TOTP code a session", async () => {
    const { browser, secret } = await app()
    const { responses, signedIn } = await raceSecondFactor(browser, totpCode(secret))
    expect(responses.filter((r) => r.status === 302)).toHaveLength(1)
    expect(signedIn).toHaveLength(1)
  })
}

function sqlStore(dialect: "postgres" | "sqlite") {
  return async (): Promise<Store> => {
    const database: TestDatabase = await openTestDatabase(dialect, { url: service.url })
    return {
      adapter: database.adapter,
      stored: async (userId) => {
        const row = await database.db.selectFrom(database.tables.twoFactor).selectAll().where("userId", "=", userId).executeTakeFirstOrThrow()
        return { secret: String(row.secret), backupCodes: JSON.parse(String(row.backupCodes)) as string[] }
      },
      close: () => database.close(),
    }
  }
}

const redisTarget = redisService()
const redis = await redisAvailable()

async function redisStore(): Promise<Store> {
  const prefix = `portcullis-2fa-test:${randomBytes(4).toString("hex")}:`
  const client = new Redis(redisTarget.url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 3_000 })
  client.on("error", () => {})
  await client.connect()
  const keys = redisKeys(prefix)
  return {
    adapter: RedisAdapter(client, { prefix }),
    stored: async (userId) => ({ secret: (await client.hget(keys.twoFactor(userId), "secret")) ?? "", backupCodes: await client.lrange(keys.twoFactorCodes(userId), 0, -1) }),
    close: async () => {
      const found: string[] = []
      for await (const batch of client.scanStream({ match: `${prefix}*`, count: 500 })) found.push(...(batch as string[]))
      if (found.length) await client.del(...found)
      await client.quit()
    },
  }
}

postgres.describe("two-factor on PostgreSQL", () => suite(sqlStore("postgres")))
describe("two-factor on SQLite", () => suite(sqlStore("sqlite")))
redis.describe("two-factor on Redis", () => suite(redisStore))
