/**
 * The scale rows' "index plan checked" (issue 35), as a test rather than a timing: the
 * query `SqlAdapter` sends for a session check (caught from Kysely's log hook) finds the
 * session through the unique index on its token — on a small table, SQLite and
 * PostgreSQL. With the index dropped, the same check must see the scan: the assertion
 * can fail.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sql } from "kysely"
import { afterAll, describe, expect, it } from "vitest"
import { postgresAvailable, postgresService } from "@portcullis/adapter-test"
import { createPostgresKysely, createSqliteKysely, DEFAULT_MIGRATION_TABLE, DEFAULT_TABLES, migrateToLatest, prefixedTables } from "@portcullis/sql-adapter"
import type { DbSpec } from "./db.ts"
import { seedSql, sessionLookupPlan, usesIndex } from "./scale.ts"

const postgres = await postgresAvailable()

describe("the session lookup's plan on SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "portcullis-plan-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("searches the sessions table by the token's unique index", async () => {
    const spec: DbSpec = { dialect: "sqlite", location: join(dir, "auth.db"), tables: { ...DEFAULT_TABLES }, migrationTableName: DEFAULT_MIGRATION_TABLE }
    const db = createSqliteKysely(spec.location)
    try {
      await migrateToLatest(db, { dialect: "sqlite", tables: spec.tables, migrationTableName: spec.migrationTableName })
      await seedSql(db, spec, 2_000)
      const plan = await sessionLookupPlan("sqlite", spec)
      expect(plan.join("\n")).toMatch(/SEARCH \S+ USING (COVERING )?INDEX \S*sessionToken/)
      expect(usesIndex(plan, "sqlite", spec.tables.sessions)).toBe(true)
      await sql`drop index ${sql.ref(`${spec.tables.sessions}_sessionToken_key`)}`.execute(db)
      const without = await sessionLookupPlan("sqlite", spec)
      expect(usesIndex(without, "sqlite", spec.tables.sessions)).toBe(false)
    } finally {
      await db.destroy()
    }
  })
})

postgres.describe("the session lookup's plan on PostgreSQL", () => {
  it("reads the sessions table by an index scan on the token, never a sequential scan", async () => {
    const prefix = `plan_${randomBytes(4).toString("hex")}_`
    const url = postgresService().url
    const spec: DbSpec = { dialect: "postgres", location: url, tables: prefixedTables(prefix), migrationTableName: `${prefix}migrations` }
    const db = createPostgresKysely(url)
    try {
      await migrateToLatest(db, { dialect: "postgres", tables: spec.tables, migrationTableName: spec.migrationTableName })
      await seedSql(db, spec, 5_000)
      const plan = await sessionLookupPlan("postgres", spec)
      expect(plan.join("\n")).toMatch(/Index (Only )?Scan using \S*sessionToken\S* on /)
      expect(usesIndex(plan, "postgres", spec.tables.sessions)).toBe(true)
      await sql`drop index ${sql.ref(`${spec.tables.sessions}_sessionToken_key`)}`.execute(db)
      await sql`analyze ${sql.table(spec.tables.sessions)}`.execute(db)
      const without = await sessionLookupPlan("postgres", spec)
      expect(usesIndex(without, "postgres", spec.tables.sessions)).toBe(false)
    } finally {
      const t = spec.tables
      for (const table of [t.auditRecords, t.passwords, t.twoFactor, t.locks, t.sessionRegistry, t.rateLimits, t.authenticators, t.verificationTokens, t.sessions, t.accounts, t.users, spec.migrationTableName, `${spec.migrationTableName}_lock`]) {
        await db.schema.dropTable(table).ifExists().execute()
      }
      await db.destroy()
    }
  })
})
