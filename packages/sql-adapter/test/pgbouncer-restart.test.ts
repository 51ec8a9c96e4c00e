// A PgBouncer of the test's own (scripts/pgbouncer.sh on a free port, transaction pooling)
// restarted while 50 loops run: 25 check a database session through core, 25 create a
// verification token and race three takes of it. The process survives, a check answers 200
// with the user or a clean 503 (never a 500, never "signed out"), checks succeed again once
// PgBouncer is back, and no token is ever handed out twice, also counting the takes after.
import { afterAll, beforeAll, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { createPostgresKysely, type StoreLogger } from "@portcullis/sql-adapter"
import { SqlTestDatabase } from "./harness.js"
import { pgbouncerBinaryGate, startOwnPgBouncer, type OwnPgBouncer } from "./pgbouncer-harness.js"

const gate = await pgbouncerBinaryGate()

const quiet: StoreLogger = { error: () => {}, warn: () => {} }

interface Check { start: number; status: number; email?: string; body?: string }
interface Take { start: number; created: boolean; identifier: string; token: string; winners: number; errors: number }

gate.describe("PgBouncer restarted under load", () => {
  let bouncer: OwnPgBouncer
  let database: SqlTestDatabase
  let config: AuthConfig
  let email: string
  let sessionToken: string

  beforeAll(async () => {
    bouncer = await startOwnPgBouncer("restart")
    // The pool's limits are wide for the same reason as adapterTimeout below.
    database = new SqlTestDatabase("postgres", (kysely) => createPostgresKysely(bouncer.url, { ...kysely, pool: { max: 10, connectTimeoutMs: 5_000, queryTimeoutMs: 5_000, logger: quiet } }))
    database.open(false)
    await database.migrate()
    const adapter = database.adapter()
    // The session answer carries the user's email (not the id): that is what a check compares.
    email = `${crypto.randomUUID()}@example.com`
    const userId = (await adapter.createUser!({ id: crypto.randomUUID(), email, emailVerified: null })).id
    sessionToken = `tok-${crypto.randomUUID()}`
    await adapter.createSession!({ sessionToken, userId, expires: new Date(Date.now() + 3_600_000) })
    config = {
      secret: "pgbouncer-restart-secret-0123456789abcdef",
      trustHost: true,
      basePath: "/auth",
      adapter,
      // Generous: 50 loops share 10 connections on a busy machine; what fails here must be
      // the restart, not a wait for a free connection.
      adapterTimeout: 10_000,
      session: { strategy: "database" },
      logger: { error: () => {}, warn: () => {} },
      providers: [],
    }
  }, 60_000)
  afterAll(async () => {
    await database?.close()
    await bouncer?.close()
  })

  const check = async (): Promise<Check> => {
    const start = Date.now()
    const response = await Auth(new Request("http://localhost:3000/auth/session", { headers: { cookie: `authjs.session-token=${sessionToken}` } }), config)
    const body = await response.text()
    const email = response.status === 200 ? (JSON.parse(body) as { user?: { email?: string } } | null)?.user?.email : undefined
    return { start, status: response.status, email, body }
  }

  const takeRace = async (): Promise<Take> => {
    const adapter = database.adapter()
    const start = Date.now()
    const identifier = `restart-${crypto.randomUUID()}@example.com`
    const token = crypto.randomUUID()
    const take: Take = { start, created: false, identifier, token, winners: 0, errors: 0 }
    try {
      await adapter.createVerificationToken!({ identifier, token, expires: new Date(Date.now() + 600_000) })
      take.created = true
    } catch {
      take.errors++
      return take
    }
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => adapter.useVerificationToken!({ identifier, token })))
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") take.errors++
      else if (outcome.value) take.winners++
    }
    return take
  }

  it("keeps the process, answers 200 or a clean 503, recovers, and hands no token out twice", async () => {
    expect((await check()).email).toBe(email)
    const checks: Check[] = []
    const takes: Take[] = []
    let stopped = false
    const loop = async <T>(call: () => Promise<T>, into: T[]) => {
      while (!stopped) {
        into.push(await call())
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    }
    const loops = [
      ...Array.from({ length: 25 }, () => loop(check, checks)),
      ...Array.from({ length: 25 }, () => loop(takeRace, takes)),
    ]
    try {
      await expect.poll(() => checks.length + takes.length, { timeout: 30_000 }).toBeGreaterThan(100)
      // SIGTERM: PgBouncer drops every client and server connection at once, then starts again.
      await bouncer.run("restart")
      const back = Date.now()
      // Recovered: a check started after the restart answered with the user...
      await expect.poll(() => checks.some((c) => c.start > back && c.email === email), { timeout: 30_000, interval: 100 }).toBe(true)
      const recovered = Math.min(...checks.filter((c) => c.start > back && c.email === email).map((c) => c.start))
      // ...and 100 more calls ran after that.
      const mark = checks.length + takes.length
      await expect.poll(() => checks.length + takes.length - mark, { timeout: 30_000 }).toBeGreaterThan(100)
      stopped = true
      await Promise.all(loops)

      // The restart cost requests: the connections open at that moment were cut.
      expect(checks.filter((c) => c.status === 503).length + takes.filter((t) => t.errors > 0).length).toBeGreaterThan(0)
      // Every check answered the user or a clean 503: never a 500, never a signed-out 200.
      const wrong = checks.filter((c) => !(c.status === 503 || (c.status === 200 && c.email === email)))
      expect(wrong.map((c) => `${c.status} ${c.body?.slice(0, 120)}`)).toEqual([])
      // After the recovery every call succeeded.
      expect(checks.filter((c) => c.start > recovered + 1_000 && c.status !== 200)).toEqual([])
      expect(takes.filter((t) => t.start > recovered + 1_000 && (t.errors > 0 || t.winners !== 1))).toEqual([])

      // Single use held through the restart: never two winners; a race that met no fault had
      // exactly one. A token whose takes all failed is still taken at most once from now on.
      expect(takes.filter((t) => t.winners > 1)).toEqual([])
      expect(takes.filter((t) => t.created && t.errors === 0 && t.winners !== 1)).toEqual([])
      const adapter = database.adapter()
      for (const t of takes.filter((t) => t.created)) {
        const again = await adapter.useVerificationToken!({ identifier: t.identifier, token: t.token })
        expect(t.winners + (again ? 1 : 0)).toBeLessThanOrEqual(1)
        if (t.winners === 1) expect(again).toBeNull()
      }
      // Nothing half-written: the session row is as it was created.
      expect((await check()).email).toBe(email)
    } finally {
      stopped = true
      await Promise.all(loops)
    }
  }, 120_000)
})
