/**
 * One SQL database for the SSO store's tests: a random table prefix per harness (runs and
 * suites sharing a database never collide), migrated on open, dropped on close.
 */
import { randomBytes } from "node:crypto"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import mysql from "mysql2/promise"
import type { Kysely } from "kysely"
import { mysqlService, postgresService, serviceAvailable } from "@portcullis/adapter-test"
import { createMysqlKysely, createPostgresKysely, createSqliteKysely } from "@portcullis/sql-adapter"
import { migrateSso, sqlSsoStore, ssoTables, type SsoSqlDialect } from "@portcullis/sso/sql"
import type { SsoStoreHarness } from "@portcullis/sso/testing"

export interface SqlBackend {
  label: string
  dialect: SsoSqlDialect
  /** A new Kysely instance on the backend's database. */
  connect(): Kysely<any>
  /** After the last harness closed (e.g. delete a SQLite file). */
  cleanup?(): Promise<void>
}

// 50 concurrent calls queue for 10 connections: on two busy cores the wait for a free
// connection can pass the 5 s meant for requests, which is not what these specs test.
const pool = { connectTimeoutMs: 30_000, acquireTimeoutMs: 30_000, queryTimeoutMs: 30_000 }

export const postgres = postgresService()
export const mariadb = mysqlService()

export const postgresGate = await serviceAvailable(postgres, async () => {
  const client = new pg.Client({ connectionString: postgres.url, connectionTimeoutMillis: 3_000 })
  await client.connect()
  await client.end()
})

export const mariadbGate = await serviceAvailable(mariadb, async () => {
  const connection = await mysql.createConnection({ uri: mariadb.url, connectTimeout: 3_000 })
  await connection.end()
})

export function postgresBackend(url = postgres.url): SqlBackend {
  return { label: "PostgreSQL", dialect: "postgres", connect: () => createPostgresKysely(url, { pool }) }
}

export function mariadbBackend(): SqlBackend {
  return { label: "MariaDB/MySQL", dialect: "mysql", connect: () => createMysqlKysely(mariadb.url, { pool }) }
}

export function sqliteBackend(): SqlBackend {
  const file = join(tmpdir(), `portcullis-sso-${randomBytes(6).toString("hex")}.db`)
  return {
    label: "SQLite (node:sqlite)",
    dialect: "sqlite",
    connect: () => createSqliteKysely(file),
    async cleanup() {
      for (const suffix of ["", "-wal", "-shm"]) await rm(file + suffix, { force: true })
    },
  }
}

/** A migrated schema under a fresh prefix, and the store on it. */
export async function openSqlStore(backend: SqlBackend): Promise<SsoStoreHarness & { db: Kysely<any>; tablePrefix: string }> {
  const tablePrefix = `pcs${randomBytes(4).toString("hex")}_`
  const db = backend.connect()
  await migrateSso(db, { tablePrefix })
  return {
    db,
    tablePrefix,
    store: sqlSsoStore(db, { tablePrefix }),
    cleanup: () => dropSchema(db, tablePrefix),
  }
}

/** Drops the prefix's tables and closes `db`. */
export async function dropSchema(db: Kysely<any>, tablePrefix: string): Promise<void> {
  const t = ssoTables(tablePrefix)
  try {
    for (const table of [t.sessions, t.once, t.scimGroups, t.scimUsers, t.scimTokens, t.verifiedDomains, t.domains, t.connections, t.migrations, `${t.migrations}_lock`]) {
      await db.schema.dropTable(table).ifExists().execute()
    }
  } finally {
    await db.destroy()
  }
}
