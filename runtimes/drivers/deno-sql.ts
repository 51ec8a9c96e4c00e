// Runs the database-session scenarios (PostgreSQL through @portcullis/sql-adapter) on Deno:
// `deno run --allow-net --allow-env --allow-read runtimes/drivers/deno-sql.ts '{"databaseUrl": "postgres://…"}'`.
// Prints { runtime, version, results }. Takes the pg driver from the Node-only subpath, `/node`.
import { createPostgresKysely } from "@portcullis/sql-adapter/node"
import { runSqlScenarios } from "../sql-scenarios.ts"

declare const Deno: { version: { deno: string }; args: string[] }

const { databaseUrl } = JSON.parse(Deno.args[0] ?? "{}") as { databaseUrl: string }
const results = await runSqlScenarios(createPostgresKysely(databaseUrl))
console.log(JSON.stringify({ runtime: "deno", version: Deno.version.deno, results }))
