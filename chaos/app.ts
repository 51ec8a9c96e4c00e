// The app the chaos suite breaks: Express + Portcullis on database sessions, with the SQL
// adapter on PostgreSQL or the Redis adapter, configured as the docs recommend. It runs as
// a child process so a crash is observable. Environment:
//   CHAOS_STORE=postgres|redis, CHAOS_STORE_URL, PORT, AUTH_SECRET, CHAOS_RATE_LIMIT=1
// (rate limits and lockout on, counted in the same store; off otherwise: the load comes
// from one address and signs in far more often than any limit allows).
// It prints JSON lines on stdout: {"listening": port}, and {"magicLink": url} for each
// email sign-in (a capturing sender, for the multi-instance test).
import { once } from "node:events"
import { createServer } from "node:http"
import express from "express"
import type { Adapter } from "@portcullis/core/adapters"
import type { RateLimitStore } from "@portcullis/core/rate-limit"
import Credentials from "@portcullis/core/providers/credentials"
import type { EmailConfig } from "@portcullis/core/providers/email"
import { ExpressAuth, type ExpressAuthConfig } from "@portcullis/express"
import { createRedisClient, RedisAdapter } from "@portcullis/redis-adapter"
import { redisRateLimitStore } from "@portcullis/redis-adapter/rate-limit"
import { createPostgresKysely, migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"
import { sqlRateLimitStore } from "@portcullis/sql-adapter/rate-limit"
import { CHAOS_CLIENT_NAME, CHAOS_PASSWORD, CHAOS_POOL_MAX, CHAOS_REDIS_PREFIX } from "./app-constants.ts"


const emit = (line: object) => process.stdout.write(JSON.stringify(line) + "\n")

async function openAdapter(store: string, url: string): Promise<{ adapter: Adapter; rateLimitStore: RateLimitStore }> {
  if (store === "postgres") {
    const db = createPostgresKysely(url, { pool: { max: CHAOS_POOL_MAX, poolConfig: { application_name: CHAOS_CLIENT_NAME } } })
    await migrateToLatest(db, { dialect: "postgres" })
    return { adapter: SqlAdapter(db), rateLimitStore: sqlRateLimitStore(db) }
  }
  if (store === "redis") {
    const redis = createRedisClient(url, { redisOptions: { connectionName: CHAOS_CLIENT_NAME } })
    // The offline queue is off (commands fail at once while disconnected), so wait for the
    // first connection before serving.
    await once(redis, "ready")
    return { adapter: RedisAdapter(redis, { prefix: CHAOS_REDIS_PREFIX }), rateLimitStore: redisRateLimitStore(redis, { prefix: `${CHAOS_REDIS_PREFIX}rl` }) }
  }
  throw new Error(`CHAOS_STORE must be postgres or redis, not ${store}`)
}

function authConfig(adapter: Adapter, rateLimitStore: RateLimitStore): ExpressAuthConfig {
  return {
    rateLimit: process.env.CHAOS_RATE_LIMIT === "1" ? { store: rateLimitStore } : false,
    secret: process.env.AUTH_SECRET ?? "chaos-secret-chaos-secret-chaos-secret",
    adapter, // database sessions
    trustHost: true,
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        // No password hashing here: the suite measures the store, not PBKDF2.
        authorize: ({ username, password }) => {
          const name = String(username ?? "")
          if (password !== CHAOS_PASSWORD || !/^[a-z0-9-]{1,40}$/.test(name)) return null
          return { id: `user-${name}`, name, email: `${name}@chaos.test` }
        },
      }),
      // An email provider whose sender prints the link instead of mailing it.
      {
        id: "email",
        type: "email",
        name: "Email",
        maxAge: 10 * 60,
        sendVerificationRequest: ({ identifier, url }) => void emit({ magicLink: url, identifier }),
      } satisfies EmailConfig,
    ],
    // One line per error: an outage fails many requests and the parent keeps only a tail.
    logger: {
      error: (error) => console.error(`[auth][error] ${error.name}: ${error.message}`),
      warn: (code) => console.warn(`[auth][warn] ${code}`),
    },
  }
}

const store = process.env.CHAOS_STORE ?? ""
const { adapter, rateLimitStore } = await openAdapter(store, process.env.CHAOS_STORE_URL ?? "")
const app = express()
app.set("trust proxy", "loopback")
app.use("/auth", ExpressAuth(authConfig(adapter, rateLimitStore)))
// No error handler of our own: Express's default one answers 500 with the stack outside
// production, which is exactly what the suite must never see.
const server = createServer(app)
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  emit({ listening: (server.address() as { port: number }).port })
})
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => process.exit(0))
}
