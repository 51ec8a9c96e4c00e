// Runs the database-session scenarios (PostgreSQL through @portcullis/sql-adapter) on Bun:
// `bun runtimes/drivers/bun-sql.ts '{"databaseUrl": "postgres://…"}'`. Prints { runtime, version, results }.
// Takes the pg driver from the default entry, as apps written before `/node` existed do.
import { createPostgresKysely } from "@portcullis/sql-adapter"
import { runSqlScenarios } from "../sql-scenarios.ts"

declare const Bun: { version: string; argv: string[] }

const { databaseUrl } = JSON.parse(Bun.argv[2] ?? "{}") as { databaseUrl: string }
const results = await runSqlScenarios(createPostgresKysely(databaseUrl))
console.log(JSON.stringify({ runtime: "bun", version: Bun.version, results }))
