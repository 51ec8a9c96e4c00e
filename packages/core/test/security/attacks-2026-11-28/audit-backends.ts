/**
 * The audit stores the attacks of this folder run against: memory, SQLite, and the real
 * PostgreSQL and Redis of `@portcullis/adapter-test` (skipped locally when absent, failing in
 * CI). Each backend is a fresh database or key prefix, removed at the end.
 */
import type { Adapter } from "@portcullis/core/adapters"
import { redisAvailable, redisService } from "@portcullis/adapter-test"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { createRedisClient, RedisAdapter } from "@portcullis/redis-adapter"
import { SqlAdapter } from "@portcullis/sql-adapter"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import type { Redis } from "ioredis"
import { describe } from "vitest"
import { postgresGate } from "../../postgres-gate.js"

export interface Backend {
  adapter: Adapter
  /** The Redis client, on Redis: to count what a query reads. */
  redis?: Redis
  close(): Promise<void>
}

const sql = (open: () => Promise<TestDatabase>) => async (): Promise<Backend> => {
  const database = await open()
  return { adapter: SqlAdapter(database.db, { tables: database.tables, passwords: true, auditTrail: true }), close: () => database.close() }
}

async function openRedis(): Promise<Backend> {
  const client = createRedisClient(redisService().url, { commandTimeoutMs: 5_000, logger: { error() {}, warn() {} } })
  await new Promise((resolve) => client.once("ready", resolve))
  const prefix = `pcl-audit-attack-${crypto.randomUUID().slice(0, 8)}:`
  return {
    adapter: RedisAdapter(client, { prefix }),
    redis: client,
    close: async () => {
      const keys: string[] = []
      for await (const batch of client.scanStream({ match: `${prefix}*`, count: 500 })) keys.push(...(batch as string[]))
      if (keys.length) await client.del(...keys)
      client.disconnect()
    },
  }
}

const { service, postgres } = await postgresGate()
const redis = await redisAvailable()

/** Runs `suite` once per backend, each under its gate. */
export function onEveryBackend(suite: (label: string, open: () => Promise<Backend>) => void): void {
  describe("memory", () => suite("memory", async () => ({ adapter: MemoryAdapter(), close: async () => {} })))
  describe("SQLite", () => suite("SQLite", sql(() => openTestDatabase("sqlite"))))
  postgres.describe("PostgreSQL (gate)", () => suite("PostgreSQL", sql(() => openTestDatabase("postgres", { url: service.url }))))
  redis.describe("Redis (gate)", () => suite("Redis", openRedis))
}

/** Redis only (for what only its scan can show). */
export const onRedis = (suite: (open: () => Promise<Backend>) => void) => redis.describe("Redis (gate)", () => suite(openRedis))

/** The gates themselves, for suites that build their own stores on these services. */
export const gates = { postgres, redis }
