/**
 * Reading the drivers' errors: which unique index a violation hit (a taken slug and an
 * existing membership are different answers, so a plain duplicate check is not enough).
 * Lock races are read by the shared `retrying` of `@portcullis/sql-adapter/migrations`.
 * @module
 */

interface DriverError {
  code?: unknown
  errno?: unknown
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
