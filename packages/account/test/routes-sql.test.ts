/**
 * The account center's sections on real SQL adapters: SQLite (a file) and PostgreSQL, each
 * migrated with every Portcullis migration (the passkey name column among them).
 */
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, beforeEach, describe } from "vitest"
import { createPostgresKysely, createSqliteKysely } from "@portcullis/sql-adapter"
import { SqlTestDatabase } from "../../sql-adapter/test/harness.js"
import { postgres, postgresGate } from "../../organizations/test/sql-harness.js"
import { sectionSpecs } from "./routes.spec.js"

function onDatabase(database: SqlTestDatabase): () => ReturnType<SqlTestDatabase["adapter"]> {
  beforeAll(async () => {
    database.open(false)
    await database.migrate()
  })
  afterAll(() => database.close())
  // Each spec starts from empty tables (the specs reuse names such as ada@example.com).
  beforeEach(async () => {
    const t = database.tables
    for (const table of [t.auditRecords, t.passwords, t.twoFactor, t.locks, t.sessionRegistry, t.authenticators, t.verificationTokens, t.sessions, t.accounts, t.users]) {
      await database.db.deleteFrom(table).execute()
    }
  })
  return () => database.adapter({ passwords: true, sessionMetadata: true })
}

describe("SQLite", () => {
  const file = join(tmpdir(), `account-${process.pid}-${Date.now()}.sqlite`)
  sectionSpecs(onDatabase(new SqlTestDatabase("sqlite", (config) => createSqliteKysely(file, config), () => rm(file, { force: true }))))
})

postgresGate.describe("PostgreSQL", () => {
  sectionSpecs(onDatabase(new SqlTestDatabase("postgres", (config) => createPostgresKysely(postgres.url, config))))
})
