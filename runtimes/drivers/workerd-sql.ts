// Database sessions in workerd: a module Worker that keeps sessions in PostgreSQL through
// @portcullis/sql-adapter's default entry (which a Worker build resolves to its edge entry)
// and Kysely's stock PostgresDialect over HTTP (`runtimes/sql-over-http/pool.ts`), served by
// `runtimes/test/workerd-sql.test.ts` from the real PostgreSQL. Bundled with
// `runtimes/bundle.ts` like an app's Worker; POST a JSON body to one of:
//   /scenarios  { url, token }  → { runtime, version, results } (`runtimes/sql-scenarios.ts`)
//   /concurrent { url, token }  → 50 users signed in at once: { statuses, emails, tokens }
//   /down       { url, token }  → a session read while the endpoint is down: { status, body }
import { createAuth } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { Kysely, PostgresDialect } from "kysely"
import { migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"
import { APP_ORIGIN, Browser } from "../scenarios.ts"
import { runSqlScenarios } from "../sql-scenarios.ts"
import { httpPostgresPool, type HttpPoolOptions } from "../sql-over-http/pool.ts"

const database = (options: HttpPoolOptions) => new Kysely<any>({ dialect: new PostgresDialect({ pool: httpPostgresPool(options) }) })

/** Any user whose password is their name reversed: enough for many distinct sign-ins. */
function authFor(db: Kysely<any>) {
  return createAuth({
    secret: "runtime-matrix-secret-with-at-least-32-characters",
    trustHost: true,
    adapter: SqlAdapter(db),
    session: { strategy: "database" },
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: ({ username, password }) =>
          typeof username === "string" && /^user-\d+$/.test(username) && password === [...username].reverse().join("") ? { id: username, name: username, email: `${username}@example.com` } : null,
      }),
    ],
  })
}

async function concurrent(options: HttpPoolOptions) {
  const db = database(options)
  try {
    await migrateToLatest(db, { dialect: "postgres" })
    const auth = authFor(db)
    const users = Array.from({ length: 50 }, (_, i) => `user-${i}`)
    const outcomes = await Promise.all(
      users.map(async (username) => {
        const browser = new Browser((request) => auth.handle(request), APP_ORIGIN)
        const csrfToken = await browser.csrfToken()
        const response = await browser.request("/auth/callback/credentials", { form: { username, password: [...username].reverse().join(""), csrfToken } })
        const session = await browser.session()
        return { status: response.status, email: session?.user?.email ?? null, token: browser.jar.get("authjs.session-token") ?? null }
      }),
    )
    return { statuses: outcomes.map((o) => o.status), emails: outcomes.map((o) => o.email), tokens: outcomes.map((o) => o.token) }
  } finally {
    await db.destroy()
  }
}

async function down(options: HttpPoolOptions) {
  const auth = authFor(database(options))
  const response = await auth.handle(new Request(`${APP_ORIGIN}/auth/session`, { headers: { cookie: "authjs.session-token=some-token" } }))
  return { status: response.status, body: await response.text() }
}

export default {
  async fetch(request: Request): Promise<Response> {
    const options = (await request.json()) as HttpPoolOptions
    const path = new URL(request.url).pathname
    if (path === "/scenarios") return Response.json({ runtime: "workerd", version: navigator.userAgent, results: await runSqlScenarios(database(options)) })
    if (path === "/concurrent") return Response.json(await concurrent(options))
    if (path === "/down") return Response.json(await down(options))
    return new Response("not found", { status: 404 })
  },
}
