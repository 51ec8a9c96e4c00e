/**
 * Every extension's migrations through PgBouncer in transaction pooling mode (issue 35):
 * instances starting at once each run the extension's `migrate` (the `/sql` entry that
 * `portcullis migrate --with` calls), all through the pooler. They used to take Kysely's
 * session-level lock, which the pooler breaks: the lock stayed held on a pooled server
 * connection and the instances collided on CREATE TABLE. Now all of them go through
 * `runMigrations` of `@portcullis/sql-adapter/migrations`.
 */
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { pgbouncerAvailable, pgbouncerService, postgresService } from "@portcullis/adapter-test"
import { randomTablePrefix } from "@portcullis/adapter-test/sql"
import { main } from "@portcullis/cli"
import { migrate as migrateAdmin } from "@portcullis/admin/sql"
import { migrate as migrateOidcProvider } from "@portcullis/oidc-provider/sql"
import { migrate as migrateOrganizations } from "@portcullis/organizations/sql"
import { migrate as migrateSso } from "@portcullis/sso/sql"
import { createPostgresKysely } from "@portcullis/sql-adapter"

const gate = await pgbouncerAvailable()
const pooler = pgbouncerService().url
const INSTANCES = 8

/** Each extension's `/sql` `migrate` and the table its runs are recorded in. */
const extensions = [
  { name: "@portcullis/organizations", migrate: migrateOrganizations, table: (prefix: string) => `${prefix}portcullis_organizations_migrations` },
  { name: "@portcullis/sso", migrate: migrateSso, table: (prefix: string) => `${prefix}portcullis_sso_migrations` },
  { name: "@portcullis/admin", migrate: migrateAdmin, table: (prefix: string) => `${prefix}admin_migrations` },
  { name: "@portcullis/oidc-provider", migrate: migrateOidcProvider, table: (prefix: string) => `${prefix}portcullis_oidc_provider_migrations` },
]

/** A query on a connection that bypasses the pooler: what PostgreSQL itself sees. */
async function direct<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: postgresService().url })
  await client.connect()
  try {
    return (await client.query<R>(text, values)).rows
  } finally {
    await client.end()
  }
}

/** Whether the migration lock of `table` is free (keys as in sql-adapter's migration-lock.ts). */
async function lockFree(table: string): Promise<boolean> {
  const [row] = await direct<{ free: boolean }>("select pg_try_advisory_xact_lock(1346587975, hashtext($1)) as free", [table])
  return row!.free
}

/** Drops every table whose name starts with `prefix`. */
async function dropPrefixed(prefix: string): Promise<void> {
  const rows = await direct<{ tablename: string }>("select tablename from pg_tables where schemaname = current_schema() and left(tablename, length($1)) = $1", [prefix])
  if (rows.length > 0) await direct(`drop table if exists ${rows.map((r) => `"${r.tablename}"`).join(", ")} cascade`)
}

gate.describe(`extension migrations behind PgBouncer: ${INSTANCES} instances at once`, () => {
  const prefixes: string[] = []
  afterAll(async () => {
    for (const prefix of prefixes) await dropPrefixed(prefix)
  })

  describe.each(extensions)("$name", ({ migrate, table }) => {
    it("exactly one instance applies, the others find it applied, none fails, and the lock is free after", async () => {
      const prefix = randomTablePrefix("pcmw")
      prefixes.push(prefix)
      const dbs = Array.from({ length: INSTANCES }, () => createPostgresKysely(pooler, { pool: { max: 2, queryTimeoutMs: 30_000 } }))
      try {
        const runs = await Promise.allSettled(dbs.map((db) => migrate(db, { tablePrefix: prefix })))
        expect(runs.filter((r) => r.status === "rejected")).toEqual([])
        const applied = runs.map((r) => (r as PromiseFulfilledResult<string[]>).value)
        const appliers = applied.filter((names) => names.length > 0)
        expect(appliers).toHaveLength(1)
        // Each migration recorded once, as the one instance that applied them reports.
        const recorded = await direct<{ name: string }>(`select name from "${table(prefix)}" order by name`)
        expect(recorded.map((r) => r.name)).toEqual(appliers[0])
        // Seen from outside the pooler: a lock left on a pooled server connection would hold
        // every later migration of every client.
        expect(await lockFree(table(prefix))).toBe(true)
        // And a later run through the pooler is not held off.
        expect(await migrate(dbs[INSTANCES - 1]!, { tablePrefix: prefix })).toEqual([])
      } finally {
        await Promise.all(dbs.map((db) => db.destroy()))
      }
    }, 120_000)
  })

  it(`portcullis migrate --with every extension, ${INSTANCES} at once: each migration applied once, every run exits 0`, async () => {
    const prefix = randomTablePrefix("pcmc")
    prefixes.push(prefix)
    const withAll = extensions.flatMap(({ name }) => ["--with", name])
    const runs = await Promise.all(Array.from({ length: INSTANCES }, async () => {
      const out: string[] = []
      const err: string[] = []
      const code = await main(["migrate", "--url", pooler, "--table-prefix", prefix, ...withAll], { out: (s) => out.push(s), err: (s) => err.push(s), env: {}, cwd: process.cwd() })
      return { code, out, err }
    }))
    expect(runs.map((r) => r.err).flat()).toEqual([])
    expect(runs.map((r) => r.code)).toEqual(Array(INSTANCES).fill(0))
    const appliedLines = runs.flatMap((r) => r.out).filter((line) => line.includes(": applied "))
    expect(new Set(appliedLines).size).toBe(appliedLines.length)
    for (const { name, table } of extensions) {
      const recorded = await direct<{ name: string }>(`select name from "${table(prefix)}" order by name`)
      expect(recorded.length, name).toBeGreaterThan(0)
      expect(appliedLines.filter((line) => line.includes(`applied ${name} `)).length, name).toBe(recorded.length)
      expect(await lockFree(table(prefix)), name).toBe(true)
    }
  }, 180_000)
})
