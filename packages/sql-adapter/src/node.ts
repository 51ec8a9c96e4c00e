/**
 * `@portcullis/sql-adapter/node`: the Node-only part — Kysely instances over the `pg` and
 * `mysql2` pools (guarded: bounded waits, errors logged, never a crashed process), SQLite
 * through `node:sqlite`, and the migrations CLI. Works on Node, Bun and Deno (Bun has no
 * `node:sqlite`); never in a Worker. `@portcullis/sql-adapter` re-exports all of it on
 * those runtimes, so existing imports keep working.
 *
 * @example
 * ```ts
 * import { createPostgresKysely } from "@portcullis/sql-adapter/node"
 * import { migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"
 *
 * const db = createPostgresKysely(process.env.DATABASE_URL!)
 * await migrateToLatest(db, { dialect: "postgres" })
 * export const config = { adapter: SqlAdapter(db), providers: [] }
 * ```
 * @module
 */
export { createSqliteKysely, nodeSqliteDatabase } from "./sqlite.js"
export { connectUrl, createMysqlKysely, createPostgresKysely } from "./connect.js"
export type { MysqlKyselyConfig, PostgresKyselyConfig } from "./connect.js"
export { createPostgresPool, guardPostgresPool, POSTGRES_POOL_DEFAULTS, postgresPoolConfig } from "./postgres-pool.js"
export type { PostgresGuardOptions, PostgresPoolOptions } from "./postgres-pool.js"
export { createMysqlPool, guardMysqlPool, MYSQL_POOL_DEFAULTS, mysqlPoolConfig } from "./mysql-pool.js"
export type { MysqlGuardOptions, MysqlPoolOptions } from "./mysql-pool.js"
export { runMigrationsCli } from "./cli.js"
export type { CliOutput, ExtensionSqlEntry, MigrationsCliOptions } from "./cli.js"
