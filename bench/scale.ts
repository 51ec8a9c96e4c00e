/**
 * The scale rows' stores (issue 35): database sessions at 1,000 / 100,000 / 1,000,000
 * stored sessions on PostgreSQL, SQLite and Redis, for both libraries.
 *
 * - PostgreSQL: Portcullis's schema (`migrateToLatest`, tables `bench_scale_<n>_*`) read by
 *   `SqlAdapter`; Auth.js's documented schema for `@auth/pg-adapter` (in a schema of its
 *   own, `bench_scale_authjs_<n>`, since that adapter names its tables `users`,
 *   `sessions`, …), read by `@auth/pg-adapter`.
 * - SQLite: one file per size (`<tmpdir>/portcullis-bench-scale/sqlite-<n>.db`), read by
 *   `SqlAdapter` in both libraries, as the other SQLite rows do.
 * - Redis: `RedisAdapter`'s keys under `bench-scale:<n>:`; `@auth/unstorage-adapter` on
 *   unstorage's Redis driver under `bench-scale-authjs:<n>`.
 *
 * Rows are written in bulk — one `INSERT … SELECT` over `generate_series` (PostgreSQL) or a
 * recursive CTE (SQLite), pipelined `SET`s on Redis — and a store is reused across runs
 * when it holds exactly the sessions wanted: the count is checked, and a marker written
 * last says the seeding finished. Sessions expire a year after seeding, so a reused store
 * is months away from `updateAge` (no check writes) and from expiry. Every session belongs
 * to the bench user: the check reads a session and its user, whatever the user count.
 * (Redis: the per-user index of sessions is left out — one user holding a million sessions
 * is not a deployment, and no check reads it.)
 *
 * `sessionLookupPlan` gives the query plan of each library's session lookup: the run prints
 * it, and `bench/index-plan.test.ts` asserts Portcullis's uses its index.
 */
import { mkdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CompiledQuery, sql, type Kysely } from "kysely"
import { createPostgresKysely, createSqliteKysely, migrateToLatest, prefixedTables, SqlAdapter, DEFAULT_TABLES, DEFAULT_MIGRATION_TABLE } from "@portcullis/sql-adapter"
import type { DbSpec } from "./db.ts"
import { PG_URL } from "./db.ts"
import { BENCH_USER, sessionToken } from "./shared.ts"

export type ScaleStore = "postgres" | "sqlite" | "redis"

/** The run id of every scale store's session tokens: fixed, so stores can be reused across runs. */
export const SCALE_RUN_ID = "5ca1e5ca1e5ca1e5ca1e5ca1"
/** Stored sessions per scale row (`BENCH_SCALE_SIZES`, comma-separated, for short checks). */
export const SCALE_SIZES: readonly number[] = (process.env.BENCH_SCALE_SIZES ?? "1000,100000,1000000").split(",").map((s) => Number(s.trim())).filter((n) => Number.isSafeInteger(n) && n > 0)
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/15"
/** Environment variable carrying a Redis target's store (`{ url, prefix }`, JSON). */
export const REDIS_ENV = "BENCH_REDIS"
/** Environment variable carrying the `@auth/pg-adapter` target's store (`{ url, schema }`, JSON). */
export const AUTHJS_PG_ENV = "BENCH_AUTHJS_PG"

const YEAR_MS = 365 * 24 * 60 * 60 * 1000
/** A reused store must leave this much of its sessions' year: far from `updateAge` and expiry. */
const MIN_LEFT_MS = 60 * 24 * 60 * 60 * 1000
/** How many cookies a scale row rotates through, spread evenly over the store. */
const ROTATION = 100_000

/** The cookies a scale row sends: up to 100,000 sessions spread evenly over the `n` stored. */
export function scaleCookies(n: number): string[] {
  const count = Math.min(n, ROTATION)
  const step = n / count
  return Array.from({ length: count }, (_, i) => `authjs.session-token=${sessionToken(SCALE_RUN_ID, Math.floor(i * step))}`)
}

/** What one scale row's server gets in its environment, by library. */
export interface ScaleEnv {
  portcullis: Record<string, string>
  authjs: Record<string, string>
  /** The query plans of the two libraries' session lookups (printed with the rows). */
  plans: { portcullis: string[]; authjs: string[] }
  /** How the store was made ready: reused, or seeded in how many seconds. */
  note: string
}

type Log = (line: string) => void

/** Makes the store of `(store, n)` ready for both libraries (reused or seeded) and returns the servers' environments. */
export async function prepareScaleStore(store: ScaleStore, n: number, dbEnv: string, log: Log): Promise<ScaleEnv> {
  if (store === "postgres") return preparePostgres(n, dbEnv, log)
  if (store === "sqlite") return prepareSqlite(n, dbEnv, log)
  return prepareRedis(n, log)
}

const expiresAt = () => new Date(Date.now() + YEAR_MS)

// ---- PostgreSQL ------------------------------------------------------------------------

async function preparePostgres(n: number, dbEnv: string, log: Log): Promise<ScaleEnv> {
  const prefix = `bench_scale_${n}_`
  const spec: DbSpec = { dialect: "postgres", location: PG_URL, tables: prefixedTables(prefix), migrationTableName: `${prefix}migrations` }
  const schema = `bench_scale_authjs_${n}`
  const started = Date.now()
  const notes: string[] = []
  // Seeding a million rows (and building their index) takes longer than the pool's default
  // 5 s statement timeout: this connection allows ten minutes.
  const db = createPostgresKysely(PG_URL, { pool: { queryTimeoutMs: 600_000 } })
  try {
    if (await countFresh(db, spec.tables.sessions, n)) notes.push("Portcullis tables reused")
    else {
      await migrateToLatest(db, { dialect: "postgres", tables: spec.tables, migrationTableName: spec.migrationTableName })
      await seedSql(db, spec, n)
      notes.push(`Portcullis tables seeded`)
    }
    if (await countFresh(db, `${schema}.sessions`, n)) notes.push("Auth.js tables reused")
    else {
      await seedAuthjsPostgres(db, schema, n)
      notes.push("Auth.js tables seeded")
    }
    const plans = {
      portcullis: await sessionLookupPlan("postgres", spec),
      authjs: await explainPostgres(db, `select * from ${schema}.sessions where "sessionToken" = $1`, [sessionToken(SCALE_RUN_ID, n - 1)]),
    }
    log(`  PostgreSQL, ${n.toLocaleString("en-US")} sessions: ${notes.join(", ")} (${((Date.now() - started) / 1000).toFixed(1)} s)`)
    return {
      portcullis: { [dbEnv]: JSON.stringify(spec) },
      authjs: { [AUTHJS_PG_ENV]: JSON.stringify({ url: PG_URL, schema }) },
      plans,
      note: notes.join(", "),
    }
  } finally {
    await db.destroy()
  }
}

/**
 * Whether `table` holds exactly `n` sessions of the scale run, none of them within
 * `MIN_LEFT_MS` of expiry (a missing table is "no").
 */
async function countFresh(db: Kysely<any>, table: string, n: number): Promise<boolean> {
  try {
    const quoted = table.split(".").map((part) => `"${part}"`).join(".")
    const { rows } = await sql<{ count: string | number; soonest: unknown }>`select count(*) as count, min(expires) as soonest from ${sql.raw(quoted)} where "sessionToken" like ${`${SCALE_RUN_ID}%`}`.execute(db)
    const row = rows[0]
    if (!row || Number(row.count) !== n) return false
    const soonest = row.soonest instanceof Date ? row.soonest.getTime() : new Date(String(row.soonest)).getTime()
    return soonest - Date.now() > MIN_LEFT_MS
  } catch {
    return false
  }
}

/**
 * `n` sessions through `SqlAdapter`'s own schema: the first through the adapter (so its
 * columns hold what the adapter writes), the rest copied from it in one statement.
 */
export async function seedSql(db: Kysely<any>, spec: DbSpec, n: number): Promise<void> {
  const t = spec.tables
  await sql`delete from ${sql.table(t.sessions)}`.execute(db)
  await sql`delete from ${sql.table(t.users)}`.execute(db)
  const adapter = SqlAdapter(db, { tables: t })
  await adapter.createUser!({ ...BENCH_USER, emailVerified: null })
  const expires = expiresAt()
  await adapter.createSession!({ sessionToken: sessionToken(SCALE_RUN_ID, 0), userId: BENCH_USER.id, expires })
  if (n === 1) return
  const { rows } = await sql<{ expires: unknown }>`select expires from ${sql.table(t.sessions)}`.execute(db)
  const stored = rows[0]!.expires
  if (spec.dialect === "postgres") {
    await sql`insert into ${sql.table(t.sessions)} (id, "sessionToken", "userId", expires)
      select 's' || i, ${SCALE_RUN_ID} || lpad(to_hex(i), 8, '0'), ${BENCH_USER.id}, ${stored}
      from generate_series(1, ${n - 1}) as i`.execute(db)
    await sql`analyze ${sql.table(t.sessions)}`.execute(db)
  } else {
    await sql`with recursive seq(i) as (select 1 union all select i + 1 from seq where i < ${n - 1})
      insert into ${sql.table(t.sessions)} (id, "sessionToken", "userId", expires)
      select 's' || i, ${SCALE_RUN_ID} || printf('%08x', i), ${BENCH_USER.id}, ${stored} from seq`.execute(db)
    await sql`analyze`.execute(db)
  }
}

/** Auth.js's documented PostgreSQL schema for `@auth/pg-adapter` (as its docs give it: no index on `sessionToken`), and `n` sessions. */
async function seedAuthjsPostgres(db: Kysely<any>, schema: string, n: number): Promise<void> {
  const s = sql.raw(`"${schema}"`)
  await sql`drop schema if exists ${s} cascade`.execute(db)
  await sql`create schema ${s}`.execute(db)
  await sql`create table ${s}.verification_token (identifier text not null, expires timestamptz not null, token text not null, primary key (identifier, token))`.execute(db)
  await sql`create table ${s}.accounts (id serial, "userId" integer not null, type varchar(255) not null, provider varchar(255) not null, "providerAccountId" varchar(255) not null, refresh_token text, access_token text, expires_at bigint, id_token text, scope text, session_state text, token_type text, primary key (id))`.execute(db)
  await sql`create table ${s}.sessions (id serial, "userId" integer not null, expires timestamptz not null, "sessionToken" varchar(255) not null, primary key (id))`.execute(db)
  await sql`create table ${s}.users (id serial, name varchar(255), email varchar(255), "emailVerified" timestamptz, image text, primary key (id))`.execute(db)
  await sql`insert into ${s}.users (id, name, email) values (${Number(BENCH_USER.id)}, ${BENCH_USER.name}, ${BENCH_USER.email})`.execute(db)
  await sql`insert into ${s}.sessions ("userId", expires, "sessionToken")
    select ${Number(BENCH_USER.id)}, ${expiresAt()}, ${SCALE_RUN_ID} || lpad(to_hex(i), 8, '0') from generate_series(0, ${n - 1}) as i`.execute(db)
  await sql`analyze ${s}.sessions`.execute(db)
}

async function explainPostgres(db: Kysely<any>, query: string, parameters: unknown[]): Promise<string[]> {
  const { rows } = await db.executeQuery<{ "QUERY PLAN": string }>(CompiledQuery.raw(`explain ${query}`, parameters))
  return rows.map((r) => r["QUERY PLAN"])
}

/**
 * The plan of `SqlAdapter`'s session lookup on `spec`'s tables: the query the adapter
 * sends (caught through Kysely's log hook), explained (`EXPLAIN` on PostgreSQL, `EXPLAIN
 * QUERY PLAN` on SQLite) on the same fresh connection — a connection that kept an earlier
 * explain's statement could answer with the plan of before a schema change.
 */
export async function sessionLookupPlan(dialect: "postgres" | "sqlite", spec: DbSpec): Promise<string[]> {
  const caught: { sql: string; parameters: readonly unknown[] }[] = []
  const log = (event: { level: string; query: { sql: string; parameters: readonly unknown[] } }) => {
    if (event.level === "query") caught.push(event.query)
  }
  // With the log hook, SQLite's session read stays on Kysely's road (the direct read bypasses the hook): the same SQL.
  const spy = dialect === "postgres" ? createPostgresKysely(spec.location, { log }) : createSqliteKysely(spec.location, { log })
  try {
    await SqlAdapter(spy, { tables: spec.tables }).getSessionAndUser!(sessionToken(SCALE_RUN_ID, 0))
    const query = caught.find((q) => /from/i.test(q.sql) && q.sql.includes(spec.tables.sessions))
    if (!query) throw new Error("the session lookup sent no query naming the sessions table")
    if (dialect === "postgres") return await explainPostgres(spy, query.sql, [...query.parameters])
    const { rows } = await spy.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]))
    return rows.map((r) => r.detail)
  } finally {
    await spy.destroy()
  }
}

/**
 * Whether a plan finds the session by the unique index on its token, never by a full scan
 * of the sessions table: an index scan on it (PostgreSQL), or a `SEARCH <alias> USING
 * INDEX <…sessionToken…>` and no `SCAN <alias>` (SQLite). The user is joined by its
 * primary key; with one user in the table a planner may rightly scan that one row.
 */
export function usesIndex(plan: readonly string[], dialect: "postgres" | "sqlite", sessionsTable: string): boolean {
  if (dialect === "postgres") {
    const seq = new RegExp(`Seq Scan on "?${sessionsTable}"?( |$)`)
    return !plan.some((l) => seq.test(l)) && plan.some((l) => /Index (Only )?Scan using \S*sessionToken\S* on /i.test(l) && l.includes(sessionsTable))
  }
  const search = plan.map((l) => /^SEARCH (\S+) USING (?:COVERING )?INDEX \S*sessionToken/i.exec(l.trim())).find((m) => m)
  return search !== undefined && search !== null && !plan.some((l) => l.trim() === `SCAN ${search[1]}` || l.trim().startsWith(`SCAN ${search[1]} `))
}

// ---- SQLite ----------------------------------------------------------------------------

async function prepareSqlite(n: number, dbEnv: string, log: Log): Promise<ScaleEnv> {
  const dir = join(tmpdir(), "portcullis-bench-scale")
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `sqlite-${n}.db`)
  const spec: DbSpec = { dialect: "sqlite", location: file, tables: { ...DEFAULT_TABLES }, migrationTableName: DEFAULT_MIGRATION_TABLE }
  const started = Date.now()
  let note = "reused"
  let db = createSqliteKysely(file)
  try {
    if (!(await countFresh(db, spec.tables.sessions, n))) {
      await db.destroy()
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true })
      db = createSqliteKysely(file)
      await migrateToLatest(db, { dialect: "sqlite", tables: spec.tables, migrationTableName: spec.migrationTableName })
      await seedSql(db, spec, n)
      note = "seeded"
    }
    const plan = await sessionLookupPlan("sqlite", spec)
    log(`  SQLite, ${n.toLocaleString("en-US")} sessions: ${note} (${((Date.now() - started) / 1000).toFixed(1)} s)`)
    const env = { [dbEnv]: JSON.stringify(spec) }
    return { portcullis: env, authjs: env, plans: { portcullis: plan, authjs: plan }, note }
  } finally {
    await db.destroy()
  }
}

// ---- Redis -----------------------------------------------------------------------------

async function prepareRedis(n: number, log: Log): Promise<ScaleEnv> {
  const { Redis } = await import("ioredis")
  const { encode } = await import("../packages/redis-adapter/dist/json.js")
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: true })
  const started = Date.now()
  const notes: string[] = []
  const prefix = `bench-scale:${n}:`
  const base = `bench-scale-authjs:${n}`
  try {
    const marker = JSON.stringify({ n, run: SCALE_RUN_ID })
    const fresh = async (markerKey: string, sampleKey: string) => {
      if ((await client.get(markerKey)) !== marker) return false
      const ttl = await client.pttl(sampleKey)
      return ttl === -1 || ttl > MIN_LEFT_MS
    }
    // Portcullis's RedisAdapter: `<prefix>session:<token>` (JSON, expiring with the session) and `<prefix>user:<id>`.
    if (await fresh(`${prefix}bench-seeded`, `${prefix}session:${sessionToken(SCALE_RUN_ID, 0)}`)) notes.push("Portcullis keys reused")
    else {
      await deleteUnder(client, prefix)
      const { RedisAdapter } = await import("@portcullis/redis-adapter")
      const adapter = RedisAdapter(client, { prefix, logger: { error() {}, warn() {} } })
      await adapter.createUser!({ ...BENCH_USER, emailVerified: null })
      const expires = expiresAt()
      await pipelined(client, n, (pipeline, i) => {
        const token = sessionToken(SCALE_RUN_ID, i)
        pipeline.set(`${prefix}session:${token}`, encode({ sessionToken: token, userId: BENCH_USER.id, expires }), "PXAT", expires.getTime())
      })
      await client.set(`${prefix}bench-seeded`, marker)
      notes.push("Portcullis keys seeded")
    }
    // @auth/unstorage-adapter on unstorage's Redis driver: `<base>:user:session:<token>` and `<base>:user:<id>`, JSON strings.
    if (await fresh(`${base}:bench-seeded`, `${base}:user:session:${sessionToken(SCALE_RUN_ID, 0)}`)) notes.push("Auth.js keys reused")
    else {
      await deleteUnder(client, `${base}:`)
      await client.set(`${base}:user:${BENCH_USER.id}`, JSON.stringify({ ...BENCH_USER, emailVerified: null }))
      const expires = expiresAt().toISOString()
      await pipelined(client, n, (pipeline, i) => {
        const token = sessionToken(SCALE_RUN_ID, i)
        pipeline.set(`${base}:user:session:${token}`, JSON.stringify({ sessionToken: token, userId: BENCH_USER.id, expires }))
      })
      await client.set(`${base}:bench-seeded`, marker)
      notes.push("Auth.js keys seeded")
    }
    log(`  Redis, ${n.toLocaleString("en-US")} sessions: ${notes.join(", ")} (${((Date.now() - started) / 1000).toFixed(1)} s)`)
    return {
      portcullis: { [REDIS_ENV]: JSON.stringify({ url: REDIS_URL, prefix }) },
      authjs: { [REDIS_ENV]: JSON.stringify({ url: REDIS_URL, prefix: base }) },
      plans: { portcullis: ["one EVAL: GET the session key, GET its user (a key lookup)"], authjs: ["two GETs: the session key, then its user (key lookups)"] },
      note: notes.join(", "),
    }
  } finally {
    client.disconnect()
  }
}

type Pipeline = ReturnType<import("ioredis").Redis["pipeline"]>

/** Runs `add(pipeline, i)` for `i < n` in pipelines of 10,000 commands, waiting for each. */
async function pipelined(client: import("ioredis").Redis, n: number, add: (pipeline: Pipeline, i: number) => void): Promise<void> {
  for (let start = 0; start < n; start += 10_000) {
    const pipeline = client.pipeline()
    for (let i = start; i < Math.min(n, start + 10_000); i++) add(pipeline, i)
    const replies = await pipeline.exec()
    const failed = replies?.find(([error]) => error)
    if (failed) throw failed[0]
  }
}

/** Deletes every key under `prefix` (SCAN + UNLINK). */
export async function deleteUnder(client: import("ioredis").Redis, prefix: string): Promise<void> {
  let cursor = "0"
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 10_000)
    cursor = next
    if (keys.length) await client.unlink(...keys)
  } while (cursor !== "0")
}
