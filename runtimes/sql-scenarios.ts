/**
 * Database sessions on PostgreSQL through `@portcullis/sql-adapter`, given the Kysely
 * instance a runtime reaches PostgreSQL with: `pg` over TCP on Bun and Deno (their
 * drivers), a Kysely `PostgresDialect` over HTTP in workerd (`http-pg-pool.ts`). Imports
 * only the adapter's default entry, which a Worker build resolves to its edge entry.
 * Written like `scenarios.ts`: no test framework, results as {@link ScenarioResult}s.
 * The Node-side test creates a fresh database for each run.
 * @module
 */
import type { Kysely } from "kysely"
import { createAuth } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { DEFAULT_TABLES, migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"
import { APP_ORIGIN, Browser, redirectTarget, type ScenarioResult } from "./scenarios.ts"

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message)
}

/** The names a driver must report, in order. */
export const sqlScenarioNames: readonly string[] = [
  "sql: the package loads and migrates a fresh PostgreSQL database",
  "sql: credentials sign-in stores a session row and sets an opaque session cookie",
  "sql: GET /auth/session reads the user through the session row",
  "sql: a forged session token reads as signed out",
  "sql: sign-out deletes the session row",
]

/** Runs the database-session scenarios on `db` (an empty PostgreSQL database), in order; destroys `db` at the end. */
export async function runSqlScenarios(db: Kysely<any>): Promise<ScenarioResult[]> {
  const auth = createAuth({
    secret: "runtime-matrix-secret-with-at-least-32-characters",
    trustHost: true,
    adapter: SqlAdapter(db),
    session: { strategy: "database" },
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: ({ username, password }) => (username === "grace" && password === "compilers all the way" ? { id: "user-grace", name: "Grace Hopper", email: "grace@example.com" } : null),
      }),
    ],
  })
  const browser = new Browser((request) => auth.handle(request), APP_ORIGIN)
  const sessionRows = async () => (await db.selectFrom(DEFAULT_TABLES.sessions).select("sessionToken").execute()).map((row) => row.sessionToken as string)

  const steps: [string, () => Promise<void>][] = [
    [sqlScenarioNames[0]!, async () => {
      const applied = await migrateToLatest(db, { dialect: "postgres" })
      check(applied.length > 0, "migrations ran")
    }],
    [sqlScenarioNames[1]!, async () => {
      const csrfToken = await browser.csrfToken()
      redirectTarget(await browser.request("/auth/callback/credentials", { form: { username: "grace", password: "compilers all the way", csrfToken } }), APP_ORIGIN)
      const token = browser.jar.get("authjs.session-token")
      check(token && !token.includes("."), `an opaque session token, got ${token}`)
      check((await sessionRows()).includes(token), "its row is in the sessions table")
    }],
    [sqlScenarioNames[2]!, async () => {
      const session = await browser.session()
      check(session?.user?.email === "grace@example.com", `the user, got ${JSON.stringify(session)}`)
    }],
    [sqlScenarioNames[3]!, async () => {
      const forger = new Browser((request) => auth.handle(request), APP_ORIGIN)
      forger.jar.set("authjs.session-token", "never-issued-token")
      check((await forger.session()) === null, "null")
    }],
    [sqlScenarioNames[4]!, async () => {
      const csrfToken = await browser.csrfToken()
      redirectTarget(await browser.request("/auth/signout", { form: { csrfToken } }), APP_ORIGIN)
      check((await sessionRows()).length === 0, "no session row left")
      check((await browser.session()) === null, "signed out")
    }],
  ]

  const results: ScenarioResult[] = []
  try {
    for (const [name, run] of steps) {
      const started = performance.now()
      try {
        await run()
        results.push({ name, ok: true, ms: Math.round(performance.now() - started) })
      } catch (error) {
        results.push({ name, ok: false, ms: Math.round(performance.now() - started), error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) })
      }
    }
  } finally {
    await db.destroy()
  }
  return results
}
