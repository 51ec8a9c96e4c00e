/**
 * Every impersonation store passes the conformance suite: memory, SQLite, PostgreSQL, MariaDB
 * and Redis (the services on loopback; skipped locally without them, failed in CI — the
 * adapter suite's service gate). Then what only the SQL store has: its pruning, and its
 * answer when the database is down.
 */
import { randomBytes } from "node:crypto"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Kysely } from "kysely"
import { describe, expect, it } from "vitest"
import { createMysqlKysely, createPostgresKysely, createSqliteKysely } from "@portcullis/sql-adapter"
import { memoryImpersonationStore } from "@portcullis/admin/memory"
import { impersonationTable, migrateAdmin, sqlImpersonationStore } from "@portcullis/admin/sql"
import { redisImpersonationStore } from "@portcullis/admin/redis"
import { impersonationStoreConformance } from "@portcullis/admin/testing"
import { connectRedis, deleteKeys, redisGate } from "../../organizations/test/redis-harness.js"
import { mariadb, mariadbGate, postgres, postgresGate } from "../../organizations/test/sql-harness.js"
import { pgbouncerAvailable, pgbouncerService } from "@portcullis/adapter-test"

// The same specs through PgBouncer in transaction pooling mode (scripts/pgbouncer.sh): no
// statement may rely on the server connection of the one before it. Migrated on a direct
// connection, as docs/deploy.md advises for extensions' migrations.
const pgbouncerGate = await pgbouncerAvailable()

impersonationStoreConformance("memory", async () => ({ store: memoryImpersonationStore(), close: async () => {} }))

/** Migrates on `migrateOn` when given (a direct connection, behind a pooler), else on `db`. */
async function migrated(db: Kysely<any>, migrateOn?: () => Kysely<any>) {
  const tablePrefix = `t${randomBytes(4).toString("hex")}_`
  const migrator = migrateOn?.()
  try {
    await migrateAdmin(migrator ?? db, { tablePrefix })
  } finally {
    await migrator?.destroy()
  }
  return {
    tablePrefix,
    async drop() {
      for (const table of ["admin_bans", "admin_impersonations", "admin_migrations", "admin_migrations_lock"]) {
        await db.schema.dropTable(`${tablePrefix}${table}`).ifExists().execute()
      }
    },
  }
}

function sqlHarness(connect: () => Kysely<any>, cleanup?: () => Promise<void>, migrateOn?: () => Kysely<any>) {
  return async () => {
    const db = connect()
    const { tablePrefix, drop } = await migrated(db, migrateOn)
    return {
      store: sqlImpersonationStore(db, { tablePrefix }),
      async close() {
        await drop()
        await db.destroy()
        await cleanup?.()
      },
    }
  }
}

const sqliteFile = () => join(tmpdir(), `portcullis-impersonations-${randomBytes(6).toString("hex")}.db`)
const removeSqlite = (file: string) => async () => {
  for (const suffix of ["", "-wal", "-shm"]) await rm(file + suffix, { force: true })
}
impersonationStoreConformance("SQLite", async () => {
  const file = sqliteFile()
  return sqlHarness(() => createSqliteKysely(file), removeSqlite(file))()
})
postgresGate.describe("PostgreSQL", () => impersonationStoreConformance("PostgreSQL", sqlHarness(() => createPostgresKysely(postgres.url))))
mariadbGate.describe("MariaDB", () => impersonationStoreConformance("MariaDB", sqlHarness(() => createMysqlKysely(mariadb.url))))
pgbouncerGate.describe("PostgreSQL behind PgBouncer", () => impersonationStoreConformance("PostgreSQL behind PgBouncer", sqlHarness(() => createPostgresKysely(pgbouncerService().url), undefined, () => createPostgresKysely(postgres.url))))
redisGate.describe("Redis", () =>
  impersonationStoreConformance("Redis", async () => {
    const client = connectRedis()
    await client.connect()
    const prefix = `portcullis-test:impersonations:${randomBytes(4).toString("hex")}:`
    return {
      store: redisImpersonationStore(client, { prefix }),
      async close() {
        await deleteKeys(client, prefix)
        await client.quit()
      },
    }
  }),
)

const record = () => ({ userId: "user-bob", by: { id: "user-ada", email: "ada@example.com" }, startedAt: new Date(), until: new Date(Date.now() + 60_000), endedAt: null })

describe("the SQL impersonation store prunes what no session can present any more", () => {
  it("deletes rows past their keep on the next put, and keeps the rest", async () => {
    const file = sqliteFile()
    const db = createSqliteKysely(file)
    const { tablePrefix } = await migrated(db)
    try {
      const store = sqlImpersonationStore(db, { tablePrefix })
      await store.put("gone", record(), 50)
      await store.put("kept", record(), 3_600_000)
      await new Promise((resolve) => setTimeout(resolve, 150))
      await store.put("new", record(), 3_600_000)
      const keys = (await db.selectFrom(impersonationTable(tablePrefix)).select("session_key").orderBy("session_key").execute()).map((r) => r.session_key)
      expect(keys).toEqual(["kept", "new"])
    } finally {
      await db.destroy()
      await removeSqlite(file)()
    }
  })
})

describe("the SQL impersonation store with its database down", () => {
  it("rejects get and put (so the session check fails closed), and works again once the database is back", async () => {
    const file = sqliteFile()
    const db = createSqliteKysely(file)
    const { tablePrefix } = await migrated(db)
    const store = sqlImpersonationStore(db, { tablePrefix })
    await store.put("session-1", record(), 3_600_000)
    await db.destroy()
    try {
      await expect(store.get("session-1")).rejects.toThrow()
      await expect(store.put("session-2", record(), 3_600_000)).rejects.toThrow()
      const again = createSqliteKysely(file)
      try {
        expect((await sqlImpersonationStore(again, { tablePrefix }).get("session-1"))?.userId).toBe("user-bob")
      } finally {
        await again.destroy()
      }
    } finally {
      await removeSqlite(file)()
    }
  })
})
