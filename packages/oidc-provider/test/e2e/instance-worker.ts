/**
 * One app instance acting as the OpenID Provider, in its own Node process, for
 * two-processes.test.ts: password sign-in with database sessions in the shared adapter
 * (SqlAdapter or RedisAdapter), the provider's store shared too (sqlOidcProviderStore under
 * one table prefix, or redisOidcProviderStore under one key prefix), served by node:http on a
 * port of its own — through core's Web `Request`/`Response` (`lane: "web"`, the test's
 * `authListener`) or its Node path (`lane: "node"`, `handleNodeRequest`). `AUTH_URL` (from the environment) is the public origin both instances
 * answer as: one issuer. Prints "listening <origin>" once it answers; ends when stdin closes.
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

const options = JSON.parse(process.argv[2]!) as { backend: "postgres" | "redis"; url: string; prefix: string; secret: string; clientSecret: string; redirectUri: string; lane: "web" | "node" }

async function stores() {
  if (options.backend === "postgres") {
    const { createPostgresKysely, SqlAdapter, prefixedTables } = await import("@portcullis/sql-adapter")
    const { sqlOidcProviderStore } = await import("@portcullis/oidc-provider/sql")
    const db = createPostgresKysely(options.url, { pool: { max: 10, connectTimeoutMs: 30_000, acquireTimeoutMs: 30_000 } })
    return {
      adapter: SqlAdapter(db, { tables: prefixedTables(options.prefix), passwords: true }),
      store: sqlOidcProviderStore(db, { tablePrefix: `${options.prefix}op_` }),
      close: () => db.destroy(),
    }
  }
  const { Redis } = await import("ioredis")
  const { RedisAdapter } = await import("@portcullis/redis-adapter")
  const { redisOidcProviderStore } = await import("@portcullis/oidc-provider/redis")
  const client = new Redis(options.url, { maxRetriesPerRequest: 1 })
  await client.ping()
  return {
    adapter: RedisAdapter(client, { prefix: `${options.prefix}auth:` }),
    store: redisOidcProviderStore(client, { prefix: `${options.prefix}op:` }),
    close: async () => void (await client.quit()),
  }
}

const { createServer } = await import("node:http")
const { default: Password } = await import("@portcullis/core/providers/password")
const { oidcProvider } = await import("@portcullis/oidc-provider")
const { authListener } = await import("../../../core/test/http-server.ts")
const { handleNodeRequest } = await import("@portcullis/core/integration")

const shared = await stores()
const config = {
  secret: options.secret,
  adapter: shared.adapter,
  session: { strategy: "database" },
  providers: [Password({ hashing: { memoryCost: 1024, timeCost: 1, parallelism: 1 } })],
  rateLimit: false,
  logger: { error: (e: Error) => process.stderr.write(`${e.name}: ${e.message}\n`), warn: () => {}, debug: () => {} },
  extensions: [
    oidcProvider({
      store: shared.store,
      clients: [{ clientId: "web", clientSecret: options.clientSecret, redirectUris: [options.redirectUri], name: "Web App" }],
      // Short, so two instances that each made a key at once converge quickly (the test polls).
      keyCacheTtl: 2,
    }),
  ],
}
const web = authListener(config)
const server = createServer((req, res) => {
  if (options.lane === "web") return void web(req, res)
  handleNodeRequest(req, res, config).catch((error: Error) => {
    process.stderr.write(`${error.name}: ${error.message}\n`)
    res.destroy()
  })
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const { port } = server.address() as { port: number }
process.stdout.write(`listening http://127.0.0.1:${port}\n`)
process.stdin.resume()
process.stdin.on("end", async () => {
  server.closeAllConnections()
  server.close()
  await shared.close()
  process.exit(0)
})
