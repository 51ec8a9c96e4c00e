/**
 * `runMigrations` (`@portcullis/sql-adapter/migrations`), the runner every Portcullis SQL
 * schema goes through: what its entry loads, a run that fails half-way through the pooler,
 * the dialect it tells by itself, and MariaDB's concurrent runs (Kysely's own lock there).
 */
import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { DialectAdapterBase, DummyDriver, Kysely, SqliteIntrospector, SqliteQueryCompiler } from "kysely"
import type { Migration } from "kysely/migration"
import { afterAll, describe, expect, it } from "vitest"
import { mysqlAvailable, mysqlService, pgbouncerAvailable, pgbouncerService, postgresService } from "@portcullis/adapter-test"
import { dropTables, randomTablePrefix } from "@portcullis/adapter-test/sql"
import { createMysqlKysely, createPostgresKysely, createSqliteKysely } from "@portcullis/sql-adapter"
import { runMigrations } from "@portcullis/sql-adapter/migrations"

const pgbouncerGate = await pgbouncerAvailable()
const mysqlGate = await mysqlAvailable()

/** One table per migration, named after it; `failAt` throws after that one's table exists. */
function tableMigrations(prefix: string, names: string[], failAt?: string): Record<string, Migration> {
  return Object.fromEntries(names.map((name) => [name, {
    async up(db: Kysely<any>) {
      await db.schema.createTable(`${prefix}${name}`).addColumn("id", "varchar(64)", (c) => c.primaryKey()).execute()
      if (name === failAt) throw new Error(`${name} broke on purpose`)
    },
  } satisfies Migration]))
}

describe("the @portcullis/sql-adapter/migrations entry", () => {
  it("loads Kysely only, never a driver: every module it reaches imports kysely or one of its own", () => {
    const seen = new Set<string>()
    const outside = new Set<string>()
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      const source = readFileSync(new URL(`../src/${file}`, import.meta.url), "utf8")
      // Runtime imports and re-exports only: `import type` / `export type` are erased.
      for (const [, specifier] of source.matchAll(/^(?:import|export)\s+(?!type\b)[^"']*?from\s+["']([^"']+)["']/gm)) {
        if (specifier!.startsWith("./")) visit(specifier!.slice(2).replace(/\.js$/, ".ts"))
        else outside.add(specifier!)
      }
    }
    visit("migrations.ts")
    expect(seen).toContain("migration-runner.ts")
    expect(seen).toContain("migration-lock.ts")
    expect(seen).toContain("driver-errors.ts")
    expect([...outside].sort()).toEqual(["kysely", "kysely/migration"])
  })

  it("also gives the stores the driver-error helpers, importing nothing at all", async () => {
    const entry = await import("@portcullis/sql-adapter/migrations")
    expect(typeof entry.isDuplicate).toBe("function")
    expect(typeof entry.isRetryable).toBe("function")
    expect(typeof entry.retrying).toBe("function")
    const source = readFileSync(new URL("../src/driver-errors.ts", import.meta.url), "utf8")
    expect(source.match(/^\s*(?:import|export)\s[^\n]*\bfrom\s/gm)).toBeNull()
  })

  it("is exported as a subpath of the package, with its types", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
    expect(manifest.exports["./migrations"]).toEqual({ types: "./dist/migrations.d.ts", default: "./dist/migrations.js" })
    expect(manifest.typesVersions["*"].migrations).toEqual(["./dist/migrations.d.ts"])
  })
})

describe("runMigrations tells the dialect from the Kysely instance", () => {
  const dirs: string[] = []
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
  })

  it("runs on SQLite without being told, once", async () => {
    const dir = await mkdtemp(join(tmpdir(), "portcullis-run-migrations-"))
    dirs.push(dir)
    const db = createSqliteKysely(join(dir, "db.sqlite"))
    try {
      const migrations = tableMigrations("x_", ["0001_a", "0002_b"])
      expect(await runMigrations(db, { migrations, table: "x_migrations", label: "x" })).toEqual(["0001_a", "0002_b"])
      expect(await runMigrations(db, { migrations, table: "x_migrations", label: "x" })).toEqual([])
    } finally {
      await db.destroy()
    }
  })

  it("refuses a dialect it cannot tell, naming the option, before touching the database", async () => {
    // A dialect Kysely does not ship: its adapter is none of Kysely's three.
    class OtherAdapter extends DialectAdapterBase {
      async acquireMigrationLock(): Promise<void> {}
      async releaseMigrationLock(): Promise<void> {}
    }
    const db = new Kysely<any>({
      dialect: {
        createAdapter: () => new OtherAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (k) => new SqliteIntrospector(k),
        createQueryCompiler: () => new SqliteQueryCompiler(),
      },
    })
    await expect(runMigrations(db, { migrations: {}, table: "y_migrations" })).rejects.toThrow(/pass \{ dialect:/)
  })
})

pgbouncerGate.describe("a run that fails half-way, behind PgBouncer", () => {
  const prefix = randomTablePrefix("pcrm")
  const table = `${prefix}migrations`
  const db = createPostgresKysely(pgbouncerService().url)
  afterAll(() => dropTables(db, [`${prefix}0001_a`, `${prefix}0002_b`, `${prefix}0003_c`, table, `${table}_lock`]))

  it("keeps nothing of the run, names the migration, frees the lock, and a fixed run applies all", async () => {
    const names = ["0001_a", "0002_b", "0003_c"]
    await expect(runMigrations(db, { migrations: tableMigrations(prefix, names, "0002_b"), table, label: "my-extension" }))
      .rejects.toThrow("my-extension migration 0002_b failed: 0002_b broke on purpose")
    const direct = new pg.Client({ connectionString: postgresService().url })
    await direct.connect()
    try {
      // One transaction: the table of 0001_a, created before 0002_b broke, is gone too.
      const { rows } = await direct.query("select tablename from pg_tables where left(tablename, length($1)) = $1", [prefix])
      expect(rows).toEqual([])
      const lock = await direct.query("select pg_try_advisory_xact_lock(1346587975, hashtext($1)) as free", [table])
      expect(lock.rows[0].free).toBe(true)
    } finally {
      await direct.end()
    }
    expect(await runMigrations(db, { migrations: tableMigrations(prefix, names), table, dialect: "postgres" })).toEqual(names)
  })
})

mysqlGate.describe("runMigrations on MariaDB: 8 instances at once, Kysely's lock as before", () => {
  const prefix = randomTablePrefix("pcrm")
  const table = `${prefix}migrations`
  const dbs = Array.from({ length: 8 }, () => createMysqlKysely(mysqlService().url, { pool: { max: 2 } }))
  afterAll(async () => {
    await dropTables(dbs[0]!, [`${prefix}0001_a`, `${prefix}0002_b`, table, `${table}_lock`])
    await Promise.all(dbs.slice(1).map((db) => db.destroy()))
  })

  it("exactly one applies, none fails", async () => {
    const migrations = tableMigrations(prefix, ["0001_a", "0002_b"])
    const runs = await Promise.all(dbs.map((db) => runMigrations(db, { migrations, table })))
    expect(runs.filter((applied) => applied.length > 0)).toEqual([["0001_a", "0002_b"]])
  })
})
