import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sql, type Kysely } from "kysely"
import { migrateToLatest, prefixedTables } from "@portcullis/sql-adapter"
import { detectDialect, migrate, migrateOrganizations, organizationTables, sqlOrganizationStore } from "@portcullis/organizations/sql"
import { makeInvitation, makeOrganization, runOrganizationStoreTests } from "@portcullis/organizations/testing"
import { mariadbBackend, mariadbGate, openSqlStore, postgresBackend, postgresGate, sqliteBackend, type SqlBackend } from "./sql-harness.js"
import { pgbouncerAvailable } from "@portcullis/adapter-test"
import { pgbouncerBackend } from "@portcullis/adapter-test/sql"

// The store's conformance suite through PgBouncer in transaction pooling mode
// (scripts/pgbouncer.sh): no statement may rely on the server connection of the one before
// it. Migrated on a direct connection, as docs/deploy.md advises for extensions' migrations.
const pgbouncerGate = await pgbouncerAvailable()

/** The conformance suite and the SQL-only specs, on one backend. */
function sqlSuites(backend: SqlBackend): void {
  runOrganizationStoreTests(`sqlOrganizationStore on ${backend.label}`, () => openSqlStore(backend))

  describe(`the organizations schema on ${backend.label}`, () => {
    let harness: Awaited<ReturnType<typeof openSqlStore>>
    beforeAll(async () => {
      harness = await openSqlStore(backend)
    })
    afterAll(async () => {
      await harness?.close()
      await backend.cleanup?.()
    })

    it("applies nothing when migrated again, and records its migrations in a table of its own", async () => {
      expect(await migrateOrganizations(harness.db, { tablePrefix: harness.tablePrefix })).toEqual([])
      expect(await migrate(harness.db, { tablePrefix: harness.tablePrefix })).toEqual([])
      const recorded = await harness.db.selectFrom(organizationTables(harness.tablePrefix).migrations).select("name").execute()
      expect(recorded.map((r) => r.name)).toEqual(["0001_organizations"])
    })

    it("runs beside the SQL adapter's migrations with the same prefix, in either order", async () => {
      const tables = prefixedTables(harness.tablePrefix)
      const adapterMigrations = `${harness.tablePrefix}portcullis_migrations`
      try {
        const applied = await migrateToLatest(harness.db, { dialect: backend.dialect, tables, migrationTableName: adapterMigrations })
        expect(applied[0]).toBe("0001_initial_schema")
        expect(await migrateOrganizations(harness.db, { tablePrefix: harness.tablePrefix })).toEqual([])
      } finally {
        for (const table of [tables.auditRecords, tables.passwords, tables.twoFactor, tables.locks, tables.sessionRegistry, tables.rateLimits, tables.authenticators,
          tables.verificationTokens, tables.sessions, tables.accounts, tables.users, adapterMigrations, `${adapterMigrations}_lock`]) {
          await harness.db.schema.dropTable(table).ifExists().execute()
        }
      }
    })

    it("tells its dialect from the Kysely instance", () => {
      expect(detectDialect(harness.db)).toBe(backend.dialect)
    })

    it("cascades an organization's deletion to its rows through foreign keys alone", async () => {
      const t = organizationTables(harness.tablePrefix)
      const organization = makeOrganization()
      await harness.store.createOrganization(organization, { organizationId: organization.id, userId: randomUUID(), role: "owner", createdAt: new Date() })
      await harness.store.createInvitation(makeInvitation(organization))
      await harness.store.setActiveOrganization(randomUUID(), organization.id, new Date(Date.now() + 60_000))
      // Around the store's explicit deletes: only the schema's ON DELETE CASCADE is left.
      await harness.db.deleteFrom(t.organizations).where("id", "=", organization.id).execute()
      for (const table of [t.members, t.invitations, t.active]) {
        expect(await harness.db.selectFrom(table).selectAll().where("organization_id", "=", organization.id).execute()).toEqual([])
      }
    })

    it("stores metadata as JSON text and binds every value as a parameter", async () => {
      const t = organizationTables(harness.tablePrefix)
      const organization = makeOrganization({ name: "Robert'); DROP TABLE students;--", metadata: { quote: "it's \"quoted\"" } })
      await harness.store.createOrganization(organization, { organizationId: organization.id, userId: randomUUID(), role: "owner", createdAt: new Date() })
      const row = await harness.db.selectFrom(t.organizations).select(["name", "metadata"]).where("id", "=", organization.id).executeTakeFirstOrThrow()
      expect(row).toEqual({ name: organization.name, metadata: JSON.stringify(organization.metadata) })
    })

    it("refuses a dialect it cannot tell, naming the option", () => {
      const unknown = { getExecutor: () => ({ adapter: {} }) } as unknown as Kysely<any>
      expect(() => sqlOrganizationStore(unknown)).toThrow(/pass \{ dialect/)
      expect(() => sqlOrganizationStore(harness.db, { tablePrefix: "bad-prefix" })).toThrow(/tablePrefix/)
    })

    it.runIf(backend.dialect !== "sqlite")("locks the owner rows: a demotion waits for a transaction that holds them", async () => {
      const t = organizationTables(harness.tablePrefix)
      const organization = makeOrganization()
      const owner = randomUUID()
      await harness.store.createOrganization(organization, { organizationId: organization.id, userId: owner, role: "owner", createdAt: new Date() })
      const second = randomUUID()
      const invitation = makeInvitation(organization, { role: "owner" })
      await harness.store.createInvitation(invitation)
      await harness.store.acceptInvitation(invitation.id, second, new Date())
      let demoted: Promise<unknown> | undefined
      let settledInside = false
      await harness.db.transaction().execute(async (trx) => {
        // Another instance demotes `second` inside its own transaction, holding the owner rows.
        await trx.selectFrom(t.members).select("user_id").where("organization_id", "=", organization.id).where("role", "=", "owner").forUpdate().execute()
        await trx.updateTable(t.members).set({ role: "member" }).where("organization_id", "=", organization.id).where("user_id", "=", second).execute()
        demoted = harness.store.setRole(organization.id, owner, "member").finally(() => {
          settledInside = true
        })
        // Give the waiting demotion every chance to (wrongly) go ahead before this commits.
        await sql`select 1`.execute(trx)
        await new Promise((resolve) => setTimeout(resolve, 300))
        expect(settledInside).toBe(false)
      })
      expect(await demoted).toBe("last-owner")
    })
  })
}

sqlSuites(sqliteBackend())
postgresGate.describe("PostgreSQL", () => sqlSuites(postgresBackend()))
mariadbGate.describe("MariaDB/MySQL", () => sqlSuites(mariadbBackend()))
pgbouncerGate.describe("PostgreSQL behind PgBouncer", () => runOrganizationStoreTests(`sqlOrganizationStore on PostgreSQL behind PgBouncer`, () => openSqlStore(pgbouncerBackend())))
