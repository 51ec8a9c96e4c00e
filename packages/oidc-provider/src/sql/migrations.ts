/**
 * The OpenID Provider schema as versioned migrations for Kysely's Migrator, recorded in a
 * migration table of its own so it runs beside `@portcullis/sql-adapter`'s and other
 * extensions', in any order. Never edit a released migration: add a new one, since databases
 * record which ran.
 * @module
 */
import { sql, type ColumnDataType, type CreateTableBuilder, type Expression, type Kysely } from "kysely"
import type { Migration } from "kysely/migration"
import { runMigrations } from "@portcullis/sql-adapter/migrations"
import { oidcProviderTables, resolveOidcProviderDialect, type OidcProviderSqlDialect, type OidcProviderTables } from "./tables.js"

type DataType = ColumnDataType | Expression<unknown>

/** Column types per dialect, as the SQL adapter's and the other extensions' schemas have them. */
function columnTypes(dialect: OidcProviderSqlDialect) {
  return {
    key: "varchar(255)" as DataType,
    // SHA-256 in hex: the key of everything secret (codes, tokens, device codes).
    hash: "varchar(64)" as DataType,
    text: "text" as DataType,
    // Booleans as 0/1 everywhere: one encoding for three databases (SQLite has no boolean).
    flag: "integer" as DataType,
    // UTC instants: timestamptz on PostgreSQL, datetime(3) on MySQL (a pool with
    // `timezone: "Z"`), ISO 8601 text on SQLite (sorts and compares as the instant does).
    timestamp: (dialect === "postgres" ? "timestamptz" : dialect === "mysql" ? "datetime(3)" : "text") as DataType,
  }
}

/** MySQL: binary collation, so hashes, ids and user codes compare exactly, as on the other databases. */
function tableOptions<T extends string, C extends string>(dialect: OidcProviderSqlDialect, builder: CreateTableBuilder<T, C>) {
  return dialect === "mysql"
    ? builder.modifyEnd(sql`engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`)
    : builder
}

function initialSchema(dialect: OidcProviderSqlDialect, t: OidcProviderTables): Migration {
  const type = columnTypes(dialect)
  return {
    async up(db) {
      // A client's registration is read and replaced whole: JSON, with the columns queried apart.
      await tableOptions(dialect, db.schema.createTable(t.clients)
        .addColumn("client_id", type.key, (c) => c.primaryKey())
        .addColumn("dynamic", type.flag, (c) => c.notNull())
        .addColumn("data", type.text, (c) => c.notNull())
        .addColumn("created_at", type.timestamp, (c) => c.notNull())).execute()

      await tableOptions(dialect, db.schema.createTable(t.grants)
        .addColumn("id", type.key, (c) => c.primaryKey())
        .addColumn("client_id", type.key, (c) => c.notNull())
        .addColumn("user_id", type.key)
        .addColumn("session_key", type.key)
        .addColumn("revoked", type.flag, (c) => c.notNull())
        .addColumn("data", type.text, (c) => c.notNull())
        .addColumn("created_at", type.timestamp, (c) => c.notNull())
        .addColumn("expires_at", type.timestamp, (c) => c.notNull())).execute()
      await db.schema.createIndex(`${t.grants}_user_idx`).on(t.grants).columns(["user_id", "client_id"]).execute()
      await db.schema.createIndex(`${t.grants}_session_idx`).on(t.grants).column("session_key").execute()
      await db.schema.createIndex(`${t.grants}_expires_at_idx`).on(t.grants).column("expires_at").execute()

      await tableOptions(dialect, db.schema.createTable(t.codes)
        .addColumn("code_hash", type.hash, (c) => c.primaryKey())
        .addColumn("grant_id", type.key, (c) => c.notNull())
        .addColumn("used", type.flag, (c) => c.notNull())
        .addColumn("data", type.text, (c) => c.notNull())
        .addColumn("expires_at", type.timestamp, (c) => c.notNull())).execute()
      await db.schema.createIndex(`${t.codes}_expires_at_idx`).on(t.codes).column("expires_at").execute()

      await tableOptions(dialect, db.schema.createTable(t.refreshTokens)
        .addColumn("token_hash", type.hash, (c) => c.primaryKey())
        .addColumn("grant_id", type.key, (c) => c.notNull())
        // 1 once rotated: kept (not deleted) until it expires, so presenting it again is seen as reuse.
        .addColumn("rotated", type.flag, (c) => c.notNull())
        .addColumn("data", type.text, (c) => c.notNull())
        .addColumn("expires_at", type.timestamp, (c) => c.notNull())).execute()
      await db.schema.createIndex(`${t.refreshTokens}_grant_idx`).on(t.refreshTokens).column("grant_id").execute()
      await db.schema.createIndex(`${t.refreshTokens}_expires_at_idx`).on(t.refreshTokens).column("expires_at").execute()

      await tableOptions(dialect, db.schema.createTable(t.revokedAccessTokens)
        .addColumn("jti", type.key, (c) => c.primaryKey())
        .addColumn("expires_at", type.timestamp, (c) => c.notNull())).execute()
      await db.schema.createIndex(`${t.revokedAccessTokens}_expires_at_idx`).on(t.revokedAccessTokens).column("expires_at").execute()

      await tableOptions(dialect, db.schema.createTable(t.consents)
        .addColumn("user_id", type.key, (c) => c.notNull())
        .addColumn("client_id", type.key, (c) => c.notNull())
        .addColumn("scope", type.text, (c) => c.notNull())
        .addColumn("resources", type.text, (c) => c.notNull())
        .addColumn("created_at", type.timestamp, (c) => c.notNull())
        .addColumn("updated_at", type.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint(`${t.consents}_pkey`, ["user_id", "client_id"])).execute()

      await tableOptions(dialect, db.schema.createTable(t.devices)
        .addColumn("device_code_hash", type.hash, (c) => c.primaryKey())
        .addColumn("user_code", "varchar(64)", (c) => c.notNull())
        .addColumn("status", "varchar(16)", (c) => c.notNull())
        // 1 once an approval was handed to the device: later polls find nothing.
        .addColumn("handed_out", type.flag, (c) => c.notNull())
        .addColumn("poll_interval", "integer", (c) => c.notNull())
        .addColumn("last_polled_at", type.timestamp)
        .addColumn("user_id", type.key)
        .addColumn("auth_time", "bigint")
        .addColumn("grant_id", type.key)
        .addColumn("data", type.text, (c) => c.notNull())
        .addColumn("expires_at", type.timestamp, (c) => c.notNull())).execute()
      // A user code names one request: the unique key keeps two from sharing it.
      await db.schema.createIndex(`${t.devices}_user_code_key`).on(t.devices).column("user_code").unique().execute()
      await db.schema.createIndex(`${t.devices}_expires_at_idx`).on(t.devices).column("expires_at").execute()

      await tableOptions(dialect, db.schema.createTable(t.interactions)
        .addColumn("id", type.key, (c) => c.primaryKey())
        .addColumn("value", type.text, (c) => c.notNull())
        .addColumn("expires_at", type.timestamp, (c) => c.notNull())).execute()
      await db.schema.createIndex(`${t.interactions}_expires_at_idx`).on(t.interactions).column("expires_at").execute()

      await tableOptions(dialect, db.schema.createTable(t.signingKeys)
        .addColumn("kid", type.key, (c) => c.primaryKey())
        .addColumn("alg", "varchar(16)", (c) => c.notNull())
        .addColumn("public_jwk", type.text, (c) => c.notNull())
        .addColumn("sealed_private_jwk", type.text, (c) => c.notNull())
        .addColumn("created_at", type.timestamp, (c) => c.notNull())
        .addColumn("retired_at", type.timestamp)
        .addColumn("expires_at", type.timestamp)).execute()
    },
    async down(db) {
      for (const table of [t.signingKeys, t.interactions, t.devices, t.consents, t.revokedAccessTokens, t.refreshTokens, t.codes, t.grants, t.clients]) {
        await db.schema.dropTable(table).ifExists().execute()
      }
    },
  }
}

/** `useOnce`: the primary key decides between concurrent first uses. */
function usedKeys(dialect: OidcProviderSqlDialect, t: OidcProviderTables): Migration {
  const type = columnTypes(dialect)
  return {
    async up(db) {
      await tableOptions(dialect, db.schema.createTable(t.usedKeys)
        .addColumn("used_key", type.key, (c) => c.primaryKey())
        .addColumn("expires_at", type.timestamp, (c) => c.notNull())).execute()
      await db.schema.createIndex(`${t.usedKeys}_expires_at_idx`).on(t.usedKeys).column("expires_at").execute()
    },
    async down(db) {
      await db.schema.dropTable(t.usedKeys).ifExists().execute()
    },
  }
}

/**
 * Every migration of the OpenID Provider schema, by name; names sort in the order they run.
 *
 * @example
 * ```ts
 * const migrations = oidcProviderMigrations("postgres", oidcProviderTables("auth_"))
 * await migrations["0001_oidc_provider"]!.up(db)
 * ```
 */
export function oidcProviderMigrations(dialect: OidcProviderSqlDialect, tables: OidcProviderTables = oidcProviderTables()): Record<string, Migration> {
  return {
    "0001_oidc_provider": initialSchema(dialect, tables),
    "0002_used_keys": usedKeys(dialect, tables),
  }
}

/** Options of {@link migrateOidcProvider}. */
export interface MigrateOidcProviderOptions {
  /** Put in front of every table name, as given to `sqlOidcProviderStore`. Default none. */
  tablePrefix?: string
  /** Detected from the Kysely instance when not given. */
  dialect?: OidcProviderSqlDialect
}

/**
 * Creates or upgrades the OpenID Provider tables. Safe on every start: applied migrations are
 * skipped, and concurrent runs wait on one lock, which also holds behind PgBouncer
 * in transaction pooling mode (`runMigrations` of `@portcullis/sql-adapter/migrations`). Recorded in
 * `<prefix>portcullis_oidc_provider_migrations`, apart from the SQL adapter's table.
 *
 * @returns the names of the migrations this call applied (empty when up to date).
 * @throws the first failed migration's error; it and later ones are not recorded.
 * @example
 * ```ts
 * import { migrateOidcProvider, sqlOidcProviderStore } from "@portcullis/oidc-provider/sql"
 *
 * await migrateOidcProvider(db, { tablePrefix: "auth_" })
 * const store = sqlOidcProviderStore(db, { tablePrefix: "auth_" })
 * ```
 */
export async function migrateOidcProvider(db: Kysely<any>, options: MigrateOidcProviderOptions = {}): Promise<string[]> {
  const dialect = resolveOidcProviderDialect(db, options.dialect)
  const tables = oidcProviderTables(options.tablePrefix)
  return runMigrations(db, { migrations: oidcProviderMigrations(dialect, tables), table: tables.migrations, dialect, label: "oidc-provider" })
}
