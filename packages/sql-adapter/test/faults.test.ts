// The pools createPostgresKysely/createMysqlKysely build survive their server: a restart,
// a kill -9 or a 10 s pause (SIGSTOP) of a throwaway server of the test's own, under
// concurrent queries, never ends the process, every call ends in bounded time, and
// queries succeed again within 2 s of the server's return.
import pg from "pg"
import { sql, type Kysely } from "kysely"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { recoveryMs, serviceAvailable, startFaultLoad, timeUntilSuccess } from "@portcullis/adapter-test"
import { missingBinaries, startThrowawayMariadb, startThrowawayPostgres, type ThrowawayServer } from "@portcullis/adapter-test/throwaway"
import { createMysqlKysely, createPostgresKysely, type StoreLogger } from "@portcullis/sql-adapter"

/** A logger that keeps what it is told, so tests can count lines. */
function capturingLogger() {
  const lines: { level: "error" | "warn"; message: string }[] = []
  const logger: StoreLogger = {
    error: (message) => void lines.push({ level: "error", message }),
    warn: (message) => void lines.push({ level: "warn", message }),
  }
  return { lines, logger }
}

const gateFor = (kind: "postgres" | "mariadb", name: string, start: string) =>
  serviceAvailable({ name: `${name} binaries`, url: "tcp://127.0.0.1:0", start }, async () => {
    const missing = missingBinaries(kind)
    if (missing.length) throw new Error(`not installed: ${missing.join(", ")}`)
  })

const select1 = (db: Kysely<any>) => () => sql`select 1 as one`.execute(db)

/**
 * The shared scenarios: `timeouts` is what the pool was configured with, so a call during
 * a pause must end within connect + query timeouts plus slack.
 */
function faultScenarios(label: string, open: () => Promise<ThrowawayServer>, connect: (url: string, logger: StoreLogger) => Kysely<any>, boundMs: number) {
  let server: ThrowawayServer
  beforeAll(async () => {
    server = await open()
  }, 60_000)
  afterAll(() => server?.close())

  it(`${label}: a restart under 20 concurrent queries ends no process; queries succeed within 2 s of the return`, async () => {
    const { lines, logger } = capturingLogger()
    const db = connect(server.url, logger)
    await select1(db)()
    const load = startFaultLoad(select1(db), { workers: 20 })
    await new Promise((resolve) => setTimeout(resolve, 300))
    await server.restart()
    const back = Date.now()
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    const records = await load.stop()
    expect(recoveryMs(records, back)).toBeLessThanOrEqual(2_000)
    // Once recovered, everything works: the last second of calls all succeeded.
    expect(records.filter((r) => r.start > back + 1_500 && r.error)).toEqual([])
    // The outage was logged, but not once per failed call.
    const errors = lines.filter((l) => l.level === "error")
    expect(errors.length).toBeGreaterThan(0)
    expect(errors.length).toBeLessThanOrEqual(3)
    await db.destroy()
  }, 60_000)

  it(`${label}: a kill -9 ends no process; queries succeed within 2 s of the server's return`, async () => {
    const { logger } = capturingLogger()
    const db = connect(server.url, logger)
    await select1(db)()
    const load = startFaultLoad(select1(db), { workers: 10 })
    await new Promise((resolve) => setTimeout(resolve, 300))
    await server.kill()
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const failures = load.records.filter((r) => r.end && r.error).length
    await server.start()
    const back = Date.now()
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    const records = await load.stop()
    expect(failures).toBeGreaterThan(0)
    expect(recoveryMs(records, back)).toBeLessThanOrEqual(2_000)
    await db.destroy()
  }, 60_000)

  it(`${label}: a paused server (SIGSTOP 10 s) turns calls into timeouts, bounded, and recovers after SIGCONT`, async () => {
    const { logger } = capturingLogger()
    const db = connect(server.url, logger)
    await select1(db)()
    const load = startFaultLoad(select1(db), { workers: 20, pauseMs: 50 })
    await new Promise((resolve) => setTimeout(resolve, 300))
    server.pause()
    const paused = Date.now()
    await new Promise((resolve) => setTimeout(resolve, 10_000))
    server.resume()
    const back = Date.now()
    const duringPause = load.records.filter((r) => r.start >= paused + 100 && r.end && r.end <= back)
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    const records = await load.stop()
    // Calls ended (with an error) while the server was still stopped: nothing waits for the outage.
    expect(duringPause.length).toBeGreaterThan(0)
    expect(duringPause.every((r) => r.error)).toBe(true)
    const started = records.filter((r) => r.start >= paused && r.start < back)
    expect(Math.max(...started.map((r) => r.end - r.start))).toBeLessThanOrEqual(boundMs)
    expect(recoveryMs(records, back)).toBeLessThanOrEqual(2_000)
    await db.destroy()
  }, 60_000)
}

const pgGate = await gateFor("postgres", "PostgreSQL", "apt-get install postgresql (initdb and postgres on PATH or in /usr/lib/postgresql/*/bin)")

pgGate.describe("PostgreSQL pool faults", () => {
  faultScenarios(
    "PostgreSQL",
    startThrowawayPostgres,
    (url, logger) => createPostgresKysely(url, { pool: { max: 5, connectTimeoutMs: 1_000, queryTimeoutMs: 1_000, logger } }),
    // wait for a connection (1 s) + client query timeout (1 s + 1 s) + slack
    4_000,
  )

  describe("a pool the app made", () => {
    let server: ThrowawayServer
    beforeAll(async () => {
      server = await startThrowawayPostgres()
    }, 60_000)
    afterAll(() => server?.close())

    it("without an error listener: warned about once, and guarded so a restart under load ends no process", async () => {
      const { lines, logger } = capturingLogger()
      const pool = new pg.Pool({ connectionString: server.url, max: 5 })
      const db = createPostgresKysely(pool, { pool: { logger } })
      expect(lines.filter((l) => l.level === "warn")).toHaveLength(1)
      expect(lines[0]!.message).toMatch(/no 'error' listener/)
      await select1(db)()
      const load = startFaultLoad(select1(db), { workers: 10 })
      await new Promise((resolve) => setTimeout(resolve, 200))
      await server.restart()
      const recovered = await timeUntilSuccess(select1(db))
      await load.stop()
      expect(recovered).toBeLessThanOrEqual(2_000)
      expect(lines.filter((l) => l.level === "warn" && /listener/.test(l.message))).toHaveLength(1)
      await db.destroy()
    }, 60_000)

    it("every connection it hands out has an error listener from the moment pg-pool takes its own off", async () => {
      // A server shutting down can send its FATAL in the same packet as a new connection's
      // ReadyForQuery: pg parses it before connect()'s promise lets anyone attach a listener.
      // A microtask queued on `acquire` runs inside that gap, so it sees what that FATAL would.
      const pool = new pg.Pool({ connectionString: server.url, max: 2 })
      pool.on("error", () => {})
      const db = createPostgresKysely(pool, { pool: { logger: capturingLogger().logger } })
      const listeners: number[] = []
      pool.on("acquire", (client: pg.PoolClient) => queueMicrotask(() => listeners.push(client.listenerCount("error"))))
      await Promise.all([select1(db)(), select1(db)()])
      await select1(db)()
      expect(listeners).toHaveLength(3)
      expect(listeners.every((n) => n >= 1)).toBe(true)
      await db.destroy()
    })

    it("with its own error listener: no warning", async () => {
      const { lines, logger } = capturingLogger()
      const pool = new pg.Pool({ connectionString: server.url })
      pool.on("error", () => {})
      const db = createPostgresKysely(pool, { pool: { logger } })
      expect(lines).toEqual([])
      await db.destroy()
    })
  })
})

const mariadbGate = await gateFor("mariadb", "MariaDB", "apt-get install mariadb-server (mariadb-install-db and mariadbd)")

mariadbGate.describe("MariaDB pool faults", () => {
  faultScenarios(
    "MariaDB",
    startThrowawayMariadb,
    (url, logger) => createMysqlKysely(url, { pool: { connectionLimit: 5, connectTimeoutMs: 1_000, acquireTimeoutMs: 1_000, queryTimeoutMs: 1_000, logger } }),
    // wait for a connection (1 s) or connect (1 s) + query (1 s) + slack
    3_500,
  )
})
