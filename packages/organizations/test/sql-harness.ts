/**
 * One SQL database for the organization store's tests: a random table prefix per harness
 * (runs and suites sharing a database never collide), migrated on open, dropped on close. The
 * backends, gates and prefixes are `@portcullis/adapter-test`'s; this file knows the schema.
 */
import type { Kysely } from "kysely"
import { sqlServices } from "@portcullis/adapter-test"
import { prefixedSchemas, sqliteBackend as sqliteFileBackend, type SqlBackend } from "@portcullis/adapter-test/sql"
import { migrateOrganizations, organizationTables, sqlOrganizationStore } from "@portcullis/organizations/sql"
import type { OrganizationStoreHarness } from "@portcullis/organizations/testing"

export { mariadbBackend, postgresBackend, type SqlBackend } from "@portcullis/adapter-test/sql"
export const { postgres, mariadb, postgresGate, mariadbGate } = await sqlServices()
export const sqliteBackend = (): SqlBackend => sqliteFileBackend("orgs")

const schemas = prefixedSchemas({
  tag: "pco",
  migrate: (db, tablePrefix) => migrateOrganizations(db, { tablePrefix }),
  tables(tablePrefix) {
    const t = organizationTables(tablePrefix)
    return [t.active, t.invitations, t.members, t.organizations, t.migrations, `${t.migrations}_lock`]
  },
})

/** A migrated schema under a fresh prefix, and the store on it. */
export async function openSqlStore(backend: SqlBackend): Promise<OrganizationStoreHarness & { db: Kysely<any>; tablePrefix: string }> {
  const { db, tablePrefix, drop } = await schemas.open(backend)
  return { db, tablePrefix, store: sqlOrganizationStore(db, { tablePrefix }), close: drop }
}

/** Drops the prefix's tables, children first, and closes `db`. */
export const dropSchema = schemas.drop
