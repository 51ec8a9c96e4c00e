/**
 * `@portcullis/sql-adapter`: Portcullis storage on PostgreSQL, MySQL/MariaDB and SQLite
 * through Kysely, with the schema as versioned migrations. This is the entry Node, Bun and
 * Deno resolve: the edge entry (`edge.ts`, what Worker and edge builds resolve) and the
 * Node drivers (`node.ts`, also `@portcullis/sql-adapter/node`) together.
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
export * from "./edge.js"
export * from "./node.js"
