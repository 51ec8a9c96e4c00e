/**
 * Every ban store passes the conformance suite: memory, SQLite, PostgreSQL, MariaDB and
 * Redis (the services on loopback; skipped locally without them, failed in CI — the
 * adapter suite's service gate).
 */
import { randomBytes } from "node:crypto"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Kysely } from "kysely"
import { createMysqlKysely, createPostgresKysely, createSqliteKysely } from "@portcullis/sql-adapter"
import { memoryBanStore } from "@portcullis/admin/memory"
import { migrateAdmin, sqlBanStore } from "@portcullis/admin/sql"
import { redisBanStore } from "@portcullis/admin/redis"
import { banStoreConformance } from "@portcullis/admin/testing"
import { connectRedis, deleteKeys, redisGate } from "../../organizations/test/redis-harness.js"
import { mariadb, mariadbGate, postgres, postgresGate } from "../../organizations/test/sql-harness.js"
import { pgbouncerAvailable, pgbouncerService } from "@portcullis/adapter-test"

// The same specs through PgBouncer in transaction pooling mode (scripts/pgbouncer.sh): no
// statement may rely on the server connection of the one before it. Migrated on a direct
// connection, as docs/deploy.md advises for extensions' migrations.
const pgbouncerGate = await pgbouncerAvailable()

banStoreConformance("memory", async () => ({ store: memoryBanStore(), close: async () => {} }))

/** `migrateOn`: a connection of its own for the migrations (a direct one, behind a pooler). */
function sqlHarness(connect: () => Kysely<any>, cleanup?: () => Promise<void>, migrateOn?: () => Kysely<any>) {
  return async () => {
    const db = connect()
    const tablePrefix = `t${randomBytes(4).toString("hex")}_`
    const migrator = migrateOn?.()
    try {
      await migrateAdmin(migrator ?? db, { tablePrefix })
    } finally {
      await migrator?.destroy()
    }
    return {
      store: sqlBanStore(db, { tablePrefix }),
      async close() {
        await db.schema.dropTable(`${tablePrefix}admin_bans`).ifExists().execute()
        await db.schema.dropTable(`${tablePrefix}admin_migrations`).ifExists().execute()
        await db.schema.dropTable(`${tablePrefix}admin_migrations_lock`).ifExists().execute()
        await db.destroy()
        await cleanup?.()
      },
    }
  }
}

const sqliteFile = () => join(tmpdir(), `portcullis-bans-${randomBytes(6).toString("hex")}.db`)
banStoreConformance("SQLite", async () => {
  const file = sqliteFile()
  return sqlHarness(() => createSqliteKysely(file), async () => {
    for (const suffix of ["", "-wal", "-shm"]) await rm(file + suffix, { force: true })
  })()
})
postgresGate.describe("PostgreSQL", () => banStoreConformance("PostgreSQL", sqlHarness(() => createPostgresKysely(postgres.url))))
mariadbGate.describe("MariaDB", () => banStoreConformance("MariaDB", sqlHarness(() => createMysqlKysely(mariadb.url))))
pgbouncerGate.describe("PostgreSQL behind PgBouncer", () => banStoreConformance("PostgreSQL behind PgBouncer", sqlHarness(() => createPostgresKysely(pgbouncerService().url), undefined, () => createPostgresKysely(postgres.url))))
redisGate.describe("Redis", () => banStoreConformance(
  "Redis",
  async () => {
    const client = connectRedis()
    await client.connect()
    const prefix = `portcullis-test:bans:${randomBytes(4).toString("hex")}:`
    return {
      store: redisBanStore(client, { prefix }),
      async close() {
        await deleteKeys(client, prefix)
        await client.quit()
      },
    }
  },
))
