/**
 * One SQL database for the organization store's tests: a random table prefix per harness
 * (runs and suites sharing a database never collide), migrated on open, dropped on close.
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
import { migrateOrganizations, organizationTables, sqlOrganizationStore, type OrganizationSqlDialect } from "@portcullis/organizations/sql"
import type { OrganizationStoreHarness } from "@portcullis/organizations/testing"

export interface SqlBackend {
  label: string
  dialect: OrganizationSqlDialect
  /** A new Kysely instance on the backend's database. */
  connect(): Kysely<any>
  /** After the last harness closed (e.g. delete a SQLite file). */
  cleanup?(): Promise<void>
}

// 50 concurrent accepts queue for 10 connections: on two busy cores the wait for a free
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
  const file = join(tmpdir(), `portcullis-orgs-${randomBytes(6).toString("hex")}.db`)
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
export async function openSqlStore(backend: SqlBackend): Promise<OrganizationStoreHarness & { db: Kysely<any>; tablePrefix: string }> {
  const tablePrefix = `pco${randomBytes(4).toString("hex")}_`
  const db = backend.connect()
  await migrateOrganizations(db, { tablePrefix })
  return {
    db,
    tablePrefix,
    store: sqlOrganizationStore(db, { tablePrefix }),
    close: () => dropSchema(db, tablePrefix),
  }
}

/** Drops the prefix's tables, children first, and closes `db`. */
export async function dropSchema(db: Kysely<any>, tablePrefix: string): Promise<void> {
  const t = organizationTables(tablePrefix)
  try {
    for (const table of [t.active, t.invitations, t.members, t.organizations, t.migrations, `${t.migrations}_lock`]) {
      await db.schema.dropTable(table).ifExists().execute()
    }
  } finally {
    await db.destroy()
  }
}
