import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Kysely } from "kysely"
import { detectSsoDialect, migrate, migrateSso, sqlSsoStore, ssoTables } from "@portcullis/sso/sql"
import { makeScimUser, ssoStoreConformance } from "@portcullis/sso/testing"
import { mariadbBackend, mariadbGate, openSqlStore, postgresBackend, postgresGate, sqliteBackend, type SqlBackend } from "./sql-harness.js"
import { pgbouncerAvailable } from "@portcullis/adapter-test"
import { pgbouncerBackend } from "@portcullis/adapter-test/sql"

// The store's conformance suite through PgBouncer in transaction pooling mode
// (scripts/pgbouncer.sh): no statement may rely on the server connection of the one before
// it. Migrated on a direct connection, as docs/deploy.md advises for extensions' migrations.
const pgbouncerGate = await pgbouncerAvailable()

/** The conformance suite and the SQL-only specs, on one backend. */
function sqlSuites(backend: SqlBackend): void {
  ssoStoreConformance(`sqlSsoStore on ${backend.label}`, () => openSqlStore(backend))

  describe(`the SSO schema on ${backend.label}`, () => {
    let harness: Awaited<ReturnType<typeof openSqlStore>>
    beforeAll(async () => {
      harness = await openSqlStore(backend)
    })
    afterAll(async () => {
      await harness?.cleanup()
      await backend.cleanup?.()
    })

    it("applies nothing when migrated again, and records its migrations in a table of its own", async () => {
      expect(await migrateSso(harness.db, { tablePrefix: harness.tablePrefix })).toEqual([])
      expect(await migrate(harness.db, { tablePrefix: harness.tablePrefix })).toEqual([])
      const recorded = await harness.db.selectFrom(ssoTables(harness.tablePrefix).migrations).select("name").execute()
      expect(recorded.map((r) => r.name)).toEqual(["0001_sso"])
    })

    it("tells its dialect from the Kysely instance, and refuses one it cannot tell or a bad prefix", () => {
      expect(detectSsoDialect(harness.db)).toBe(backend.dialect)
      const unknown = { getExecutor: () => ({ adapter: {} }) } as unknown as Kysely<any>
      expect(() => sqlSsoStore(unknown)).toThrow(/pass \{ dialect/)
      expect(() => sqlSsoStore(harness.db, { tablePrefix: "bad-prefix" })).toThrow(/tablePrefix/)
    })

    it("keeps one verified organization per domain in the schema itself, whoever writes", async () => {
      const t = ssoTables(harness.tablePrefix)
      const domain = `schema-${randomUUID().slice(0, 8)}.example`
      await harness.db.insertInto(t.verifiedDomains).values({ domain, organization_id: "a" }).execute()
      await expect(harness.db.insertInto(t.verifiedDomains).values({ domain, organization_id: "b" }).execute()).rejects.toThrow()
    })

    it("stores a userName's lowercase key beside it, binds every value as a parameter", async () => {
      const t = ssoTables(harness.tablePrefix)
      const user = makeScimUser(randomUUID(), { userName: "Robert'); DROP TABLE students;--@Example.COM" })
      expect(await harness.store.createScimUser(user)).toBe(true)
      const row = await harness.db.selectFrom(t.scimUsers).select(["user_name", "user_name_key"]).where("id", "=", user.id).executeTakeFirstOrThrow()
      expect(row).toEqual({ user_name: user.userName, user_name_key: user.userName.toLowerCase() })
    })

    it("keeps an id too long for its column whole (hashed), never cut into another one's", async () => {
      const base = `${randomUUID()}${"x".repeat(300)}`
      const expires = new Date(Date.now() + 60_000)
      expect(await harness.store.useOnce("assertion", `${base}a`, expires)).toBe(true)
      expect(await harness.store.useOnce("assertion", `${base}b`, expires)).toBe(true)
      expect(await harness.store.useOnce("assertion", `${base}a`, expires)).toBe(false)
      await harness.store.put("request", base, "kept", expires)
      expect(await harness.store.take("request", base)).toBe("kept")
      expect(await harness.store.take("request", base)).toBeNull()
      await expect(harness.store.useOnce("n".repeat(65), "id", expires)).rejects.toThrow(TypeError)
    })

    it("sweeps expired single-use rows as it writes", async () => {
      const t = ssoTables(harness.tablePrefix)
      const namespace = `sweep-${randomUUID().slice(0, 8)}`
      await harness.store.useOnce(namespace, "old", new Date(Date.now() - 1_000))
      // A hundred writes on one store make at least one sweep.
      for (let n = 0; n < 100; n++) await harness.store.useOnce(namespace, `live-${n}`, new Date(Date.now() + 60_000))
      const rows = await harness.db.selectFrom(t.once).select("expires_at").where("namespace", "=", namespace).execute()
      // The hundred live ones are there, the expired one is not.
      expect(rows).toHaveLength(100)
      expect(rows.filter((r) => new Date(r.expires_at as string | Date).getTime() <= Date.now())).toEqual([])
    })
  })
}

sqlSuites(sqliteBackend())
postgresGate.describe("PostgreSQL", () => sqlSuites(postgresBackend()))
mariadbGate.describe("MariaDB/MySQL", () => sqlSuites(mariadbBackend()))
pgbouncerGate.describe("PostgreSQL behind PgBouncer", () => ssoStoreConformance(`sqlSsoStore on PostgreSQL behind PgBouncer`, () => openSqlStore(pgbouncerBackend())))
