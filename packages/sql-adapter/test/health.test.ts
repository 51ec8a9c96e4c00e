// Issue 29, health checks on a real PostgreSQL: the shared test server answers `ok` through
// the SQL adapter, over HTTP; a throwaway server of the test's own, stopped, is `down` with
// the driver's error code (and no connection string) within the probe's bound, then `ok`
// again once it is started.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serviceAvailable } from "@portcullis/adapter-test"
import { missingBinaries, startThrowawayPostgres, type ThrowawayServer } from "@portcullis/adapter-test/throwaway"
import { createAuth, type AuthConfig } from "@portcullis/core"
import { health, type HealthReport } from "@portcullis/core/integration"
import Credentials from "@portcullis/core/providers/credentials"
import { createPostgresKysely, migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import type { Kysely } from "kysely"
import { postgresGate } from "../../core/test/postgres-gate.js"
import { httpServer, type TestServer } from "../../core/test/http-server.js"

const { service, postgres } = await postgresGate()
const binaries = await serviceAvailable({ name: "postgres binaries", url: "tcp://127.0.0.1:0", start: "install PostgreSQL (initdb, postgres)" }, async () => {
  const missing = missingBinaries("postgres")
  if (missing.length) throw new Error(`not installed: ${missing.join(", ")}`)
})

const quiet = { error: () => {}, warn: () => {}, debug: () => {} }
function config(adapter: AuthConfig["adapter"], extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: "a-test-secret-with-at-least-32-characters",
    trustHost: true,
    adapter,
    session: { strategy: "database" },
    logger: quiet,
    providers: [Credentials({ credentials: { username: {} }, authorize: async () => null })],
    ...extra,
  }
}

postgres.describe("health on the shared PostgreSQL", () => {
  let database: TestDatabase
  let server: TestServer
  beforeAll(async () => {
    database = await openTestDatabase("postgres", { url: service.url })
    server = await httpServer(config(database.adapter, { health: { endpoint: true } }))
  }, 30_000)
  afterAll(async () => {
    await server?.close()
    await database?.close()
  })

  it("GET /auth/health answers 200 ok with the adapter's latency", async () => {
    const response = await fetch(`${server.origin}/auth/health`)
    expect(response.status).toBe(200)
    const report = (await response.json()) as HealthReport
    expect(report).toMatchObject({ status: "ok", checks: { config: { status: "ok" }, adapter: { status: "ok" } } })
    expect(report.checks.adapter!.latencyMs).toBeGreaterThan(0)
    expect(report.checks.adapter!.latencyMs).toBeLessThan(1_000)
  })
})

binaries.describe("health while a PostgreSQL of the test's own is stopped", () => {
  let pg: ThrowawayServer
  let db: Kysely<any>
  beforeAll(async () => {
    pg = await startThrowawayPostgres()
    db = createPostgresKysely(pg.url, { pool: { connectTimeoutMs: 500, queryTimeoutMs: 500, logger: { error: () => {}, warn: () => {} } } })
    await migrateToLatest(db, { dialect: "postgres" })
  }, 60_000)
  afterAll(async () => {
    await db?.destroy().catch(() => {})
    await pg?.close()
  })

  it("is ok, then down with the driver's code within the bound, then ok after the restart", async () => {
    const auth = createAuth(config(SqlAdapter(db)))
    expect((await health(auth)).status).toBe("ok")
    // Below: a bound of its own, so each call probes (the shared report would answer for a second).

    await pg.stop()
    const started = performance.now()
    const down = await health(auth, { timeout: 1_500 })
    expect(performance.now() - started).toBeLessThan(2_500)
    expect(down.status).toBe("down")
    expect(down.checks.adapter!.status).toBe("down")
    expect(down.checks.adapter!.error).toMatch(/^[A-Za-z0-9_.-]+$/)
    const body = JSON.stringify(down)
    expect(body).not.toContain(pg.url)
    expect(body).not.toContain("postgres://")

    await pg.start()
    await expect.poll(async () => (await health(auth, { timeout: 1_500 })).status, { timeout: 15_000, interval: 250 }).toBe("ok")
  }, 60_000)
})
