// Direct access to the throwaway store, beside the app: seeding expired sessions and
// counting the app's connections after a fault.
import { randomBytes } from "node:crypto"
import { once } from "node:events"
import pg from "pg"
import { createRedisClient, RedisAdapter } from "@portcullis/redis-adapter"
import { createPostgresKysely, SqlAdapter } from "@portcullis/sql-adapter"
import { CHAOS_CLIENT_NAME, CHAOS_POOL_MAX, CHAOS_REDIS_PREFIX } from "./app-constants.ts"

/** `count` sessions of `userId` that expired a minute ago; their tokens. */
export async function seedExpiredSessions(store: "postgres" | "redis", url: string, userId: string, count: number): Promise<string[]> {
  const tokens = Array.from({ length: count }, () => randomBytes(32).toString("hex"))
  const expires = new Date(Date.now() - 60_000)
  if (store === "postgres") {
    const db = createPostgresKysely(url, { pool: { max: 2 } })
    const adapter = SqlAdapter(db)
    for (const sessionToken of tokens) await adapter.createSession!({ sessionToken, userId, expires })
    await db.destroy()
  } else {
    const redis = createRedisClient(url)
    await once(redis, "ready")
    const adapter = RedisAdapter(redis, { prefix: CHAOS_REDIS_PREFIX })
    for (const sessionToken of tokens) await adapter.createSession!({ sessionToken, userId, expires })
    redis.disconnect()
  }
  return tokens
}

/**
 * The app's store connections beyond what it may hold (its pool size for PostgreSQL, one
 * client for Redis), once things settle: waits up to 5 s for closing connections to go.
 */
export async function connectionsOverLimit(store: "postgres" | "redis", url: string): Promise<number> {
  const limit = store === "postgres" ? CHAOS_POOL_MAX : 1
  let over = 0
  for (let attempt = 0; attempt < 25; attempt++) {
    over = Math.max(0, (await appConnections(store, url)) - limit)
    if (over === 0) return 0
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return over
}

async function appConnections(store: "postgres" | "redis", url: string): Promise<number> {
  if (store === "postgres") {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 })
    client.on("error", () => {})
    await client.connect()
    try {
      const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [CHAOS_CLIENT_NAME])
      return rows[0].n as number
    } finally {
      await client.end()
    }
  }
  const redis = createRedisClient(url)
  await once(redis, "ready")
  try {
    const list = (await redis.client("LIST")) as string
    return list.split("\n").filter((line) => line.includes(`name=${CHAOS_CLIENT_NAME} `)).length
  } finally {
    redis.disconnect()
  }
}
