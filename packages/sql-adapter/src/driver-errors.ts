/**
 * Reading the SQL drivers' errors, for the stores built on `@portcullis/sql-adapter` (the
 * extensions' included): a unique key refusing a row, and a transaction that lost a lock race
 * and may simply run again. Reads the fields `pg`, `mysql2` and `better-sqlite3` set on their
 * errors, so it imports no driver. Public through `@portcullis/sql-adapter/migrations`.
 * @module
 */

interface DriverError {
  code?: unknown
  errno?: unknown
  errcode?: unknown
  message?: unknown
}

const fields = (error: unknown): DriverError => (error && typeof error === "object" ? error : {}) as DriverError

/**
 * Whether `error` is a unique (or primary) key refusing a row: PostgreSQL's 23505, MySQL's
 * ER_DUP_ENTRY (1062), SQLite's SQLITE_CONSTRAINT_UNIQUE/PRIMARYKEY (2067/1555).
 *
 * @example
 * ```ts
 * import { isDuplicate } from "@portcullis/sql-adapter/migrations"
 *
 * try {
 *   await db.insertInto("my_extension_items").values(item).execute()
 * } catch (error) {
 *   if (isDuplicate(error)) return "taken"
 *   throw error
 * }
 * ```
 */
export function isDuplicate(error: unknown): boolean {
  const e = fields(error)
  if (e.code === "23505" || e.code === "ER_DUP_ENTRY" || e.errno === 1062) return true
  if (e.errcode === 2067 || e.errcode === 1555) return true
  return typeof e.message === "string" && /^UNIQUE constraint failed/.test(e.message)
}

/**
 * Whether `error` is a deadlock or serialization failure: the database rolled the
 * transaction back so another could go on, and running it again is the documented answer
 * (PostgreSQL 40P01/40001, MySQL ER_LOCK_DEADLOCK 1213, SQLite's busy or locked database).
 *
 * @example
 * ```ts
 * import { isRetryable } from "@portcullis/sql-adapter/migrations"
 *
 * if (isRetryable(error)) metrics.count("sql.lock_race")
 * ```
 */
export function isRetryable(error: unknown): boolean {
  const e = fields(error)
  return e.code === "40P01" || e.code === "40001" || e.code === "ER_LOCK_DEADLOCK" || e.errno === 1213 ||
    // SQLite: SQLITE_BUSY (5) or SQLITE_LOCKED (6), also as extended codes (e.g. BUSY_SNAPSHOT, 517).
    (typeof e.errcode === "number" && ((e.errcode & 0xff) === 5 || (e.errcode & 0xff) === 6))
}

/**
 * Runs `attempt` again, up to 5 times in all, when it fails with a {@link isRetryable}
 * error; any other error, or the fifth retryable one, is thrown as it is. `attempt` must be
 * the whole transaction, so a run again starts from nothing.
 *
 * @example
 * ```ts
 * import { retrying } from "@portcullis/sql-adapter/migrations"
 *
 * const moved = await retrying(() => db.transaction().execute(async (trx) => moveItem(trx, id, to)))
 * ```
 */
export async function retrying<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt()
    } catch (error) {
      if (n >= 5 || !isRetryable(error)) throw error
      // A short, growing pause lets the transaction that won the lock finish first.
      await new Promise((resolve) => setTimeout(resolve, 5 * n))
    }
  }
}
