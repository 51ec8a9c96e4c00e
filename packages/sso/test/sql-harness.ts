/**
 * One SQL database for the SSO store's tests: a random table prefix per harness (runs and
 * suites sharing a database never collide), migrated on open, dropped on close. The
 * backends, gates and prefixes are `@portcullis/adapter-test`'s; this file knows the SSO schema.
 */
import type { Kysely } from "kysely"
import { sqlServices } from "@portcullis/adapter-test"
import { prefixedSchemas, sqliteBackend as sqliteFileBackend, type SqlBackend } from "@portcullis/adapter-test/sql"
import { migrateSso, sqlSsoStore, ssoTables } from "@portcullis/sso/sql"
import type { SsoStoreHarness } from "@portcullis/sso/testing"

export { mariadbBackend, postgresBackend, type SqlBackend } from "@portcullis/adapter-test/sql"
export const { postgres, mariadb, postgresGate, mariadbGate } = await sqlServices()
export const sqliteBackend = (): SqlBackend => sqliteFileBackend("sso")

const schemas = prefixedSchemas({
  tag: "pcs",
  migrate: (db, tablePrefix) => migrateSso(db, { tablePrefix }),
  tables(tablePrefix) {
    const t = ssoTables(tablePrefix)
    return [t.sessions, t.once, t.scimGroups, t.scimUsers, t.scimTokens, t.verifiedDomains, t.domains, t.connections, t.migrations, `${t.migrations}_lock`]
  },
})

/** A migrated schema under a fresh prefix, and the store on it. */
export async function openSqlStore(backend: SqlBackend): Promise<SsoStoreHarness & { db: Kysely<any>; tablePrefix: string }> {
  const { db, tablePrefix, drop } = await schemas.open(backend)
  return { db, tablePrefix, store: sqlSsoStore(db, { tablePrefix }), cleanup: drop }
}

/** Drops the prefix's tables and closes `db`. */
export const dropSchema = schemas.drop
