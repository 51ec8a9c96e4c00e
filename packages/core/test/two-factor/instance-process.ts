/**
 * One app instance in its own Node process, for `processes.test.ts`: the two-factor app
 * (credentials, JWT sessions, `twoFactor` on) behind a real HTTP server, on PostgreSQL or
 * Redis as the parent says. Bundled from the sources by the test (esbuild), started with
 * `fork`; it reports its origin over IPC and serves until killed.
 */
import { once } from "node:events"
import type { Adapter } from "@portcullis/core/adapters"
import { createRedisClient, RedisAdapter } from "@portcullis/redis-adapter"
import { SqlAdapter, type TableNames } from "@portcullis/sql-adapter"
import { createPostgresKysely } from "@portcullis/sql-adapter/node"
import { httpServer } from "../http-server.js"
import { twoFactorApp } from "./support.js"

type Options = { store: "postgres"; url: string; tables: TableNames } | { store: "redis"; url: string; prefix: string }

const options = JSON.parse(process.argv[2] ?? "{}") as Options

async function adapterFor(options: Options): Promise<Adapter> {
  if (options.store === "postgres") return SqlAdapter(createPostgresKysely(options.url), { tables: options.tables, passwords: true, auditTrail: true })
  const client = createRedisClient(options.url, { logger: { error() {}, warn() {} } })
  await once(client, "ready")
  return RedisAdapter(client, { prefix: options.prefix })
}

const { config } = twoFactorApp({ logger: { error() {}, warn() {}, debug() {} } }, await adapterFor(options))
const server = await httpServer(config)
process.send!({ ready: true, origin: server.origin })
