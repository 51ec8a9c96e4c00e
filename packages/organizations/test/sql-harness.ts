/**
 * One SQL database for the organization store's tests: a random table prefix per harness
 * (runs and suites sharing a database never collide), migrated on open, dropped on close. The
 * backends, gates and prefixes are `@portcullis/adapter-test`'s; this file knows the schema.
 */
import type { Kysely } from "kysely"
import { sqlServices } from "@portcullis/adapter-test"
import { dropTables, openPrefixedSchema, sqliteBackend as sqliteFileBackend, type SqlBackend } from "@portcullis/adapter-test/sql"
import { migrateOrganizations, organizationTables, sqlOrganizationStore } from "@portcullis/organizations/sql"
import type { OrganizationStoreHarness } from "@portcullis/organizations/testing"

export { mariadbBackend, postgresBackend, type SqlBackend } from "@portcullis/adapter-test/sql"

export const { postgres, mariadb, postgresGate, mariadbGate } = await sqlServices()

export const sqliteBackend = (): SqlBackend => sqliteFileBackend("orgs")

/** A migrated schema under a fresh prefix, and the store on it. */
export async function openSqlStore(backend: SqlBackend): Promise<OrganizationStoreHarness & { db: Kysely<any>; tablePrefix: string }> {
  const { db, tablePrefix } = await openPrefixedSchema(backend, "pco", (db, tablePrefix) => migrateOrganizations(db, { tablePrefix }))
  return { db, tablePrefix, store: sqlOrganizationStore(db, { tablePrefix }), close: () => dropSchema(db, tablePrefix) }
}

/** Drops the prefix's tables, children first, and closes `db`. */
export function dropSchema(db: Kysely<any>, tablePrefix: string): Promise<void> {
  const t = organizationTables(tablePrefix)
  return dropTables(db, [t.active, t.invitations, t.members, t.organizations, t.migrations, `${t.migrations}_lock`])
}
