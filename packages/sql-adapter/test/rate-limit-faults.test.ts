// The SQL rate-limit store when its PostgreSQL stops answering: a throwaway server of the
// test's own, paused (SIGSTOP: connections stay open, nothing answers) and then killed.
// Every request is answered within `rateLimit.timeout` plus the request's own work —
// credentials with 503 (fail closed), the session update let through (fail open) — and
// counting resumes when the server does.
import { afterAll, beforeAll, expect, it } from "vitest"
import { serviceAvailable } from "@portcullis/adapter-test"
import { missingBinaries, startThrowawayPostgres, type ThrowawayServer } from "@portcullis/adapter-test/throwaway"
import { createAuth } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { createPostgresKysely, migrateToLatest } from "@portcullis/sql-adapter"
import { sqlRateLimitStore } from "@portcullis/sql-adapter/rate-limit"
import type { Kysely } from "kysely"

const gate = await serviceAvailable({ name: "postgres binaries", url: "tcp://127.0.0.1:0", start: "install PostgreSQL (initdb, postgres)" }, async () => {
  const missing = missingBinaries("postgres")
  if (missing.length) throw new Error(`not installed: ${missing.join(", ")}`)
})

gate.describe("the SQL rate-limit store on a PostgreSQL that stops answering", () => {
  let server: ThrowawayServer
  let db: Kysely<any>
  beforeAll(async () => {
    server = await startThrowawayPostgres()
    db = createPostgresKysely(server.url, { pool: { queryTimeoutMs: 2_000, logger: { error: () => {}, warn: () => {} } } })
    await migrateToLatest(db, { dialect: "postgres" })
  }, 60_000)
  afterAll(async () => {
    server?.resume()
    await db?.destroy().catch(() => {})
    await server?.close()
  })

  /** An app whose sign-ins are for `username` (each test its own: the counters outlive an app). */
  function app(username: string) {
    const warnings: string[] = []
    const auth = createAuth({
      secret: "a-test-secret-with-at-least-32-characters",
      trustedOrigins: ["http://localhost:3000"],
      session: { strategy: "jwt" },
      rateLimit: { store: sqlRateLimitStore(db), timeout: 300 },
      logger: { error: () => {}, debug: () => {}, warn: (code) => void warnings.push(code) },
      providers: [Credentials({ credentials: { username: {}, password: { type: "password" } }, authorize: async ({ password }) => (password === "right" ? { id: "ada" } : null) })],
    })
    const jar = new Map<string, string>()
    const send = async (path: string, body?: Record<string, string>, contentType = "application/x-www-form-urlencoded") => {
      const headers = new Headers({ cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "), "x-auth-return-redirect": "1" })
      if (body) headers.set("content-type", contentType)
      const payload = body && (contentType.includes("json") ? JSON.stringify(body) : new URLSearchParams(body))
      const response = await auth.handle(new Request(`http://localhost:3000${path}`, { method: body ? "POST" : "GET", headers, body: payload }), { clientAddress: "198.51.100.7" })
      for (const c of response.headers.getSetCookie()) {
        const [pair] = c.split(";")
        const [name, ...value] = pair!.split("=")
        jar.set(name!, value.join("="))
      }
      return response
    }
    const csrf = async () => ((await (await send("/auth/csrf")).json()) as { csrfToken: string }).csrfToken
    const signIn = async (password: string) => send("/auth/callback/credentials", { username, password, csrfToken: await csrf() })
    const update = async () => send("/auth/session", { csrfToken: await csrf(), data: "x" } as Record<string, string>, "application/json")
    return { signIn, update, warnings }
  }

  it("paused: credentials answer 503 and the session update goes through, each within the timeout; resumed: counted again", async () => {
    const { signIn, update, warnings } = app("ada")
    expect((await signIn("right")).status).toBe(200)
    server.pause()
    try {
      const credentials = await signIn("right")
      expect(credentials.status).toBe(503)
      expect(credentials.headers.get("retry-after")).not.toBeNull()
      expect((await update()).status).toBe(200)
      expect(warnings).toContain("rate-limit-store-failed")
    } finally {
      server.resume()
    }
    await expect.poll(async () => (await signIn("wrong")).status, { timeout: 20_000, interval: 200 }).toBe(200)
    for (let i = 0; i < 6; i++) await signIn("wrong")
    const locked = await signIn("right")
    expect(locked.status).toBe(429)
  }, 60_000)

  it("killed: the same answers, no crash, no unhandled rejection; back after a restart", async () => {
    const { signIn, update } = app("grace")
    await server.kill()
    expect((await signIn("right")).status).toBe(503)
    expect((await update()).status).toBe(200)
    await server.start()
    await expect.poll(async () => (await signIn("right")).status, { timeout: 30_000, interval: 250 }).toBe(200)
  }, 60_000)
})
