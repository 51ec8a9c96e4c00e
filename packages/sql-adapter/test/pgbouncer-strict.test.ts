// A PgBouncer as installed, with no ignore_startup_parameters: it refuses the
// statement_timeout startup parameter the adapter's pool sends by default, so such a pool
// cannot connect at all; `sendStatementTimeout: false` leaves it out and the adapter works,
// still bounded by the client-side limit.
import { sql } from "kysely"
import { afterAll, beforeAll, expect, it } from "vitest"
import { createPostgresKysely, postgresPoolConfig, type StoreLogger } from "@portcullis/sql-adapter"
import { SqlTestDatabase } from "./harness.js"
import { pgbouncerBinaryGate, startOwnPgBouncer, type OwnPgBouncer } from "./pgbouncer-harness.js"

const gate = await pgbouncerBinaryGate()
const quiet: StoreLogger = { error: () => {}, warn: () => {} }

gate.describe("a PgBouncer that refuses unknown startup parameters", () => {
  let bouncer: OwnPgBouncer
  beforeAll(async () => {
    bouncer = await startOwnPgBouncer("strict", { PGBOUNCER_IGNORE_STARTUP_PARAMETERS: "" })
  }, 60_000)
  afterAll(() => bouncer?.close())

  it("refuses the default pool (statement_timeout sent at startup), with PgBouncer's reason", async () => {
    const db = createPostgresKysely(bouncer.url, { pool: { logger: quiet } })
    try {
      await expect(sql`select 1`.execute(db)).rejects.toThrow(/unsupported startup parameter: statement_timeout/)
    } finally {
      await db.destroy()
    }
  })

  it("leaves statement_timeout out with sendStatementTimeout: false", () => {
    expect(postgresPoolConfig("postgres://h/db", { sendStatementTimeout: false })).not.toHaveProperty("statement_timeout")
    expect(postgresPoolConfig("postgres://h/db")).toHaveProperty("statement_timeout", 5_000)
  })

  it("with sendStatementTimeout: false, migrates and keeps sessions; a stuck statement still ends at the client-side limit", async () => {
    const database = new SqlTestDatabase("postgres", (kysely) =>
      createPostgresKysely(bouncer.url, { ...kysely, pool: { sendStatementTimeout: false, queryTimeoutMs: 500, logger: quiet } }))
    database.open(false)
    try {
      expect(await database.migrate()).toContain("0001_initial_schema")
      const adapter = database.adapter()
      const user = await adapter.createUser!({ id: crypto.randomUUID(), email: `${crypto.randomUUID()}@example.com`, emailVerified: null })
      const sessionToken = `tok-${crypto.randomUUID()}`
      await adapter.createSession!({ sessionToken, userId: user.id, expires: new Date(Date.now() + 3_600_000) })
      expect((await adapter.getSessionAndUser!(sessionToken))?.user.id).toBe(user.id)
      // No server-side limit on this connection (the role has none): pg's query_timeout
      // (queryTimeoutMs + 1 s) ends the wait instead.
      await expect(sql`select pg_sleep(10)`.execute(database.db)).rejects.toThrow(/timeout/i)
      expect((await adapter.getSessionAndUser!(sessionToken))?.user.id).toBe(user.id)
    } finally {
      await database.close()
    }
  }, 60_000)
})
