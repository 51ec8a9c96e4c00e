/**
 * SQL backends for store suites, by name: the test PostgreSQL, MariaDB/MySQL and a throwaway
 * SQLite file, each a fresh Kysely on demand; random table prefixes, so runs and suites that
 * share one database never collide; and dropping a prefix's tables afterwards. Gates for the
 * servers are `postgresAvailable()` and `mysqlAvailable()` from the package index.
 * @module
 */
import { randomBytes } from "node:crypto"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Kysely } from "kysely"
import { createMysqlKysely, createPostgresKysely, createSqliteKysely } from "@portcullis/sql-adapter"
// The gates for these servers are postgresAvailable() and mysqlAvailable() in services.ts.
import { mysqlService, pgbouncerService, postgresService } from "./services.js"

/** A database a store suite runs on. */
export interface SqlBackend {
  label: string
  dialect: "postgres" | "mysql" | "sqlite"
  /** A new Kysely instance on the backend's database. */
  connect(): Kysely<any>
  /** After the last harness closed (e.g. delete a SQLite file). */
  cleanup?(): Promise<void>
}

// Concurrency specs queue 50 calls for 10 connections: on two busy cores the wait for a
// free connection can pass the 5 s meant for requests, which is not what those specs test.
const pool = { connectTimeoutMs: 30_000, acquireTimeoutMs: 30_000, queryTimeoutMs: 30_000 }

/**
 * The test PostgreSQL ({@link postgresService}), or the one at `url`.
 *
 * @example
 * ```ts
 * postgresGate.describe("PostgreSQL", () => storeSpec(postgresBackend()))
 * ```
 */
export function postgresBackend(url = postgresService().url): SqlBackend {
  return { label: "PostgreSQL", dialect: "postgres", connect: () => createPostgresKysely(url, { pool }) }
}

/**
 * The test PostgreSQL through PgBouncer in transaction pooling mode ({@link pgbouncerService}),
 * migrations included: every schema's runner (`runMigrations` of
 * `@portcullis/sql-adapter/migrations`) holds behind a transaction pooler.
 *
 * @example
 * ```ts
 * pgbouncerGate.describe("behind PgBouncer", () => storeSpec(pgbouncerBackend()))
 * ```
 */
export function pgbouncerBackend(url = pgbouncerService().url): SqlBackend {
  return { label: "PostgreSQL behind PgBouncer", dialect: "postgres", connect: () => createPostgresKysely(url, { pool }) }
}

/**
 * The test MariaDB/MySQL ({@link mysqlService}), or the one at `url`.
 *
 * @example
 * ```ts
 * mariadbGate.describe("MariaDB", () => storeSpec(mariadbBackend()))
 * ```
 */
export function mariadbBackend(url = mysqlService().url): SqlBackend {
  return { label: "MariaDB/MySQL", dialect: "mysql", connect: () => createMysqlKysely(url, { pool }) }
}

/**
 * A new SQLite file in the temporary directory, named `portcullis-<tag>-<random>.db`;
 * `cleanup` deletes it with its WAL files.
 *
 * @example
 * ```ts
 * storeSpec(sqliteBackend("sso"))
 * ```
 */
export function sqliteBackend(tag: string): SqlBackend {
  const file = join(tmpdir(), `portcullis-${tag}-${randomBytes(6).toString("hex")}.db`)
  return {
    label: "SQLite (node:sqlite)",
    dialect: "sqlite",
    connect: () => createSqliteKysely(file),
    async cleanup() {
      for (const suffix of ["", "-wal", "-shm"]) await rm(file + suffix, { force: true })
    },
  }
}

/**
 * A table prefix no other run uses: `tag`, 8 random hex digits, `_`.
 *
 * @example
 * ```ts
 * randomTablePrefix("pcs") // "pcs3f9a0c1d_"
 * ```
 */
export function randomTablePrefix(tag: string): string {
  return `${tag}${randomBytes(4).toString("hex")}_`
}

/** How a package's schema is migrated and which tables it leaves, children first. */
export interface SchemaRecipe {
  /** Starts every table prefix, e.g. `pcs` for SSO. */
  tag: string
  migrate(db: Kysely<any>, tablePrefix: string): Promise<unknown>
  /** The tables a migration under `tablePrefix` creates, children before their parents. */
  tables(tablePrefix: string): string[]
}

/**
 * Opens schemas after `recipe`, each on a new connection under a fresh prefix, and drops
 * them again.
 *
 * @example
 * ```ts
 * const schemas = prefixedSchemas({ tag: "pcs", migrate: (db, tablePrefix) => migrateSso(db, { tablePrefix }), tables })
 * const { db, tablePrefix, drop } = await schemas.open(postgresBackend())
 * ```
 */
export function prefixedSchemas(recipe: SchemaRecipe): {
  open(backend: SqlBackend): Promise<{ db: Kysely<any>; tablePrefix: string; drop(): Promise<void> }>
  drop(db: Kysely<any>, tablePrefix: string): Promise<void>
} {
  const drop = (db: Kysely<any>, tablePrefix: string) => dropTables(db, recipe.tables(tablePrefix))
  return {
    async open(backend) {
      const tablePrefix = randomTablePrefix(recipe.tag)
      const db = backend.connect()
      await recipe.migrate(db, tablePrefix)
      return { db, tablePrefix, drop: () => drop(db, tablePrefix) }
    },
    drop,
  }
}

/**
 * Drops `tables` in the order given (children before the tables they reference) when they
 * exist, then closes `db`, also when a drop fails.
 *
 * @example
 * ```ts
 * await dropTables(db, [t.members, t.organizations, t.migrations, `${t.migrations}_lock`])
 * ```
 */
export async function dropTables(db: Kysely<any>, tables: readonly string[]): Promise<void> {
  try {
    for (const table of tables) await db.schema.dropTable(table).ifExists().execute()
  } finally {
    await db.destroy()
  }
}

