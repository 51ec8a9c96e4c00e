// One app instance for the two-process token refresh tests: a real Node process running the
// BUILT packages (rebuild with `tsc -b` first), configured from argv[2] (JSON), driven over IPC.
//   { cmd: "tokens", id, userId, n }  → { id, results: [{ accessToken } | { error, reason }] }
//   { cmd: "tokens", id, cookie, n }  → the same for the browser whose Cookie header is `cookie`
//                                       (with `jwt`: JWT sessions carrying the tokens)
// Stores: "sql" (SqlAdapter on PostgreSQL, its own lock), "sql+redis-lock" (SqlAdapter on
// PostgreSQL, redisRefreshLock), "redis" (RedisAdapter: accounts and lock in Redis).
import { createAuth, getAccessToken } from "@portcullis/core"
import { createPostgresKysely, SqlAdapter } from "@portcullis/sql-adapter"
import { createRedisClient, RedisAdapter, redisRefreshLock } from "@portcullis/redis-adapter"

const options = JSON.parse(process.argv[2])
const db = options.store.startsWith("sql") ? createPostgresKysely(options.pgUrl) : undefined
const redis = options.store !== "sql" ? createRedisClient(options.redisUrl) : undefined
const adapter = options.store === "redis" ? RedisAdapter(redis, { prefix: options.prefix }) : SqlAdapter(db, { tables: options.tables })
const auth = createAuth({
  secret: "a-test-secret-with-at-least-32-characters",
  trustHost: true,
  adapter,
  logger: { error: () => {}, warn: () => {} },
  session: { strategy: options.jwt ? "jwt" : "database" },
  tokenRefresh: { jwt: !!options.jwt, lockTtl: options.lockTtl, ...(options.store === "sql+redis-lock" && { lock: redisRefreshLock(redis, { prefix: options.prefix }) }) },
  providers: [{ id: "op", name: "OP", type: "oidc", issuer: options.issuer, clientId: options.clientId, clientSecret: options.clientSecret, allowInsecureLoopback: true, timeout: options.timeout }],
})

process.on("message", async (message) => {
  if (message.cmd === "tokens") {
    const results = await Promise.all(
      Array.from({ length: message.n }, () =>
        getAccessToken(
          auth,
          message.cookie
            ? { request: new Request("http://localhost:3000/api", { headers: { cookie: message.cookie } }), provider: "op" }
            : { userId: message.userId, provider: "op" },
        ).then(
          (t) => ({ accessToken: t.accessToken }),
          (e) => ({ error: e.type ?? e.name, reason: e.reason, message: e.message }),
        ),
      ),
    )
    process.send({ id: message.id, results })
  } else if (message.cmd === "close") {
    await db?.destroy()
    redis?.disconnect()
    process.exit(0)
  }
})
// The client fails commands while it connects (no offline queue): be ready once it is.
if (redis && redis.status !== "ready") await new Promise((resolve) => redis.once("ready", resolve))
process.send({ ready: true })
