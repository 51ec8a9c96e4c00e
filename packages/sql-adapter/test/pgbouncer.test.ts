// The whole SQL suite (adapter conformance, rate-limit store, session registry, schema and
// migrations) through PgBouncer in transaction pooling mode (scripts/pgbouncer.sh start):
// consecutive statements of one Kysely connection may land on different server
// connections, so anything that leans on session state (named prepared statements, SET,
// session advisory locks, temporary tables, LISTEN) would fail here.
import { fileURLToPath } from "node:url"
import pg from "pg"
import { afterAll, beforeAll, expect, it } from "vitest"
import { askAll, pgbouncerAvailable, pgbouncerService, postgresService, startWorkers } from "@portcullis/adapter-test"
import { dropTables, randomTablePrefix } from "@portcullis/adapter-test/sql"
import { createPostgresKysely, migrateToLatest, prefixedTables } from "@portcullis/sql-adapter"
import { runSqlSuites, SqlTestDatabase } from "./harness.js"

const service = pgbouncerService()
const gate = await pgbouncerAvailable()

gate.describe("PostgreSQL behind PgBouncer (transaction pooling)", () => {
  runSqlSuites("PostgreSQL behind PgBouncer", "postgres", (config) => createPostgresKysely(service.url, config))
})

gate.describe("migrateToLatest behind PgBouncer: 12 instances starting at once", () => {
  // Kysely's own lock is session-level, taken and released in statements of their own:
  // behind the pooler it was released on the wrong server connection and stayed held on
  // another one (for every later client), and the instances collided on CREATE TABLE.
  const prefix = randomTablePrefix("pcb")
  const tables = prefixedTables(prefix)
  const migrationTableName = `${prefix}migrations`
  const dbs = Array.from({ length: 12 }, () => createPostgresKysely(service.url, { pool: { max: 2, queryTimeoutMs: 20_000 } }))
  afterAll(async () => {
    await dropTables(dbs[0]!, [tables.auditRecords, tables.passwords, tables.twoFactor, tables.locks, tables.sessionRegistry, tables.rateLimits,
      tables.authenticators, tables.verificationTokens, tables.sessions, tables.accounts, tables.users, migrationTableName, `${migrationTableName}_lock`])
    await Promise.all(dbs.slice(1).map((db) => db.destroy()))
  })

  it("exactly one applies the migrations, the others find them applied, and no advisory lock stays held", async () => {
    const runs = await Promise.all(dbs.map((db) => migrateToLatest(db, { dialect: "postgres", tables, migrationTableName })))
    expect(runs.filter((applied) => applied.length > 0)).toHaveLength(1)
    expect(runs.flat()).toHaveLength(8)
    // Looked at from outside the pooler: a lock left on a pooled server connection would
    // hold every later migration of every client.
    const direct = new pg.Client({ connectionString: postgresService().url })
    await direct.connect()
    try {
      // The lock's keys: Portcullis's class and the migration table's hash (migration-lock.ts).
      const { rows } = await direct.query("select pg_try_advisory_xact_lock(1346587975, hashtext($1)) as free", [migrationTableName])
      expect(rows[0].free).toBe(true)
    } finally {
      await direct.end()
    }
    // And a later run through the pooler is not held off by anything.
    expect(await migrateToLatest(dbs[3]!, { dialect: "postgres", tables, migrationTableName })).toEqual([])
  }, 60_000)
})

gate.describe("two processes behind PgBouncer", () => {
  const worker = fileURLToPath(new URL("./fixtures/take-worker.ts", import.meta.url))
  const database = new SqlTestDatabase("postgres", (config) => createPostgresKysely(service.url, config))
  beforeAll(async () => {
    database.open(false)
    await database.migrate()
  })
  afterAll(() => database.close())

  it("of 2 × 25 concurrent takes of one verification token, exactly one wins", async () => {
    const identifier = `two-${crypto.randomUUID()}@example.com`
    const token = crypto.randomUUID()
    await database.adapter().createVerificationToken!({ identifier, token, expires: new Date(Date.now() + 600_000) })
    const workers = await startWorkers(worker, [1, 2].map(() => ({ url: service.url, prefix: database.prefix, identifier, token, count: 25 })))
    try {
      const outcomes = (await askAll(workers, "go")).flatMap((line) => JSON.parse(line) as string[])
      expect(outcomes).toHaveLength(50)
      expect(outcomes.filter((o) => o.startsWith("error"))).toEqual([])
      expect(outcomes.filter((o) => o === "won")).toHaveLength(1)
      expect(await database.raw().verificationToken!(identifier, token)).toBeUndefined()
    } finally {
      for (const w of workers) w.stop()
    }
  }, 60_000)
})

gate.describe("migrateToLatest inside the app's own transaction, behind PgBouncer", () => {
  const prefix = randomTablePrefix("pcb")
  const tables = prefixedTables(prefix)
  const migrationTableName = `${prefix}migrations`
  const db = createPostgresKysely(service.url)
  afterAll(() => dropTables(db, [tables.auditRecords, tables.passwords, tables.twoFactor, tables.locks, tables.sessionRegistry, tables.rateLimits,
    tables.authenticators, tables.verificationTokens, tables.sessions, tables.accounts, tables.users, migrationTableName, `${migrationTableName}_lock`]))

  it("migrates in it, and a rollback leaves no table behind", async () => {
    const rolledBack = new Error("rolled back on purpose")
    await expect(db.transaction().execute(async (trx) => {
      expect(await migrateToLatest(trx, { dialect: "postgres", tables, migrationTableName })).toHaveLength(8)
      throw rolledBack
    })).rejects.toBe(rolledBack)
    expect(await migrateToLatest(db, { dialect: "postgres", tables, migrationTableName })).toHaveLength(8)
  })
})
