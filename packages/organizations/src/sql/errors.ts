/**
 * Reading the drivers' errors: which unique index a violation hit, and which failures are a
 * transaction that lost a lock race and may simply run again.
 * @module
 */

interface DriverError {
  code?: unknown
  errno?: unknown
  errcode?: unknown
  constraint?: unknown
  message?: unknown
}

const fields = (error: unknown): DriverError => (error && typeof error === "object" ? error : {}) as DriverError

/**
 * Whether `error` is a unique violation of the index `indexName` on `table`.`column`:
 * PostgreSQL's 23505 names the constraint, MySQL's ER_DUP_ENTRY names the key in its
 * message, SQLite names `table.column` in its message.
 */
export function isUniqueViolation(error: unknown, table: string, column: string, indexName: string): boolean {
  const e = fields(error)
  const message = typeof e.message === "string" ? e.message : ""
  if (e.code === "23505") return e.constraint === indexName
  if (e.code === "ER_DUP_ENTRY" || e.errno === 1062) return message.includes(`'${indexName}'`) || message.includes(`.${indexName}'`)
  return /UNIQUE constraint failed/.test(message) && message.includes(`${table}.${column}`)
}

/**
 * A deadlock or serialization failure: the database rolled the transaction back so another
 * could go on, and running it again is the documented answer (PostgreSQL 40P01/40001,
 * MySQL ER_LOCK_DEADLOCK 1213, SQLite's busy database).
 */
export function isRetryable(error: unknown): boolean {
  const e = fields(error)
  return e.code === "40P01" || e.code === "40001" || e.code === "ER_LOCK_DEADLOCK" || e.errno === 1213 ||
    // SQLite: SQLITE_BUSY (5) or SQLITE_LOCKED (6), also as extended codes (e.g. BUSY_SNAPSHOT, 517).
    (typeof e.errcode === "number" && ((e.errcode & 0xff) === 5 || (e.errcode & 0xff) === 6))
}

/** Runs `attempt` again, up to 5 times in all, when it fails with a retryable error. */
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
