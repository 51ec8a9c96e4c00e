/**
 * `@portcullis/sql-adapter/migrations`: what an extension's SQL store needs — the adapter's
 * schema as versioned migrations, {@link runMigrations}, the runner every Portcullis SQL
 * schema (the extensions' included) goes through, and the driver-error helpers
 * ({@link isDuplicate}, {@link isRetryable}, {@link retrying}) its writes use. Migrations live
 * in code (not files) so they ship inside the package and take the configured table names. Never edit a released migration: add a new one, since
 * databases record which ran. Imports Kysely only, never a driver (`pg`, `mysql2`).
 *
 * @example
 * ```ts
 * import { runMigrations } from "@portcullis/sql-adapter/migrations"
 *
 * const applied = await runMigrations(db, { migrations: myMigrations, table: "my_extension_migrations" })
 * ```
 *
 * @example
 * ```ts
 * import { isDuplicate, retrying } from "@portcullis/sql-adapter/migrations"
 *
 * const created = await retrying(async () => {
 *   try {
 *     await db.insertInto("my_extension_items").values(item).execute()
 *     return true
 *   } catch (error) {
 *     if (isDuplicate(error)) return false
 *     throw error
 *   }
 * })
 * ```
 * @module
 */
import { sql, type ColumnDataType, type CreateTableBuilder, type Expression, type Kysely } from "kysely"
import type { Migration } from "kysely/migration"
import { runMigrations } from "./migration-runner.js"
import { DEFAULT_MIGRATION_TABLE, resolveTables, type SqlDialect, type TableNames } from "./tables.js"

export { runMigrations } from "./migration-runner.js"
export type { RunMigrationsOptions } from "./migration-runner.js"
export { isDuplicate, isRetryable, retrying } from "./driver-errors.js"

type DataType = ColumnDataType | Expression<unknown>

/** Column types per dialect, for the few kinds the schema uses. */
function columnTypes(dialect: SqlDialect) {
  return {
    key: "varchar(255)" as DataType,
    text: "text" as DataType,
    // UTC instants: timestamptz on PostgreSQL, datetime(3) (read and written as UTC by a
    // mysql2 pool with `timezone: "Z"`) on MySQL, ISO 8601 text on SQLite.
    timestamp: (dialect === "postgres" ? "timestamptz" : dialect === "mysql" ? "datetime(3)" : "text") as DataType,
    // 64-bit: WebAuthn counters are unsigned 32-bit and expires_at outlives 2038.
    bigint: (dialect === "sqlite" ? "integer" : "bigint") as DataType,
    boolean: (dialect === "sqlite" ? "integer" : "boolean") as DataType,
  }
}

/**
 * On MySQL, binary collation makes comparisons exact, like on the other databases: case
 * matters in credential ids (base64) and tokens, and the email lookup is exact by contract.
 */
function tableOptions<T extends string, C extends string>(dialect: SqlDialect, builder: CreateTableBuilder<T, C>) {
  return dialect === "mysql"
    ? builder.modifyEnd(sql`engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`)
    : builder
}

function initialSchema(dialect: SqlDialect, t: TableNames): Migration {
  const type = columnTypes(dialect)
  const userRef = `${t.users}.id`
  return {
    async up(db) {
      await tableOptions(dialect, db.schema.createTable(t.users)
        .addColumn("id", type.key, (c) => c.primaryKey())
        .addColumn("name", type.text)
        .addColumn("email", type.key)
        .addColumn("emailVerified", type.timestamp)
        .addColumn("image", type.text)).execute()
      await db.schema.createIndex(`${t.users}_email_key`).on(t.users).column("email").unique().execute()

      await tableOptions(dialect, db.schema.createTable(t.accounts)
        .addColumn("id", type.key, (c) => c.primaryKey())
        .addColumn("userId", type.key, (c) => c.notNull().references(userRef).onDelete("cascade"))
        .addColumn("type", type.key, (c) => c.notNull())
        .addColumn("provider", type.key, (c) => c.notNull())
        .addColumn("providerAccountId", type.key, (c) => c.notNull())
        .addColumn("refresh_token", type.text)
        .addColumn("access_token", type.text)
        .addColumn("expires_at", type.bigint)
        .addColumn("token_type", type.key)
        .addColumn("scope", type.text)
        .addColumn("id_token", type.text)
        .addColumn("session_state", type.text)).execute()
      await db.schema.createIndex(`${t.accounts}_provider_key`).on(t.accounts)
        .columns(["provider", "providerAccountId"]).unique().execute()
      await db.schema.createIndex(`${t.accounts}_userId_idx`).on(t.accounts).column("userId").execute()

      await tableOptions(dialect, db.schema.createTable(t.sessions)
        .addColumn("id", type.key, (c) => c.primaryKey())
        .addColumn("sessionToken", type.key, (c) => c.notNull())
        .addColumn("userId", type.key, (c) => c.notNull().references(userRef).onDelete("cascade"))
        .addColumn("expires", type.timestamp, (c) => c.notNull())).execute()
      await db.schema.createIndex(`${t.sessions}_sessionToken_key`).on(t.sessions).column("sessionToken").unique().execute()
      await db.schema.createIndex(`${t.sessions}_userId_idx`).on(t.sessions).column("userId").execute()

      await tableOptions(dialect, db.schema.createTable(t.verificationTokens)
        .addColumn("identifier", type.key, (c) => c.notNull())
        .addColumn("token", type.key, (c) => c.notNull())
        .addColumn("expires", type.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint(`${t.verificationTokens}_pkey`, ["identifier", "token"])).execute()

      await tableOptions(dialect, db.schema.createTable(t.authenticators)
        .addColumn("credentialID", type.key, (c) => c.primaryKey())
        .addColumn("userId", type.key, (c) => c.notNull().references(userRef).onDelete("cascade"))
        .addColumn("providerAccountId", type.key, (c) => c.notNull())
        .addColumn("credentialPublicKey", type.text, (c) => c.notNull())
        .addColumn("counter", type.bigint, (c) => c.notNull())
        .addColumn("credentialDeviceType", type.key, (c) => c.notNull())
        .addColumn("credentialBackedUp", type.boolean, (c) => c.notNull())
        .addColumn("transports", type.key)).execute()
      await db.schema.createIndex(`${t.authenticators}_userId_idx`).on(t.authenticators).column("userId").execute()
    },
    async down(db) {
      // Children first: the foreign keys point at users.
      for (const table of [t.authenticators, t.verificationTokens, t.sessions, t.accounts, t.users]) {
        await db.schema.dropTable(table).ifExists().execute()
      }
    },
  }
}

/**
 * The rate-limit counters of `sqlRateLimitStore`: one row per counter, its window's end as
 * epoch milliseconds (a plain integer reads the same on every dialect), indexed for the sweep.
 */
function rateLimits(dialect: SqlDialect, t: TableNames): Migration {
  const type = columnTypes(dialect)
  return {
    async up(db) {
      await tableOptions(dialect, db.schema.createTable(t.rateLimits)
        .addColumn("counter_key", type.key, (c) => c.primaryKey())
        .addColumn("points", type.bigint, (c) => c.notNull())
        .addColumn("expires_at", type.bigint, (c) => c.notNull())).execute()
      await db.schema.createIndex(`${t.rateLimits}_expires_at_idx`).on(t.rateLimits).column("expires_at").execute()
    },
    async down(db) {
      await db.schema.dropTable(t.rateLimits).ifExists().execute()
    },
  }
}

/**
 * Session management (`docs/sessions.md`): metadata columns on the sessions table, all
 * nullable (rows from before stay valid; `session.metadata: true` fills them), and the
 * registry table of JWT sessions. An Auth.js database that never runs this keeps working:
 * Portcullis writes these columns only when told to.
 */
function sessionManagement(dialect: SqlDialect, t: TableNames): Migration {
  const type = columnTypes(dialect)
  return {
    async up(db) {
      await db.schema.alterTable(t.sessions).addColumn("createdAt", type.timestamp).execute()
      await db.schema.alterTable(t.sessions).addColumn("lastSeenAt", type.timestamp).execute()
      await db.schema.alterTable(t.sessions).addColumn("userAgent", type.text).execute()
      await db.schema.alterTable(t.sessions).addColumn("ipAddress", "varchar(64)").execute()

      await tableOptions(dialect, db.schema.createTable(t.sessionRegistry)
        .addColumn("id", "varchar(64)", (c) => c.primaryKey())
        .addColumn("userId", type.key, (c) => c.notNull())
        .addColumn("createdAt", type.timestamp, (c) => c.notNull())
        .addColumn("lastSeenAt", type.timestamp, (c) => c.notNull())
        .addColumn("expires", type.timestamp, (c) => c.notNull())
        .addColumn("userAgent", type.text)
        .addColumn("ipAddress", "varchar(64)")).execute()
      await db.schema.createIndex(`${t.sessionRegistry}_userId_idx`).on(t.sessionRegistry).column("userId").execute()
    },
    async down(db) {
      await db.schema.dropTable(t.sessionRegistry).ifExists().execute()
      for (const column of ["ipAddress", "userAgent", "lastSeenAt", "createdAt"]) {
        await db.schema.alterTable(t.sessions).dropColumn(column).execute()
      }
    },
  }
}

/**
 * Provider token refresh: the re-consent mark on accounts (`invalid_grant` seen) and the
 * locks table, so that of several app instances one refreshes an account at a time.
 * `expires` is milliseconds since the epoch, compared with the app's clock (as Redis's PX).
 */
function tokenRefreshSchema(dialect: SqlDialect, t: TableNames): Migration {
  const type = columnTypes(dialect)
  return {
    async up(db) {
      await db.schema.alterTable(t.accounts).addColumn("reauth_required", type.boolean).execute()
      await tableOptions(dialect, db.schema.createTable(t.locks)
        .addColumn("key", type.key, (c) => c.primaryKey())
        .addColumn("owner", type.key, (c) => c.notNull())
        .addColumn("value", type.text)
        .addColumn("expires", type.bigint, (c) => c.notNull())).execute()
    },
    async down(db) {
      await db.schema.dropTable(t.locks).ifExists().execute()
      await db.schema.alterTable(t.accounts).dropColumn("reauth_required").execute()
    },
  }
}

/**
 * Two-factor authentication (docs/two-factor.md): one row per enrolled user, removed with
 * the user. `secret` is sealed by Portcullis before it gets here; `backupCodes` is a JSON
 * array of hashes, replaced whole by a compare-and-set so one code is used once.
 */
function twoFactorSchema(dialect: SqlDialect, t: TableNames): Migration {
  const type = columnTypes(dialect)
  return {
    async up(db) {
      await tableOptions(dialect, db.schema.createTable(t.twoFactor)
        .addColumn("userId", type.key, (c) => c.primaryKey().references(`${t.users}.id`).onDelete("cascade"))
        .addColumn("secret", type.text, (c) => c.notNull())
        .addColumn("enabled", type.boolean, (c) => c.notNull())
        .addColumn("lastUsedStep", type.bigint)
        .addColumn("backupCodes", type.text, (c) => c.notNull())).execute()
    },
    async down(db) {
      await db.schema.dropTable(t.twoFactor).ifExists().execute()
    },
  }
}

/**
 * The password provider's store: one hash per user, in its own table keyed by the user's
 * id, so Auth.js's users table stays as it is and no user read carries a hash. `updatedAt`
 * records the last change (a reset, a change, a rehash).
 */
function passwordsSchema(dialect: SqlDialect, t: TableNames): Migration {
  const type = columnTypes(dialect)
  return {
    async up(db) {
      await tableOptions(dialect, db.schema.createTable(t.passwords)
        .addColumn("userId", type.key, (c) => c.primaryKey().references(`${t.users}.id`).onDelete("cascade"))
        .addColumn("hash", type.text, (c) => c.notNull())
        .addColumn("updatedAt", type.timestamp, (c) => c.notNull())).execute()
    },
    async down(db) {
      await db.schema.dropTable(t.passwords).ifExists().execute()
    },
  }
}

/**
 * The stored audit trail (issue 29, docs/observability.md "Storing the audit trail"): one row
 * per audit event, its fields as columns and `details` as JSON text. No foreign key to users:
 * the trail outlives the accounts it is about (a deleted user's sign-ins stay on record until
 * retention removes them). `time` is epoch milliseconds — a plain integer orders and compares
 * the same on every dialect — and every index ends in (`time`, `id`), the pages' keyset.
 * `id` compares byte by byte (the C collation on PostgreSQL, binary on MySQL, SQLite's own),
 * as the core's cursor does.
 */
function auditTrailSchema(dialect: SqlDialect, t: TableNames): Migration {
  const type = columnTypes(dialect)
  const id = (dialect === "postgres" ? sql`varchar(64) collate "C"` : "varchar(64)") as DataType
  return {
    async up(db) {
      await tableOptions(dialect, db.schema.createTable(t.auditRecords)
        .addColumn("id", id, (c) => c.primaryKey())
        .addColumn("time", type.bigint, (c) => c.notNull())
        .addColumn("type", "varchar(64)", (c) => c.notNull())
        .addColumn("outcome", "varchar(16)", (c) => c.notNull())
        .addColumn("user_id", type.key)
        .addColumn("actor", type.key)
        .addColumn("ip", "varchar(64)")
        .addColumn("user_agent", type.text)
        .addColumn("method", "varchar(64)")
        .addColumn("provider", type.key)
        .addColumn("reason", type.text)
        .addColumn("details", type.text)).execute()
      await db.schema.createIndex(`${t.auditRecords}_user_time_idx`).on(t.auditRecords).columns(["user_id", "time", "id"]).execute()
      await db.schema.createIndex(`${t.auditRecords}_type_time_idx`).on(t.auditRecords).columns(["type", "time", "id"]).execute()
      await db.schema.createIndex(`${t.auditRecords}_time_idx`).on(t.auditRecords).columns(["time", "id"]).execute()
    },
    async down(db) {
      await db.schema.dropTable(t.auditRecords).ifExists().execute()
    },
  }
}

/**
 * Every migration, by name; names sort in the order they must run.
 * @internal exported for tests and tools that inspect the schema.
 */
export function schemaMigrations(dialect: SqlDialect, tables: TableNames): Record<string, Migration> {
  return {
    "0001_initial_schema": initialSchema(dialect, tables),
    "0002_rate_limits": rateLimits(dialect, tables),
    "0003_session_management": sessionManagement(dialect, tables),
    "0004_token_refresh": tokenRefreshSchema(dialect, tables),
    "0005_passwords": passwordsSchema(dialect, tables),
    "0006_two_factor": twoFactorSchema(dialect, tables),
    "0007_audit_trail": auditTrailSchema(dialect, tables),
    "0008_passkey_names": passkeyNamesSchema(tables),
  }
}

/** Options of {@link migrateToLatest}. */
export interface MigrateOptions {
  dialect: SqlDialect
  /** Table names, as given to `SqlAdapter`. */
  tables?: Partial<TableNames>
  /** Where applied migrations are recorded. Default `portcullis_migrations` (plus `_lock`). */
  migrationTableName?: string
}

/**
 * Passkey names (the account center's rename, `renameAuthenticator`): one nullable column,
 * so rows from before stay valid and an app that never names a passkey never writes it.
 */
function passkeyNamesSchema(t: TableNames): Migration {
  return {
    async up(db) {
      await db.schema.alterTable(t.authenticators).addColumn("name", "varchar(64)").execute()
    },
  }
}

/**
 * Creates or upgrades the Portcullis tables. Safe to run on every start: migrations that
 * already ran are skipped, and concurrent runs wait on a migration lock. On PostgreSQL the run
 * is one transaction under `pg_advisory_xact_lock`, so it also holds behind PgBouncer in
 * transaction pooling mode ({@link runMigrations}, the runner every extension's schema uses too).
 *
 * @returns The names of the migrations applied by this call (empty when up to date).
 * @throws The first migration error; that migration and later ones are not recorded.
 * @example
 * ```ts
 * const db = createPostgresKysely(process.env.DATABASE_URL!)
 * const applied = await migrateToLatest(db, { dialect: "postgres" })
 * console.log(applied.length ? `applied ${applied.join(", ")}` : "schema up to date")
 * ```
 */
export async function migrateToLatest(db: Kysely<any>, options: MigrateOptions): Promise<string[]> {
  return runMigrations(db, {
    migrations: schemaMigrations(options.dialect, resolveTables(options.tables)),
    table: options.migrationTableName ?? DEFAULT_MIGRATION_TABLE,
    dialect: options.dialect,
  })
}
