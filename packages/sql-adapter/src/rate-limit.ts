/**
 * Rate-limit counters in the SQL database (the `rate_limits` table that `portcullis migrate`
 * creates), for apps with several processes and no Redis.
 *
 * Why not `rate-limiter-flexible`'s SQL limiters: they take a `pg` or `mysql2` client (or
 * `sqlite3`/`better-sqlite3`, not Node's `node:sqlite`) of their own rather than the app's
 * Kysely instance, and create their tables themselves at start-up, outside the versioned
 * migrations. The counter here is the same single atomic statement they use — an upsert —
 * written through Kysely on the pool the app already has:
 *
 * - PostgreSQL and SQLite: `INSERT … ON CONFLICT (counter_key) DO UPDATE … RETURNING`, one
 *   statement whose row lock makes concurrent hits queue, each seeing the previous one's count;
 * - MySQL/MariaDB (no `RETURNING` on upserts): `INSERT … ON DUPLICATE KEY UPDATE` then a
 *   read of the row, in one transaction: the upsert's row lock holds other hits off until
 *   this one has read its own count.
 *
 * A window that ended restarts in the same statement (`CASE WHEN expires_at <= now`). Ended
 * rows are swept at most once a minute per store. Windows are measured with the app
 * server's clock: keep the servers' clocks in sync (NTP), as for session expiry.
 *
 * @example
 * ```ts
 * import { createPostgresKysely, migrateToLatest } from "@portcullis/sql-adapter"
 * import { sqlRateLimitStore } from "@portcullis/sql-adapter/rate-limit"
 *
 * const db = createPostgresKysely(process.env.DATABASE_URL!)
 * await migrateToLatest(db, { dialect: "postgres" }) // or `npx @portcullis/cli migrate`
 * export const config = { providers, rateLimit: { store: sqlRateLimitStore(db) } }
 * ```
 * @module
 */
import { sql, type Kysely } from "kysely"
import type { RateLimitCounter, RateLimitStore } from "@portcullis/core/rate-limit"
import { resolveTables, type TableNames } from "./tables.js"

/** Options of {@link sqlRateLimitStore}. */
export interface SqlRateLimitOptions {
  /** Table names, as given to `migrateToLatest` (only `rateLimits` is used). */
  tables?: Partial<TableNames>
}

/** How often ended rows are deleted, at most. */
const SWEEP_EVERY_MS = 60_000

/** A {@link RateLimitStore} on `db` (PostgreSQL, MySQL/MariaDB or SQLite through Kysely). */
export function sqlRateLimitStore(db: Kysely<any>, options: SqlRateLimitOptions = {}): RateLimitStore {
  const table = resolveTables(options.tables).rateLimits
  const returning = db.getExecutor().adapter.supportsReturning
  let lastSweep = 0
  const column = (name: string) => sql.ref(`${table}.${name}`)
  const counter = (row: { points: unknown; expires_at: unknown }, now: number): RateLimitCounter => ({
    count: Number(row.points),
    resetMs: Math.max(0, Number(row.expires_at) - now),
  })

  function sweep(now: number): void {
    if (now - lastSweep < SWEEP_EVERY_MS) return
    lastSweep = now
    // Best effort and off the request's path: a failed sweep only leaves rows for the next.
    void db.deleteFrom(table).where("expires_at", "<=", now).execute().catch(() => {})
  }

  return {
    async hit(key, windowSeconds, points = 1) {
      const now = Date.now()
      const expires = now + Math.max(1, Math.ceil(windowSeconds)) * 1000
      sweep(now)
      const row = { counter_key: key, points, expires_at: expires }
      if (returning) {
        const ended = sql<boolean>`${column("expires_at")} <= ${now}`
        const stored = await db
          .insertInto(table)
          .values(row)
          .onConflict((oc) =>
            oc.column("counter_key").doUpdateSet({
              points: sql`case when ${ended} then excluded.points else ${column("points")} + excluded.points end`,
              expires_at: sql`case when ${ended} then excluded.expires_at else ${column("expires_at")} end`,
            }),
          )
          .returning(["points", "expires_at"])
          .executeTakeFirstOrThrow()
        return counter(stored, now)
      }
      return db.transaction().execute(async (trx) => {
        // MySQL applies the assignments in order: `points` must be decided while
        // `expires_at` still holds the old window.
        await trx
          .insertInto(table)
          .values(row)
          .onDuplicateKeyUpdate({
            points: sql`if(expires_at <= ${now}, values(points), points + values(points))`,
            expires_at: sql`if(expires_at <= ${now}, values(expires_at), expires_at)`,
          })
          .execute()
        const stored = await trx.selectFrom(table).select(["points", "expires_at"]).where("counter_key", "=", key).executeTakeFirstOrThrow()
        return counter(stored, now)
      })
    },
    async peek(key) {
      const now = Date.now()
      const row = await db.selectFrom(table).select(["points", "expires_at"]).where("counter_key", "=", key).where("expires_at", ">", now).executeTakeFirst()
      return row ? counter(row, now) : null
    },
    async reset(key) {
      await db.deleteFrom(table).where("counter_key", "=", key).execute()
    },
  }
}
