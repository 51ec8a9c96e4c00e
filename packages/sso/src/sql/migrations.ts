/**
 * The SSO schema as versioned migrations for Kysely's Migrator, recorded in a migration
 * table of its own so it runs beside `@portcullis/sql-adapter`'s and other extensions', in
 * any order. Never edit a released migration: add a new one, since databases record which ran.
 * @module
 */
import { sql, type ColumnDataType, type CreateTableBuilder, type Expression, type Kysely } from "kysely"
import type { Migration } from "kysely/migration"
import { runMigrations } from "@portcullis/sql-adapter/migrations"
import { resolveSsoDialect, ssoTables, type SsoSqlDialect, type SsoTables } from "./tables.js"

type DataType = ColumnDataType | Expression<unknown>

/** Column types per dialect, as the SQL adapter's and the organizations' schemas have them. */
function columnTypes(dialect: SsoSqlDialect) {
  return {
    key: "varchar(255)" as DataType,
    text: "text" as DataType,
    // Booleans as 0/1 everywhere: one encoding for three databases (SQLite has no boolean).
    flag: "integer" as DataType,
    // UTC instants: timestamptz on PostgreSQL, datetime(3) on MySQL (a pool with
    // `timezone: "Z"`), ISO 8601 text on SQLite (sorts and compares as the instant does).
    timestamp: (dialect === "postgres" ? "timestamptz" : dialect === "mysql" ? "datetime(3)" : "text") as DataType,
  }
}

/** MySQL: binary collation, so ids, domains and lowercased user names compare exactly, as on the other databases. */
function tableOptions<T extends string, C extends string>(dialect: SsoSqlDialect, builder: CreateTableBuilder<T, C>) {
  return dialect === "mysql"
    ? builder.modifyEnd(sql`engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`)
    : builder
}

function initialSchema(dialect: SsoSqlDialect, t: SsoTables): Migration {
  const type = columnTypes(dialect)
  return {
    async up(db) {
      await tableOptions(dialect, db.schema.createTable(t.connections)
        .addColumn("id", type.key, (c) => c.primaryKey())
        .addColumn("organization_id", type.key, (c) => c.notNull())
        .addColumn("kind", "varchar(8)", (c) => c.notNull())
        .addColumn("name", type.text, (c) => c.notNull())
        .addColumn("enabled", type.flag, (c) => c.notNull())
        // The protocol settings, key pair and role rules as one JSON document: read and
        // replaced whole, never queried into.
        .addColumn("settings", type.text, (c) => c.notNull())
        .addColumn("created_at", type.timestamp, (c) => c.notNull())).execute()
      await db.schema.createIndex(`${t.connections}_organization_id_idx`).on(t.connections).column("organization_id").execute()

      await tableOptions(dialect, db.schema.createTable(t.domains)
        .addColumn("domain", type.key, (c) => c.notNull())
        .addColumn("organization_id", type.key, (c) => c.notNull())
        .addColumn("token", type.text, (c) => c.notNull())
        .addColumn("verified_at", type.timestamp)
        .addColumn("require_sso", type.flag, (c) => c.notNull())
        .addColumn("connection_id", type.key)
        .addColumn("created_at", type.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint(`${t.domains}_pkey`, ["domain", "organization_id"])).execute()
      await db.schema.createIndex(`${t.domains}_organization_id_idx`).on(t.domains).column("organization_id").execute()
      await db.schema.createIndex(`${t.domains}_connection_id_idx`).on(t.domains).column("connection_id").execute()

      // The domain alone is the key: a second organization's verification cannot insert.
      await tableOptions(dialect, db.schema.createTable(t.verifiedDomains)
        .addColumn("domain", type.key, (c) => c.primaryKey())
        .addColumn("organization_id", type.key, (c) => c.notNull())).execute()

      await tableOptions(dialect, db.schema.createTable(t.scimTokens)
        .addColumn("id", type.key, (c) => c.primaryKey())
        .addColumn("connection_id", type.key, (c) => c.notNull())
        .addColumn("organization_id", type.key, (c) => c.notNull())
        .addColumn("hash", "varchar(128)", (c) => c.notNull())
        .addColumn("created_at", type.timestamp, (c) => c.notNull())
        .addColumn("last_used_at", type.timestamp)).execute()
      await db.schema.createIndex(`${t.scimTokens}_hash_key`).on(t.scimTokens).column("hash").unique().execute()
      await db.schema.createIndex(`${t.scimTokens}_connection_id_idx`).on(t.scimTokens).column("connection_id").execute()

      await tableOptions(dialect, db.schema.createTable(t.scimUsers)
        .addColumn("organization_id", type.key, (c) => c.notNull())
        .addColumn("id", type.key, (c) => c.notNull())
        .addColumn("external_id", type.key)
        .addColumn("user_name", type.key, (c) => c.notNull())
        // userName lowercased by the store: the unique key of SCIM's case-insensitive
        // userName, the same on every database (MariaDB has no index on an expression).
        .addColumn("user_name_key", type.key, (c) => c.notNull())
        .addColumn("active", type.flag, (c) => c.notNull())
        .addColumn("attributes", type.text, (c) => c.notNull())
        .addColumn("version", "integer", (c) => c.notNull())
        .addColumn("created_at", type.timestamp, (c) => c.notNull())
        .addColumn("updated_at", type.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint(`${t.scimUsers}_pkey`, ["organization_id", "id"])).execute()
      await db.schema.createIndex(`${t.scimUsers}_user_name_key`).on(t.scimUsers).columns(["organization_id", "user_name_key"]).unique().execute()

      await tableOptions(dialect, db.schema.createTable(t.scimGroups)
        .addColumn("organization_id", type.key, (c) => c.notNull())
        .addColumn("id", type.key, (c) => c.notNull())
        .addColumn("external_id", type.key)
        .addColumn("display_name", type.key, (c) => c.notNull())
        .addColumn("members", type.text, (c) => c.notNull())
        .addColumn("version", "integer", (c) => c.notNull())
        .addColumn("created_at", type.timestamp, (c) => c.notNull())
        .addColumn("updated_at", type.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint(`${t.scimGroups}_pkey`, ["organization_id", "id"])).execute()
      await db.schema.createIndex(`${t.scimGroups}_display_name_key`).on(t.scimGroups).columns(["organization_id", "display_name"]).unique().execute()

      await tableOptions(dialect, db.schema.createTable(t.once)
        .addColumn("namespace", "varchar(64)", (c) => c.notNull())
        .addColumn("id", type.key, (c) => c.notNull())
        // Null for a `useOnce` record, the value for a `put`.
        .addColumn("value", type.text)
        .addColumn("expires_at", type.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint(`${t.once}_pkey`, ["namespace", "id"])).execute()
      await db.schema.createIndex(`${t.once}_expires_at_idx`).on(t.once).column("expires_at").execute()

      await tableOptions(dialect, db.schema.createTable(t.sessions)
        .addColumn("session_key", type.key, (c) => c.primaryKey())
        .addColumn("user_id", type.key, (c) => c.notNull())
        .addColumn("organization_id", type.key, (c) => c.notNull())
        .addColumn("ended", type.flag, (c) => c.notNull())
        .addColumn("expires_at", type.timestamp, (c) => c.notNull())).execute()
      await db.schema.createIndex(`${t.sessions}_user_idx`).on(t.sessions).columns(["user_id", "organization_id"]).execute()
      await db.schema.createIndex(`${t.sessions}_expires_at_idx`).on(t.sessions).column("expires_at").execute()
    },
    async down(db) {
      for (const table of [t.sessions, t.once, t.scimGroups, t.scimUsers, t.scimTokens, t.verifiedDomains, t.domains, t.connections]) {
        await db.schema.dropTable(table).ifExists().execute()
      }
    },
  }
}

/**
 * Every migration of the SSO schema, by name; names sort in the order they run.
 *
 * @example
 * ```ts
 * const migrations = ssoMigrations("postgres", ssoTables("auth_"))
 * await migrations["0001_sso"]!.up(db)
 * ```
 */
export function ssoMigrations(dialect: SsoSqlDialect, tables: SsoTables = ssoTables()): Record<string, Migration> {
  return {
    "0001_sso": initialSchema(dialect, tables),
  }
}

/** Options of {@link migrateSso}. */
export interface MigrateSsoOptions {
  /** Put in front of every table name, as given to `sqlSsoStore`. Default none. */
  tablePrefix?: string
  /** Detected from the Kysely instance when not given. */
  dialect?: SsoSqlDialect
}

/**
 * Creates or upgrades the SSO tables. Safe on every start: applied migrations are skipped,
 * and concurrent runs wait on one lock, which also holds behind PgBouncer
 * in transaction pooling mode (`runMigrations` of `@portcullis/sql-adapter/migrations`). Recorded in
 * `<prefix>portcullis_sso_migrations`, apart from the SQL adapter's table.
 *
 * @returns the names of the migrations this call applied (empty when up to date).
 * @throws the first failed migration's error; it and later ones are not recorded.
 * @example
 * ```ts
 * import { migrateSso, sqlSsoStore } from "@portcullis/sso/sql"
 *
 * await migrateSso(db, { tablePrefix: "auth_" })
 * const store = sqlSsoStore(db, { tablePrefix: "auth_" })
 * ```
 */
export async function migrateSso(db: Kysely<any>, options: MigrateSsoOptions = {}): Promise<string[]> {
  const dialect = resolveSsoDialect(db, options.dialect)
  const tables = ssoTables(options.tablePrefix)
  return runMigrations(db, { migrations: ssoMigrations(dialect, tables), table: tables.migrations, dialect, label: "sso" })
}
