// Issue 29, measured: a 5.4 s PostgreSQL stop under load wrote 4,754 `[auth][error]`
// entries with full cause stacks. Here a throwaway PostgreSQL of the test's own is killed
// (kill -9) for 10 s under 20 concurrent session checks of core over the SQL adapter, then
// started again: core's log holds the first failure with its chain, counts, and one
// "recovered" line — fewer than 50 lines in all.
import { afterAll, beforeAll, expect, it } from "vitest"
import { serviceAvailable, startFaultLoad } from "@portcullis/adapter-test"
import { missingBinaries, startThrowawayPostgres, type ThrowawayServer } from "@portcullis/adapter-test/throwaway"
import { createAuth } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { createPostgresKysely, migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"
import type { Kysely } from "kysely"

const gate = await serviceAvailable({ name: "postgres binaries", url: "tcp://127.0.0.1:0", start: "install PostgreSQL (initdb, postgres)" }, async () => {
  const missing = missingBinaries("postgres")
  if (missing.length) throw new Error(`not installed: ${missing.join(", ")}`)
})

gate.describe("core's log while its PostgreSQL is stopped for 10 s under load", () => {
  let server: ThrowawayServer
  let db: Kysely<any>
  beforeAll(async () => {
    server = await startThrowawayPostgres()
    db = createPostgresKysely(server.url, { pool: { connectTimeoutMs: 1_000, queryTimeoutMs: 1_000, logger: { error: () => {}, warn: () => {} } } })
    await migrateToLatest(db, { dialect: "postgres" })
  }, 60_000)
  afterAll(async () => {
    await db?.destroy().catch(() => {})
    await server?.close()
  })

  it("writes the first failure with its chain, counts, one recovered line: fewer than 50 lines", async () => {
    const lines: { level: "error" | "warn"; text: string; error?: Error }[] = []
    const auth = createAuth({
      secret: "a-test-secret-with-at-least-32-characters",
      trustedOrigins: ["http://localhost:3000"],
      adapter: SqlAdapter(db),
      session: { strategy: "database" },
      adapterTimeout: 2_000,
      logger: {
        error: (error) => void lines.push({ level: "error", text: `${error.name}: ${error.message}`, error }),
        warn: (code, details) => void lines.push({ level: "warn", text: `${code} ${JSON.stringify(details ?? {})}` }),
        debug: () => {},
      },
      providers: [Credentials({ credentials: { username: {} }, authorize: async () => ({ id: "ada", email: "ada@example.com" }) })],
    })
    // Ada signs in (a user and a session row), then 20 clients check her session in a loop.
    const csrf = await auth.handle(new Request("http://localhost:3000/auth/csrf"))
    const { csrfToken } = (await csrf.json()) as { csrfToken: string }
    const csrfCookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ")
    const signIn = await auth.handle(
      new Request("http://localhost:3000/auth/callback/credentials", { method: "POST", body: new URLSearchParams({ csrfToken, username: "ada" }), headers: { cookie: csrfCookie } }),
    )
    const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="))!.split(";")[0]!
    const check = async () => {
      const response = await auth.handle(new Request("http://localhost:3000/auth/session", { headers: { cookie } }))
      if (response.status !== 200) throw new Error(`session check answered ${response.status}`)
    }
    await check()

    const load = startFaultLoad(check, { workers: 20, pauseMs: 20 })
    await new Promise((resolve) => setTimeout(resolve, 300))
    await server.kill()
    await new Promise((resolve) => setTimeout(resolve, 10_000))
    await server.start()
    await expect.poll(() => lines.some((l) => l.text.startsWith("store-recovered")), { timeout: 15_000, interval: 200 }).toBe(true)
    const records = await load.stop()

    const failed = records.filter((r) => r.error).length
    expect(failed).toBeGreaterThan(100)
    expect(lines.length).toBeLessThan(50)
    const errors = lines.filter((l) => l.level === "error")
    expect(errors).toHaveLength(1)
    // The chain: ServiceUnavailable, its cause the driver's error, with its stack.
    expect(errors[0]!.text).toMatch(/^ServiceUnavailable: The store failed \(getSessionAndUser\)/)
    const cause = (errors[0]!.error!.cause as { err?: Error }).err
    expect(cause).toBeInstanceOf(Error)
    expect(cause!.stack).toMatch(/\n\s+at /)
    expect(lines.filter((l) => l.text.startsWith("store-recovered"))).toHaveLength(1)
    expect(lines.at(-1)!.text).toMatch(/^store-recovered \{"store":"adapter","failures":\d+/)
  }, 60_000)
})
