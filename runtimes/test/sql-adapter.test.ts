/**
 * Database sessions on PostgreSQL through `@portcullis/sql-adapter`, on Bun and Deno: the
 * package must load on a runtime without `node:sqlite` (it used to import it at the top,
 * so `import { SqlAdapter }` failed on Bun even for PostgreSQL apps), and `pg` must carry a
 * real session flow there. A fresh database on the local PostgreSQL per runtime and run.
 */
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sqlScenarioNames } from "../sql-scenarios.ts"
import { describeWhere, localPostgres, locate, runDriver, type DriverReport } from "./support.ts"

const bun = locate({ pkg: "@oven/bun-linux-x64", file: "bin/bun" })
const deno = locate({ pkg: "@deno/linux-x64-glibc", file: "deno" })
const driver = (name: string) => fileURLToPath(new URL(`../drivers/${name}`, import.meta.url))
const { service, gate: postgres, admin } = await localPostgres()

/** The database-session scenarios, run by one runtime's driver against a fresh database. */
function databaseSessionSuite(command: () => string, args: string[]): void {
  postgres.describe("on the local PostgreSQL", () => {
    const database = `portcullis_rt_${randomBytes(4).toString("hex")}`
    let report: DriverReport | undefined
    let failure: unknown

    beforeAll(async () => {
      await admin(`CREATE DATABASE ${database}`)
      const url = new URL(service.url)
      url.pathname = `/${database}`
      try {
        report = await runDriver(command(), args, { databaseUrl: url.toString() })
      } catch (error) {
        failure = error
      }
    }, 120_000)
    afterAll(() => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`))

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
  })
}

describeWhere(deno, "Deno keeps database sessions in PostgreSQL through the SQL adapter", () => {
  databaseSessionSuite(() => ("path" in deno ? deno.path : "deno"), ["run", "--no-lock", "--allow-net=127.0.0.1,localhost", "--allow-env", "--allow-read", driver("deno-sql.ts")])
})

describeWhere(bun, "Bun keeps database sessions in PostgreSQL through the SQL adapter", () => {
  databaseSessionSuite(() => ("path" in bun ? bun.path : "bun"), [driver("bun-sql.ts")])

  describe("SQLite where the runtime has no node:sqlite", () => {
    it("createSqliteKysely throws InvalidConfig naming the way out, instead of the package failing to load", () => {
      const script = `import { createSqliteKysely } from "@portcullis/sql-adapter"
try { createSqliteKysely(":memory:"); console.log("opened") } catch (e) { console.log(JSON.stringify({ type: e.type, message: e.message })) }`
      const run = spawnSync("path" in bun ? bun.path : "bun", ["-e", script], { cwd: fileURLToPath(new URL("../..", import.meta.url)), encoding: "utf8", timeout: 30_000 })
      expect(run.status, run.stderr).toBe(0)
      const outcome = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { type: string; message: string }
      expect(outcome.type).toBe("InvalidConfig")
      expect(outcome.message).toMatch(/node:sqlite/)
      expect(outcome.message).toMatch(/PostgreSQL or MySQL/)
    })
  })
})
