/**
 * Database sessions for the bench: both libraries run on the same `SqlAdapter` from the
 * built `@portcullis/sql-adapter`, over SQLite (a temp file) or PostgreSQL (tables with
 * names unique to the run, dropped at the end).
 *
 * The runner creates the database (`createBenchDatabase`), the bench user and, for each
 * measured row, a fresh session row, written through the adapter the same way for both
 * libraries (credentials sign-in with database sessions is refused by Auth.js, so the
 * bench cannot sign in through the server here). The server processes open the same
 * database from a `DbSpec` passed in the environment and count adapter writes.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Adapter } from "@portcullis/core/adapters"
import {
  createPostgresKysely,
  createSqliteKysely,
  DEFAULT_MIGRATION_TABLE,
  DEFAULT_TABLES,
  migrateToLatest,
  prefixedTables,
  SqlAdapter,
  type TableNames,
} from "@portcullis/sql-adapter"
import { BENCH_USER, sessionToken } from "./shared.ts"

export type BenchDialect = "sqlite" | "postgres"

/** PostgreSQL server for the PostgreSQL rows (override with BENCH_PG_URL). */
export const PG_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/** Where a bench database lives; serialised into the servers' environment. */
export interface DbSpec {
  dialect: BenchDialect
  /** SQLite: the file path; PostgreSQL: the URL. */
  location: string
  tables: TableNames
  migrationTableName: string
}

type Db = ReturnType<typeof createSqliteKysely>

export function openDb(spec: DbSpec): Db {
  return spec.dialect === "sqlite" ? createSqliteKysely(spec.location) : createPostgresKysely(spec.location)
}

/** Adapter methods that write. */
const WRITE_METHODS = [
  "createUser",
  "updateUser",
  "deleteUser",
  "linkAccount",
  "unlinkAccount",
  "createSession",
  "updateSession",
  "deleteSession",
  "createVerificationToken",
  "useVerificationToken",
  "createAuthenticator",
  "updateAuthenticatorCounter",
] as const

/** `adapter` with every write method counted into `counts` (by method name). */
export function countingAdapter(adapter: Adapter, counts: Record<string, number>): Adapter {
  const wrapped: Record<string, unknown> = { ...adapter }
  for (const method of WRITE_METHODS) {
    const fn = adapter[method] as ((...args: unknown[]) => unknown) | undefined
    if (typeof fn !== "function") continue
    wrapped[method] = (...args: unknown[]) => {
      counts[method] = (counts[method] ?? 0) + 1
      return fn.apply(adapter, args)
    }
  }
  return wrapped as Adapter
}

export interface BenchDatabase {
  spec: DbSpec
  /** Creates a session row for the bench user (expires in 30 days); returns the `Cookie` header. */
  newSession(): Promise<string>
  /** Creates session rows `0 … n-1` of `runId` (tokens from `sessionToken`, 30 days left). */
  seedSessions(runId: string, n: number): Promise<void>
  /** Drops the PostgreSQL tables / deletes the SQLite file, and disconnects. */
  close(): Promise<void>
}

const THIRTY_DAYS_MS = 30 * 24 * 60 * 60 * 1000

/**
 * Throws if PostgreSQL at `url` cannot be reached within `timeoutMs` (the pool Kysely
 * makes from a URL has no connect timeout, so the probe uses its own client).
 */
export async function probePostgres(url = PG_URL, timeoutMs = 3_000): Promise<void> {
  const { default: pg } = await import("pg")
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs })
  client.on("error", () => {})
  try {
    await client.connect()
    await client.query("select 1")
  } finally {
    await client.end().catch(() => {})
  }
}

/** Creates and migrates a database for the bench, with the bench user in it. */
export async function createBenchDatabase(dialect: BenchDialect): Promise<BenchDatabase> {
  let spec: DbSpec
  let tempDir: string | undefined
  if (dialect === "sqlite") {
    tempDir = mkdtempSync(join(tmpdir(), "portcullis-bench-"))
    spec = { dialect, location: join(tempDir, "auth.db"), tables: { ...DEFAULT_TABLES }, migrationTableName: DEFAULT_MIGRATION_TABLE }
  } else {
    // A shared server: every name is unique to this run, and dropped by close().
    const prefix = `bench_${randomBytes(4).toString("hex")}_`
    const tables = prefixedTables(prefix)
    spec = { dialect, location: PG_URL, tables, migrationTableName: `${prefix}migrations` }
  }
  const db = openDb(spec)
  const drop = async () => {
    if (dialect !== "postgres") return
    // Children first: the foreign keys point at users.
    const { tables: t, migrationTableName } = spec
    for (const table of [t.auditRecords, t.passwords, t.twoFactor, t.locks, t.sessionRegistry, t.rateLimits, t.authenticators, t.verificationTokens, t.sessions, t.accounts, t.users, migrationTableName, `${migrationTableName}_lock`]) {
      await db.schema.dropTable(table).ifExists().execute()
    }
  }
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    try {
      await drop()
    } finally {
      await db.destroy()
      if (tempDir) rmSync(tempDir, { recursive: true, force: true })
    }
  }
  try {
    await migrateToLatest(db, { dialect, tables: spec.tables, migrationTableName: spec.migrationTableName })
    const adapter = SqlAdapter(db, { tables: spec.tables })
    await adapter.createUser!({ ...BENCH_USER, emailVerified: null })
    return {
      spec,
      async newSession() {
        const sessionToken = randomBytes(32).toString("hex")
        await adapter.createSession!({ sessionToken, userId: BENCH_USER.id, expires: new Date(Date.now() + THIRTY_DAYS_MS) })
        return `authjs.session-token=${sessionToken}`
      },
      async seedSessions(runId, n) {
        const expires = new Date(Date.now() + THIRTY_DAYS_MS)
        for (let i = 0; i < n; i++) await adapter.createSession!({ sessionToken: sessionToken(runId, i), userId: BENCH_USER.id, expires })
      },
      close,
    }
  } catch (error) {
    await close().catch(() => {})
    throw error
  }
}
