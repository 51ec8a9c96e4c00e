/**
 * `@portcullis/sql-adapter`: Portcullis storage on PostgreSQL, MySQL/MariaDB and SQLite
 * through Kysely, with the schema as versioned migrations.
 *
 * @example
 * ```ts
 * import { createSqliteKysely, migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"
 *
 * const db = createSqliteKysely("auth.db")
 * await migrateToLatest(db, { dialect: "sqlite" })
 * export const config = { adapter: SqlAdapter(db), providers: [] }
 * ```
 * @module
 */
export { SqlAdapter } from "./adapter.js"
export type { SqlAdapterOptions } from "./adapter.js"
export { SqlSessionRegistry } from "./registry.js"
export { migrateToLatest, schemaMigrations } from "./migrations.js"
export type { MigrateOptions } from "./migrations.js"
export { DEFAULT_MIGRATION_TABLE, DEFAULT_TABLES } from "./tables.js"
export type { SqlDialect, TableNames } from "./tables.js"
export { createSqliteKysely, nodeSqliteDatabase } from "./sqlite.js"
export { connectUrl, createMysqlKysely, createPostgresKysely, parseDatabaseUrl, redactUrl } from "./connect.js"
export type { MysqlKyselyConfig, ParsedDatabaseUrl, PostgresKyselyConfig } from "./connect.js"
export { createPostgresPool, guardPostgresPool, POSTGRES_POOL_DEFAULTS, postgresPoolConfig } from "./postgres-pool.js"
export type { PostgresGuardOptions, PostgresPoolOptions } from "./postgres-pool.js"
export { createMysqlPool, guardMysqlPool, MYSQL_POOL_DEFAULTS, mysqlPoolConfig } from "./mysql-pool.js"
export type { MysqlGuardOptions, MysqlPoolOptions } from "./mysql-pool.js"
export { consoleStoreLogger } from "@portcullis/core/store-log"
export type { StoreLogger } from "@portcullis/core/store-log"
export { runMigrationsCli } from "./cli.js"
export type { CliOutput } from "./cli.js"
