/**
 * Store footprint (issue 35): what one session, one JWT registry entry and one rate-limit
 * key cost in Redis (`MEMORY USAGE`, summed over every key written, `SAMPLES 0` so
 * aggregates are counted whole) and in PostgreSQL (`pg_total_relation_size` — table,
 * indexes and TOAST — over rows), each written through the real store (`RedisAdapter`,
 * `RedisSessionRegistry`, `redisRateLimitStore`; `SqlAdapter`, `SqlSessionRegistry`,
 * `sqlRateLimitStore`) under names unique to the run, deleted afterwards; and the RSS of
 * 100,000 cached JWT sessions in a Node process (`bench/footprint-jwt.ts`).
 *
 * Registry entries: 10 sessions per user (a user's entries share one hash in Redis).
 * Rate-limit keys: one hit each on distinct keys (what one client address or account costs).
 */
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { sql } from "kysely"
import { createPostgresKysely, migrateToLatest, prefixedTables, SqlAdapter, SqlSessionRegistry } from "@portcullis/sql-adapter"
import { sqlRateLimitStore } from "@portcullis/sql-adapter/rate-limit"
import { PG_URL, probePostgres } from "./db.ts"
import { deleteUnder, REDIS_URL } from "./scale.ts"
import { BENCH_USER } from "./shared.ts"

/** Records written per measure: enough that a table's first pages and a hash's header are noise. */
const COUNT = Number(process.env.BENCH_FOOTPRINT_COUNT ?? 20_000)
const DAY = 24 * 60 * 60 * 1000

export interface FootprintRow {
  store: "Redis" | "PostgreSQL" | "Node process"
  what: string
  bytes: number
  note: string
}

/** Every footprint row the machine can give (a store that does not answer is one line saying so). */
export async function measureFootprint(log: (line: string) => void): Promise<FootprintRow[]> {
  const rows: FootprintRow[] = []
  try {
    rows.push(...(await redisFootprint()))
  } catch (error) {
    log(`  Redis footprint skipped: ${(error as Error).message}`)
  }
  try {
    await probePostgres()
    rows.push(...(await postgresFootprint()))
  } catch (error) {
    log(`  PostgreSQL footprint skipped: ${(error as Error).message}`)
  }
  rows.push(await jwtCacheFootprint())
  return rows
}

const hex = (bytes: number) => randomBytes(bytes).toString("hex")
const sessionId = () => hex(16)

async function redisFootprint(): Promise<FootprintRow[]> {
  const { Redis } = await import("ioredis")
  const { RedisAdapter, RedisSessionRegistry } = await import("@portcullis/redis-adapter")
  const { redisRateLimitStore } = await import("@portcullis/redis-adapter/rate-limit")
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 3_000, lazyConnect: true })
  await client.connect()
  const root = `bench-footprint:${hex(4)}:`
  /** `MEMORY USAGE … SAMPLES 0` summed over every key under `prefix`. */
  const usage = async (prefix: string) => {
    let total = 0
    let cursor = "0"
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 10_000)
      cursor = next
      const pipeline = client.pipeline()
      for (const key of keys) pipeline.memory("USAGE", key, "SAMPLES", 0)
      for (const [error, bytes] of (await pipeline.exec()) ?? []) if (!error) total += Number(bytes)
    } while (cursor !== "0")
    return total
  }
  try {
    const rows: FootprintRow[] = []
    // Sessions: the session key (JSON, expiring) and its entry in the user's sorted set of sessions.
    const adapter = RedisAdapter(client, { prefix: `${root}a:`, logger: { error() {}, warn() {} } })
    const users = COUNT / 10
    for (let u = 0; u < users; u++) await adapter.createUser!({ id: `u${u}`, name: BENCH_USER.name, email: `u${u}@example.com`, emailVerified: null })
    const withUsers = await usage(`${root}a:`)
    const expires = new Date(Date.now() + 30 * DAY)
    await inBatches(COUNT, (i) => adapter.createSession!({ sessionToken: hex(32), userId: `u${i % users}`, expires }))
    rows.push({ store: "Redis", what: "database session (RedisAdapter)", bytes: (await usage(`${root}a:`) - withUsers) / COUNT, note: `${COUNT.toLocaleString("en-US")} sessions of ${users.toLocaleString("en-US")} users: the session key and its sorted-set entry` })

    const registry = new RedisSessionRegistry(client, { prefix: `${root}r:` })
    const now = new Date()
    await inBatches(COUNT, (i) => registry.add({ id: sessionId(), userId: `u${i % users}`, createdAt: now, lastSeenAt: now, expires, userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36", ipAddress: "203.0.113.7" }))
    rows.push({ store: "Redis", what: "JWT registry entry (RedisSessionRegistry)", bytes: (await usage(`${root}r:`)) / COUNT, note: "10 per user, with a user agent and an address" })

    const limits = redisRateLimitStore(client, { prefix: `${root}rl` })
    await inBatches(COUNT, (i) => limits.hit(`signin:ip:198.51.${(i >> 8) & 255}.${i & 255}:${i}`, 900))
    rows.push({ store: "Redis", what: "rate-limit key (redisRateLimitStore)", bytes: (await usage(`${root}rl`)) / COUNT, note: "one hit on each of distinct keys" })
    return rows
  } finally {
    await deleteUnder(client, root).catch(() => {})
    client.disconnect()
  }
}

async function postgresFootprint(): Promise<FootprintRow[]> {
  const prefix = `bench_fp_${hex(4)}_`
  const tables = prefixedTables(prefix)
  const migrationTableName = `${prefix}migrations`
  const db = createPostgresKysely(PG_URL)
  const size = async (table: string) => {
    await sql`vacuum analyze ${sql.table(table)}`.execute(db)
    const { rows } = await sql<{ bytes: string; n: string }>`select pg_total_relation_size(${table}::regclass) as bytes, (select count(*) from ${sql.table(table)}) as n`.execute(db)
    return Number(rows[0]!.bytes) / Number(rows[0]!.n)
  }
  try {
    await migrateToLatest(db, { dialect: "postgres", tables, migrationTableName })
    const adapter = SqlAdapter(db, { tables })
    const users = COUNT / 10
    for (let u = 0; u < users; u += 500) {
      await sql`insert into ${sql.table(tables.users)} (id, name, email) select 'u' || i, ${BENCH_USER.name}, 'u' || i || '@example.com' from generate_series(${u}::int, ${Math.min(users, u + 500) - 1}::int) as i`.execute(db)
    }
    const expires = new Date(Date.now() + 30 * DAY)
    await inBatches(COUNT, (i) => adapter.createSession!({ sessionToken: hex(32), userId: `u${i % users}`, expires }))
    const rows: FootprintRow[] = [{ store: "PostgreSQL", what: "database session (SqlAdapter)", bytes: await size(tables.sessions), note: "table + its token and user indexes" }]

    const registry = new SqlSessionRegistry(db, { tables })
    const now = new Date()
    await inBatches(COUNT, (i) => registry.add({ id: sessionId(), userId: `u${i % users}`, createdAt: now, lastSeenAt: now, expires, userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36", ipAddress: "203.0.113.7" }))
    rows.push({ store: "PostgreSQL", what: "JWT registry entry (SqlSessionRegistry)", bytes: await size(tables.sessionRegistry), note: "with a user agent and an address; table + indexes" })

    const limits = sqlRateLimitStore(db, { tables })
    await inBatches(COUNT, (i) => limits.hit(`signin:ip:198.51.${(i >> 8) & 255}.${i & 255}:${i}`, 900))
    rows.push({ store: "PostgreSQL", what: "rate-limit key (sqlRateLimitStore)", bytes: await size(tables.rateLimits), note: "one hit on each of distinct keys; table + indexes" })
    return rows
  } finally {
    const t = tables
    for (const table of [t.auditRecords, t.passwords, t.twoFactor, t.locks, t.sessionRegistry, t.rateLimits, t.authenticators, t.verificationTokens, t.sessions, t.accounts, t.users, migrationTableName, `${migrationTableName}_lock`]) {
      await db.schema.dropTable(table).ifExists().execute().catch(() => {})
    }
    await db.destroy()
  }
}

/** Runs `write(i)` for `i < n`, 100 at a time. */
async function inBatches(n: number, write: (i: number) => unknown): Promise<void> {
  for (let start = 0; start < n; start += 100) {
    await Promise.all(Array.from({ length: Math.min(100, n - start) }, (_, k) => write(start + k)))
  }
}

/** RSS and heap of 100,000 cached JWT sessions, measured in a process of their own (`footprint-jwt.ts`). */
async function jwtCacheFootprint(): Promise<FootprintRow> {
  const script = fileURLToPath(new URL("./footprint-jwt.ts", import.meta.url))
  const { stdout } = await promisify(execFile)(process.execPath, ["--expose-gc", script], { maxBuffer: 1 << 20, timeout: 600_000 })
  const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as { sessions: number; rss: number; heap: number; external: number; configs: number }
  return {
    store: "Node process",
    what: `${result.sessions.toLocaleString("en-US")} cached JWT sessions (verified-token cache)`,
    bytes: result.rss,
    note: `RSS growth after a full GC (heap ${(result.heap / 1024 / 1024).toFixed(1)} MB); ${result.configs} configurations × 10,000 (the cache's bound per configuration)`,
  }
}
