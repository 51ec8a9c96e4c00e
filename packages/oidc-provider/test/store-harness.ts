/**
 * The OpenID Provider store's backends for tests: SQL schemas under a random table prefix
 * (migrated on open, dropped on close) and Redis under a random key prefix (every key deleted
 * on close). Backends, gates and prefixes are `@portcullis/adapter-test`'s; this file knows
 * the provider's schema.
 */
import type { Kysely } from "kysely"
import type { Redis } from "ioredis"
import { redisAvailable, sqlServices } from "@portcullis/adapter-test"
import { openRedisPrefix } from "@portcullis/adapter-test/redis"
import { prefixedSchemas, sqliteBackend as sqliteFileBackend, type SqlBackend } from "@portcullis/adapter-test/sql"
import { redisOidcProviderStore } from "@portcullis/oidc-provider/redis"
import { migrateOidcProvider, oidcProviderTables, sqlOidcProviderStore } from "@portcullis/oidc-provider/sql"
import type { OidcProviderStoreHarness } from "@portcullis/oidc-provider/testing"

export { mariadbBackend, postgresBackend, type SqlBackend } from "@portcullis/adapter-test/sql"
export { connectRedis } from "@portcullis/adapter-test/redis"
export const { postgresGate, mariadbGate } = await sqlServices()
export const redisGate = await redisAvailable()
export const sqliteBackend = (): SqlBackend => sqliteFileBackend("op")

/** Every table a migration under `tablePrefix` creates, and the migration tables. */
export function schemaTables(tablePrefix: string): string[] {
  const t = oidcProviderTables(tablePrefix)
  return [t.signingKeys, t.interactions, t.devices, t.consents, t.revokedAccessTokens, t.refreshTokens, t.codes, t.grants, t.clients, t.migrations, `${t.migrations}_lock`]
}

const schemas = prefixedSchemas({
  tag: "pop",
  migrate: (db, tablePrefix) => migrateOidcProvider(db, { tablePrefix }),
  tables: schemaTables,
})

/** A migrated schema under a fresh prefix, and the store on it. */
export async function openSqlStore(backend: SqlBackend): Promise<OidcProviderStoreHarness & { db: Kysely<any>; tablePrefix: string }> {
  const { db, tablePrefix, drop } = await schemas.open(backend)
  return { db, tablePrefix, store: sqlOidcProviderStore(db, { tablePrefix }), cleanup: drop }
}

/** The Redis store under a fresh key prefix. */
export async function openRedisStore(): Promise<OidcProviderStoreHarness & { client: Redis; prefix: string }> {
  const { client, prefix, close } = await openRedisPrefix("op")
  return { client, prefix, store: redisOidcProviderStore(client, { prefix }), cleanup: close }
}
