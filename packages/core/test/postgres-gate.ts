/**
 * The PostgreSQL gate core's tests share: the service (from `PG_URL` or the default) and a
 * `describe` that skips with the start command when the server is missing, and fails under
 * CI (`@portcullis/adapter-test`'s `serviceAvailable`).
 *
 * @example
 * ```ts
 * const { service, postgres } = await postgresGate()
 * postgres.describe("on PostgreSQL", () => { … openTestDatabase("postgres", { url: service.url }) … })
 * ```
 */
import pg from "pg"
import { postgresService, serviceAvailable } from "@portcullis/adapter-test"

export async function postgresGate() {
  const service = postgresService()
  const postgres = await serviceAvailable(service, async () => {
    const client = new pg.Client({ connectionString: service.url, connectionTimeoutMillis: 3_000 })
    await client.connect()
    await client.end()
  })
  return { service, postgres }
}
