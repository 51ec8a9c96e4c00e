/**
 * `@portcullis/sql-adapter` as edge runtimes get it (Cloudflare Workers, Vercel's edge
 * runtime: the `workerd`, `worker`, `edge-light` and `browser` export conditions): the
 * adapter, the migrations and the URL helpers, without the Node drivers (`pg`, `mysql2`,
 * `node:sqlite`), which need TCP sockets or Node built-ins. The app brings a Kysely dialect
 * that runs there — an HTTP or WebSocket driver, e.g. for Neon, PlanetScale or D1.
 *
 * @example
 * ```ts
 * import { Kysely } from "kysely"
 * import { SqlAdapter } from "@portcullis/sql-adapter"
 *
 * const db = new Kysely<any>({ dialect: new SomeHttpDialect({ url: env.DATABASE_URL }) })
 * export const config = { adapter: SqlAdapter(db), session: { strategy: "database" }, providers: [] }
 * ```
 * @module
 */
export { SqlAdapter } from "./adapter.js"
export type { SqlAdapterOptions } from "./adapter.js"
export { SqlSessionRegistry } from "./registry.js"
export { migrateToLatest, runMigrations, schemaMigrations } from "./migrations.js"
export type { MigrateOptions, RunMigrationsOptions } from "./migrations.js"
export { migrateUnderLock } from "./migration-lock.js"
export { DEFAULT_MIGRATION_TABLE, DEFAULT_TABLES, prefixedTables } from "./tables.js"
export type { SqlDialect, TableNames } from "./tables.js"
export { parseDatabaseUrl, redactUrl } from "./url.js"
export type { ParsedDatabaseUrl } from "./url.js"
export { consoleStoreLogger } from "@portcullis/core/store-log"
export type { StoreLogger } from "@portcullis/core/store-log"
