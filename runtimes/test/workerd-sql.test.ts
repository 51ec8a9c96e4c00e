/**
 * Issue 18, database sessions on the edge: a Worker keeps its sessions in PostgreSQL through
 * `@portcullis/sql-adapter`, in workerd (through miniflare). The Worker is bundled the way an
 * app's is (`runtimes/bundle.ts`: `workerd`/`worker`/`browser` conditions, no
 * `nodejs_compat`), so the adapter's default entry resolves to its edge entry — the test
 * fails if that bundle imports any Node built-in.
 *
 * workerd has no PostgreSQL wire driver without `nodejs_compat`, and there is no vendor
 * service here (Neon, Hyperdrive), so the Worker's Kysely uses the stock `PostgresDialect`
 * over a `pg`-shaped pool that speaks HTTP (`runtimes/sql-over-http/pool.ts`) to an endpoint
 * this test serves from Node, which runs every statement on the local PostgreSQL with `pg`
 * (`runtimes/sql-over-http/server.ts`): the rows, constraints and transactions are real
 * PostgreSQL's; only the transport is the test's.
 */
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { Miniflare } from "miniflare"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleForEdge, type EdgeBundle } from "../bundle.ts"
import { sqlScenarioNames } from "../sql-scenarios.ts"
import { startSqlEndpoint, type SqlEndpoint } from "../sql-over-http/server.ts"
import { describeWhere, localPostgres, locate, type DriverReport } from "./support.ts"

const driver = fileURLToPath(new URL("../drivers/workerd-sql.ts", import.meta.url))
const workerd = locate({ pkg: "workerd", file: "bin/workerd" })
const { service, gate: postgres, admin } = await localPostgres()

/** A fresh database served over HTTP, for one group of tests. */
function freshDatabase() {
  const name = `portcullis_rt_worker_${randomBytes(4).toString("hex")}`
  const url = new URL(service.url)
  url.pathname = `/${name}`
  let endpoint: SqlEndpoint | undefined
  beforeAll(async () => {
    await admin(`CREATE DATABASE ${name}`)
    endpoint = await startSqlEndpoint(url.toString())
  })
  afterAll(async () => {
    await endpoint?.close()
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  })
  return {
    endpoint: () => endpoint!,
    async query<R extends pg.QueryResultRow>(sql: string): Promise<R[]> {
      const client = new pg.Client(url.toString())
      await client.connect()
      try {
        return (await client.query<R>(sql)).rows
      } finally {
        await client.end()
      }
    },
  }
}

describeWhere(workerd, "workerd keeps database sessions in PostgreSQL through the SQL adapter", () => {
  postgres.describe("on the local PostgreSQL, over HTTP", () => {
    let bundle: EdgeBundle
    let mf: Miniflare | undefined
    const call = async <T>(path: string, body: unknown): Promise<T> => {
      const response = await mf!.dispatchFetch(`http://worker${path}`, { method: "POST", body: JSON.stringify(body) })
      const text = await response.text()
      if (response.status !== 200) throw new Error(`the Worker answered ${response.status}: ${text.slice(0, 2000)}`)
      return JSON.parse(text) as T
    }

    beforeAll(async () => {
      bundle = await bundleForEdge({ file: driver }, "workerd")
      mf = new Miniflare({ modules: true, script: bundle.code, compatibilityDate: "2026-07-30" })
      await mf.ready
    }, 120_000)
    afterAll(() => mf?.dispose())

    it("bundles the adapter's default entry for a Worker without a Node built-in (its edge entry, not pg)", () => {
      expect(bundle.nodeImports).toEqual([])
      expect(bundle.inputs).toEqual(expect.arrayContaining([expect.stringMatching(/packages\/sql-adapter\/dist\/edge\.js$/)]))
      expect(bundle.inputs.filter((input) => /node_modules\/(pg|pg-pool|mysql2)\//.test(input))).toEqual([])
    })

    describe("the database-session scenarios", () => {
      const db = freshDatabase()
      let report: DriverReport | undefined
      let failure: unknown
      beforeAll(async () => {
        try {
          report = await call<DriverReport>("/scenarios", { url: db.endpoint().url, token: db.endpoint().token })
        } catch (error) {
          failure = error
        }
      }, 120_000)

      it("reports exactly the database-session scenarios, in order", () => {
        if (failure) throw failure
        expect(report?.results.map((r) => r.name)).toEqual(sqlScenarioNames)
      })

      it.each(sqlScenarioNames)("%s", (name) => {
        if (failure) throw failure
        const result = report?.results.find((r) => r.name === name)
        expect(result?.error).toBeUndefined()
        expect(result?.ok).toBe(true)
      })

      it("hands every connection it reserved back", () => {
        expect(db.endpoint().held()).toBe(0)
      })
    })

    describe("50 users signing in at once", () => {
      const db = freshDatabase()

      it("gives each their own session row, and each reads back their own user", async () => {
        const { statuses, emails, tokens } = await call<{ statuses: number[]; emails: string[]; tokens: string[] }>("/concurrent", { url: db.endpoint().url, token: db.endpoint().token })
        expect(statuses).toEqual(Array(50).fill(302))
        expect(emails).toEqual(Array.from({ length: 50 }, (_, i) => `user-${i}@example.com`))
        expect(new Set(tokens).size).toBe(50)
        const rows = await db.query<{ sessionToken: string; email: string }>(`SELECT s."sessionToken", u.email FROM sessions s JOIN users u ON u.id = s."userId"`)
        expect(rows.length).toBe(50)
        expect(new Map(rows.map((r) => [r.sessionToken, r.email]))).toEqual(new Map(tokens.map((t, i) => [t, `user-${i}@example.com`])))
      }, 120_000)
    })

    describe("with the SQL endpoint down", () => {
      it("answers a session read 503, never signed out nor a crash, and the Worker keeps serving", async () => {
        const dead = await startSqlEndpoint(service.url)
        const { url, token } = dead
        await dead.close()
        const { status, body } = await call<{ status: number; body: string }>("/down", { url, token })
        expect(status).toBe(503)
        expect(body).not.toMatch(/stack|at \w+ \(/)
        // The same Worker instance still answers.
        expect((await call<{ status: number }>("/down", { url, token })).status).toBe(503)
      })
    })
  })
})
