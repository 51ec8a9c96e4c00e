/**
 * The organizations schema as versioned migrations for Kysely's Migrator, recorded in a
 * migration table of its own so it runs beside `@portcullis/sql-adapter`'s, in any order.
 * Never edit a released migration: add a new one, since databases record which ran.
 * @module
 */
import { sql, type ColumnDataType, type CreateTableBuilder, type Expression, type Kysely } from "kysely"
import type { Migration } from "kysely/migration"
import { runMigrations } from "@portcullis/sql-adapter/migrations"
import { organizationTables, resolveDialect, type OrganizationSqlDialect, type OrganizationTables } from "./tables.js"

type DataType = ColumnDataType | Expression<unknown>

/** Column types per dialect, as the SQL adapter's schema has them. */
function columnTypes(dialect: OrganizationSqlDialect) {
  return {
    key: "varchar(255)" as DataType,
    text: "text" as DataType,
    // UTC instants: timestamptz on PostgreSQL, datetime(3) on MySQL (a pool with
    // `timezone: "Z"`), ISO 8601 text on SQLite (sorts and compares as the instant does).
    timestamp: (dialect === "postgres" ? "timestamptz" : dialect === "mysql" ? "datetime(3)" : "text") as DataType,
  }
}

/** MySQL: binary collation, so slugs, ids and roles compare exactly, as on the other databases. */
function tableOptions<T extends string, C extends string>(dialect: OrganizationSqlDialect, builder: CreateTableBuilder<T, C>) {
  return dialect === "mysql"
    ? builder.modifyEnd(sql`engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`)
    : builder
}

function initialSchema(dialect: OrganizationSqlDialect, t: OrganizationTables): Migration {
  const type = columnTypes(dialect)
  const organizationRef = `${t.organizations}.id`
  return {
    async up(db) {
      await tableOptions(dialect, db.schema.createTable(t.organizations)
        .addColumn("id", type.key, (c) => c.primaryKey())
        .addColumn("name", type.text, (c) => c.notNull())
        .addColumn("slug", "varchar(64)", (c) => c.notNull())
        .addColumn("metadata", type.text)
        .addColumn("created_at", type.timestamp, (c) => c.notNull())).execute()
      // The unique index, not a check before the insert, is what keeps a slug taken once.
      await db.schema.createIndex(`${t.organizations}_slug_key`).on(t.organizations).column("slug").unique().execute()

      await tableOptions(dialect, db.schema.createTable(t.members)
        .addColumn("organization_id", type.key, (c) => c.notNull().references(organizationRef).onDelete("cascade"))
        .addColumn("user_id", type.key, (c) => c.notNull())
        .addColumn("role", type.key, (c) => c.notNull())
        .addColumn("created_at", type.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint(`${t.members}_pkey`, ["organization_id", "user_id"])).execute()
      await db.schema.createIndex(`${t.members}_user_id_idx`).on(t.members).column("user_id").execute()

      await tableOptions(dialect, db.schema.createTable(t.invitations)
        .addColumn("id", type.key, (c) => c.primaryKey())
        .addColumn("organization_id", type.key, (c) => c.notNull().references(organizationRef).onDelete("cascade"))
        .addColumn("email", type.key, (c) => c.notNull())
        .addColumn("role", type.key, (c) => c.notNull())
        .addColumn("invited_by", type.key, (c) => c.notNull())
        .addColumn("token_hash", "varchar(128)", (c) => c.notNull())
        .addColumn("status", "varchar(16)", (c) => c.notNull())
        .addColumn("expires_at", type.timestamp, (c) => c.notNull())
        .addColumn("created_at", type.timestamp, (c) => c.notNull())
        .addColumn("accepted_by", type.key)).execute()
      await db.schema.createIndex(`${t.invitations}_organization_id_idx`).on(t.invitations).column("organization_id").execute()

      await tableOptions(dialect, db.schema.createTable(t.active)
        .addColumn("session_key", type.key, (c) => c.primaryKey())
        .addColumn("organization_id", type.key, (c) => c.notNull().references(organizationRef).onDelete("cascade"))
        .addColumn("expires_at", type.timestamp, (c) => c.notNull())).execute()
      await db.schema.createIndex(`${t.active}_organization_id_idx`).on(t.active).column("organization_id").execute()
    },
    async down(db) {
      // Children first: their foreign keys point at organizations.
      for (const table of [t.active, t.invitations, t.members, t.organizations]) {
        await db.schema.dropTable(table).ifExists().execute()
      }
    },
  }
}

/**
 * Every migration of the organizations schema, by name; names sort in the order they run.
 *
 * @example
 * ```ts
 * const migrations = organizationMigrations("postgres", organizationTables("auth_"))
 * await migrations["0001_organizations"]!.up(db)
 * ```
 */
export function organizationMigrations(dialect: OrganizationSqlDialect, tables: OrganizationTables = organizationTables()): Record<string, Migration> {
  return {
    "0001_organizations": initialSchema(dialect, tables),
  }
}

/** Options of {@link migrateOrganizations}. */
export interface MigrateOrganizationsOptions {
  /** Put in front of every table name, as given to `sqlOrganizationStore`. Default none. */
  tablePrefix?: string
  /** Detected from the Kysely instance when not given. */
  dialect?: OrganizationSqlDialect
}

/**
 * Creates or upgrades the organizations tables. Safe on every start: applied migrations are
 * skipped, and concurrent runs wait on one lock, which also holds behind PgBouncer
 * in transaction pooling mode (`runMigrations` of `@portcullis/sql-adapter/migrations`). Recorded in
 * `<prefix>portcullis_organizations_migrations`, apart from the SQL adapter's table.
 *
 * @returns the names of the migrations this call applied (empty when up to date).
 * @throws the first migration's error; it and later ones are not recorded.
 * @example
 * ```ts
 * import { migrateOrganizations } from "@portcullis/organizations/sql"
 *
 * await migrateToLatest(db, { dialect: "postgres" }) // the SQL adapter's tables
 * await migrateOrganizations(db)                      // then the organizations'
 * ```
 */
export async function migrateOrganizations(db: Kysely<any>, options: MigrateOrganizationsOptions = {}): Promise<string[]> {
  const dialect = resolveDialect(db, options.dialect)
  const tables = organizationTables(options.tablePrefix)
  return runMigrations(db, { migrations: organizationMigrations(dialect, tables), table: tables.migrations, dialect, label: "organizations" })
}
