/**
 * Throwaway databases for tests: a migrated SQLite file in a temp folder, or a set of
 * PostgreSQL tables under a random prefix, each dropped again by `close()`. Suites that
 * share one server never see each other's rows.
 *
 * @example
 * ```ts
 * import { openTestDatabase } from "@portcullis/sql-adapter/testing"
 *
 * const database = await openTestDatabase("sqlite")
 * const config = { adapter: database.adapter, providers: [] }
 * // … afterAll(() => database.close())
 * ```
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Kysely } from "kysely"
import type { Adapter } from "@portcullis/core/adapters"
import { SqlAdapter } from "./adapter.js"
import { createPostgresKysely } from "./connect.js"
import { migrateToLatest } from "./migrations.js"
import { createSqliteKysely } from "./sqlite.js"
import { DEFAULT_TABLES, prefixedTables, type TableNames } from "./tables.js"

/** A migrated database for one test run. */
export interface TestDatabase {
  db: Kysely<any>
  tables: TableNames
  adapter: Adapter
  /** Drops what it created and closes the connection. */
  close(): Promise<void>
}

/**
 * Opens a migrated throwaway database. PostgreSQL uses `url` (default
 * `PORTCULLIS_PG_URL`, else `postgres://postgres@127.0.0.1:5432/test`).
 */
export async function openTestDatabase(dialect: "sqlite" | "postgres", options: { url?: string } = {}): Promise<TestDatabase> {
  if (dialect === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "portcullis-test-"))
    const db = createSqliteKysely(join(dir, "auth.sqlite"))
    await migrateToLatest(db, { dialect })
    return {
      db,
      tables: { ...DEFAULT_TABLES },
      adapter: SqlAdapter(db, { passwords: true }),
      close: async () => {
        await db.destroy()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }
  const prefix = `pt${crypto.randomUUID().slice(0, 8)}_`
  const tables = prefixedTables(prefix)
  const url = options.url ?? process.env.PORTCULLIS_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test"
  const db = createPostgresKysely(url)
  const migrationTableName = `${prefix}migrations`
  await migrateToLatest(db, { dialect, tables, migrationTableName })
  return {
    db,
    tables,
    adapter: SqlAdapter(db, { tables, passwords: true }),
    close: async () => {
      // Children first: the foreign keys point at users.
      for (const t of [tables.auditRecords, tables.passwords, tables.twoFactor, tables.locks, tables.sessionRegistry, tables.rateLimits, tables.authenticators, tables.sessions, tables.accounts, tables.verificationTokens, tables.users, migrationTableName, `${migrationTableName}_lock`]) {
        await db.schema.dropTable(t).ifExists().cascade().execute()
      }
      await db.destroy()
    },
  }
}
