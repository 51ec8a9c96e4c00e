/**
 * The two-factor step on real stores (PostgreSQL, SQLite and Redis): the secret is sealed
 * in the row, and one code used by 10 sign-ins at the same moment gives exactly one
 * session — the store's atomic update decides, through the whole request path.
 */
import { randomBytes } from "node:crypto"
import { Redis } from "ioredis"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { redisAvailable, redisService } from "@portcullis/adapter-test"
import { postgresGate } from "../postgres-gate.js"
import type { Adapter } from "@portcullis/core/adapters"
import { RedisAdapter, redisKeys } from "@portcullis/redis-adapter"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { totpCode } from "@portcullis/core/two-factor"
import { ADA_ID, enroll, raceSecondFactor, twoFactorApp } from "./support.js"

const { service, postgres } = await postgresGate()

/** A store under test: its adapter, what it holds for Ada (secret as stored, backup code hashes), and its teardown. */
interface Store {
  adapter: Adapter
  stored(): Promise<{ secret: string; backupCodes: string[] }>
  close(): Promise<void>
}

function suite(open: () => Promise<Store>) {
  let store: Store
  // A store per test: the copies that lose a race with one backup code find it gone (a
  // wrong code), and wrong codes count against the user's cap for 15 minutes.
  beforeEach(async () => {
    store = await open()
    await store.adapter.createUser!({ id: ADA_ID, name: "Ada Lovelace", email: "ada@example.com", emailVerified: null })
  })
  afterEach(() => store.close())

  async function app() {
    const { config, browser } = twoFactorApp({}, store.adapter)
    await store.adapter.deleteTwoFactor!(ADA_ID)
    return { config, browser, ...(await enroll(config)) }
  }

  it("stores the TOTP secret sealed: the store holds a JWE, not the secret", async () => {
    const { secret } = await app()
    const stored = await store.stored()
    expect(stored.secret.split(".")).toHaveLength(5)
    expect(stored.secret).not.toContain(secret)
    expect(stored.backupCodes).toHaveLength(10)
  })

  it("gives exactly one of 10 concurrent sign-ins with one backup code a session", async () => {
    const { browser, backupCodes } = await app()
    const { responses, signedIn } = await raceSecondFactor(browser, backupCodes[0]!)
    expect(responses.filter((r) => r.status === 302)).toHaveLength(1)
    expect(signedIn).toHaveLength(1)
    expect((await store.adapter.getTwoFactor!(ADA_ID))!.backupCodes).toHaveLength(9)
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
      stored: async () => {
        const row = await database.db.selectFrom(database.tables.twoFactor).selectAll().where("userId", "=", ADA_ID).executeTakeFirstOrThrow()
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
    stored: async () => ({ secret: (await client.hget(keys.twoFactor(ADA_ID), "secret")) ?? "", backupCodes: await client.lrange(keys.twoFactorCodes(ADA_ID), 0, -1) }),
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
