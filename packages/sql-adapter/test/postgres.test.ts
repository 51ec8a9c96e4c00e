import pg from "pg"
import { postgresService, serviceAvailable } from "@portcullis/adapter-test"
import { createPostgresKysely } from "@portcullis/sql-adapter"
import { runSqlSuites } from "./harness.js"

const service = postgresService()
const gate = await serviceAvailable(service, async () => {
  const client = new pg.Client({ connectionString: service.url, connectionTimeoutMillis: 3_000 })
  await client.connect()
  await client.end()
})

gate.describe("PostgreSQL", () => {
  runSqlSuites("PostgreSQL", "postgres", (config) => createPostgresKysely(service.url, config))
})
