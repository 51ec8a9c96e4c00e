// The app the chaos suite breaks: Express + Portcullis on database sessions, with the SQL
// adapter on PostgreSQL or the Redis adapter, configured as the docs recommend. It runs as
// a child process so a crash is observable. Environment:
//   CHAOS_STORE=postgres|redis, CHAOS_STORE_URL, PORT, AUTH_SECRET, CHAOS_RATE_LIMIT=1
// (rate limits and lockout on, counted in the same store; off otherwise: the load comes
// from one address and signs in far more often than any limit allows); CHAOS_SESSIONS=jwt for
//   JWT sessions with a session registry on the same store (CHAOS_REVOCATION_INTERVAL
//   seconds, default 60), else database sessions with metadata.
// Session management routes (docs/sessions.md): GET /sessions (JSON), POST /sessions/revoke
// (form: id, csrfToken), POST /sessions/revoke-others (form: csrfToken).
// It prints JSON lines on stdout: {"listening": port}, and {"magicLink": url} for each
// email sign-in (a capturing sender, for the multi-instance test).
import { once } from "node:events"
import { createServer } from "node:http"
import express from "express"
import type { Adapter, SessionRegistry } from "@portcullis/core/adapters"
import { NotSignedIn } from "@portcullis/core/errors"
import type { RateLimitStore } from "@portcullis/core/rate-limit"
import Credentials from "@portcullis/core/providers/credentials"
import type { EmailConfig } from "@portcullis/core/providers/email"
import { ExpressAuth, listSessions, revokeOtherSessions, revokeSession, type ExpressAuthConfig } from "@portcullis/express"
import { createRedisClient, RedisAdapter, RedisSessionRegistry } from "@portcullis/redis-adapter"
import { redisRateLimitStore } from "@portcullis/redis-adapter/rate-limit"
import { createPostgresKysely, migrateToLatest, SqlAdapter, SqlSessionRegistry } from "@portcullis/sql-adapter"
import { sqlRateLimitStore } from "@portcullis/sql-adapter/rate-limit"
import { CHAOS_CLIENT_NAME, CHAOS_PASSWORD, CHAOS_POOL_MAX, CHAOS_REDIS_PREFIX } from "./app-constants.ts"


const emit = (line: object) => process.stdout.write(JSON.stringify(line) + "\n")

interface ChaosStores {
  adapter: Adapter
  registry: SessionRegistry
  rateLimitStore: RateLimitStore
}

async function openAdapter(store: string, url: string): Promise<ChaosStores> {
  if (store === "postgres") {
    const db = createPostgresKysely(url, { pool: { max: CHAOS_POOL_MAX, poolConfig: { application_name: CHAOS_CLIENT_NAME } } })
    await migrateToLatest(db, { dialect: "postgres" })
    return { adapter: SqlAdapter(db, { sessionMetadata: true }), registry: new SqlSessionRegistry(db), rateLimitStore: sqlRateLimitStore(db) }
  }
  if (store === "redis") {
    const redis = createRedisClient(url, { redisOptions: { connectionName: CHAOS_CLIENT_NAME } })
    // The offline queue is off (commands fail at once while disconnected), so wait for the
    // first connection before serving.
    await once(redis, "ready")
    return {
      adapter: RedisAdapter(redis, { prefix: CHAOS_REDIS_PREFIX }),
      registry: new RedisSessionRegistry(redis, { prefix: CHAOS_REDIS_PREFIX }),
      rateLimitStore: redisRateLimitStore(redis, { prefix: `${CHAOS_REDIS_PREFIX}rl` }),
    }
  }
  throw new Error(`CHAOS_STORE must be postgres or redis, not ${store}`)
}

function authConfig({ adapter, registry, rateLimitStore }: ChaosStores): ExpressAuthConfig {
  const jwt = process.env.CHAOS_SESSIONS === "jwt"
  return {
    rateLimit: process.env.CHAOS_RATE_LIMIT === "1" ? { store: rateLimitStore } : false,
    secret: process.env.AUTH_SECRET ?? "chaos-secret-chaos-secret-chaos-secret",
    adapter,
    session: jwt
      ? { strategy: "jwt", registry, revocationCheckInterval: Number(process.env.CHAOS_REVOCATION_INTERVAL ?? 60) }
      : { strategy: "database", metadata: true },
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
        // The harness opens links with one GET (Auth.js's behaviour): it tests the token's
        // single use across instances, not the confirm page.
        interstitial: false,
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
const config = authConfig(await openAdapter(store, process.env.CHAOS_STORE_URL ?? ""))
const app = express()
app.set("trust proxy", "loopback")
app.use("/auth", ExpressAuth(config))
// Session management, as an app would expose it.
const notSignedIn = (error: unknown, res: express.Response, next: express.NextFunction) =>
  error instanceof NotSignedIn ? void res.status(401).json({ error: "NotSignedIn" }) : next(error)
app.get("/sessions", (req, res, next) => {
  listSessions(req, config).then((sessions) => res.json(sessions), (error) => notSignedIn(error, res, next))
})
app.post("/sessions/revoke", express.urlencoded({ extended: false }), (req, res, next) => {
  revokeSession(req, config, String(req.body?.id ?? ""), res).then((revoked) => res.json({ revoked }), (error) => notSignedIn(error, res, next))
})
app.post("/sessions/revoke-others", express.urlencoded({ extended: false }), (req, res, next) => {
  revokeOtherSessions(req, config).then((revoked) => res.json({ revoked }), (error) => notSignedIn(error, res, next))
})
// No error handler of our own: Express's default one answers 500 with the stack outside
// production, which is exactly what the suite must never see.
const server = createServer(app)
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  emit({ listening: (server.address() as { port: number }).port })
})
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => process.exit(0))
}
