/**
 * One instance of the SSO test app in its own Node process, for instances.test.ts: the same
 * app as `startSsoApp` (database sessions) on stores shared with the other instance —
 * PostgreSQL (SqlAdapter, sqlSsoStore, sqlOrganizationStore under one table prefix) or Redis
 * (RedisAdapter, redisSsoStore, redisOrganizationStore under one key prefix). Prints
 * "listening <origin>" once it answers; ends when stdin closes.
 *
 * Run with Node's type stripping: `node --experimental-transform-types instance-worker.ts
 * '<json>'`. `@portcullis/*` names resolve to this checkout's TypeScript sources (as vitest's
 * aliases do), and `.js` imports between sources to their `.ts` files.
 */
import { registerHooks } from "node:module"

const packages = new URL("../../../", import.meta.url)
registerHooks({
  resolve(specifier, context, nextResolve) {
    const named = /^@portcullis\/([a-z-]+)(?:\/([\w/-]+))?$/.exec(specifier)
    if (named) return nextResolve(new URL(`${named[1]}/src/${named[2] ?? "index"}.ts`, packages).href, context)
    try {
      return nextResolve(specifier, context)
    } catch (error) {
      if (specifier.startsWith(".") && specifier.endsWith(".js")) return nextResolve(`${specifier.slice(0, -3)}.ts`, context)
      throw error
    }
  },
})

const options = JSON.parse(process.argv[2]!) as { backend: "postgres" | "redis"; url: string; prefix: string; dns: string[]; port: number; instance: string }

async function stores() {
  if (options.backend === "postgres") {
    const { createPostgresKysely, SqlAdapter, prefixedTables } = await import("@portcullis/sql-adapter")
    const { sqlSsoStore } = await import("@portcullis/sso/sql")
    const { sqlOrganizationStore } = await import("@portcullis/organizations/sql")
    const db = createPostgresKysely(options.url, { pool: { max: 10, connectTimeoutMs: 30_000, acquireTimeoutMs: 30_000 } })
    return {
      adapter: SqlAdapter(db, { tables: prefixedTables(options.prefix), passwords: true }),
      store: sqlSsoStore(db, { tablePrefix: `${options.prefix}sso_` }),
      orgStore: sqlOrganizationStore(db, { tablePrefix: `${options.prefix}org_` }),
      close: () => db.destroy(),
    }
  }
  const { Redis } = await import("ioredis")
  const { RedisAdapter } = await import("@portcullis/redis-adapter")
  const { redisSsoStore } = await import("@portcullis/sso/redis")
  const { redisOrganizationStore } = await import("@portcullis/organizations/redis")
  const client = new Redis(options.url, { maxRetriesPerRequest: 1 })
  await client.ping()
  return {
    adapter: RedisAdapter(client, { prefix: `${options.prefix}auth:` }),
    store: redisSsoStore(client, { prefix: `${options.prefix}sso:` }),
    orgStore: redisOrganizationStore(client, { prefix: `${options.prefix}org:` }),
    close: async () => void (await client.quit()),
  }
}

const { startSsoApp } = await import("./app.ts")
const shared = await stores()
const app = await startSsoApp({ strategy: "database", dns: { servers: options.dns }, adapter: shared.adapter, store: shared.store, orgStore: shared.orgStore, port: options.port, instance: options.instance })
process.stdout.write(`listening ${app.origin}\n`)
process.stdin.resume()
process.stdin.on("end", async () => {
  await app.close()
  await shared.close()
  process.exit(0)
})
