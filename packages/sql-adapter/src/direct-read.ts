/**
 * A synchronous read beside Kysely's driver, for the one query every database session
 * check makes. Kysely runs each query through its connection provider, its driver's
 * mutex and its result plugins; for an in-process SQLite connection that costs about as
 * much as the query itself (`docs/benchmarks.md`). A Kysely instance that
 * `createSqliteKysely` built carries a {@link DirectReader}, and `SqlAdapter` reads
 * session rows through it when it may.
 *
 * Edge-safe: no Node built-ins here (the reader itself lives in `sqlite.ts`).
 * @module
 */

/** Result rows, as Kysely's SQLite driver would return them for the same statement. */
export type DirectRows = Record<string, unknown>[]

export interface DirectReader {
  /**
   * Runs a read-only statement now and returns its rows, or `undefined` when it may not
   * run now — a transaction is open on the connection, whose uncommitted writes a read
   * outside it must not see, or a stream holds an old snapshot open there — and the
   * caller must queue it through Kysely as usual.
   */
  read(sql: string, parameters: readonly unknown[]): DirectRows | undefined
}

const DIRECT_READER = Symbol("portcullis.directReader")

/**
 * Gives `db` a direct reader. Only for an instance with no plugins and no query log:
 * a direct read passes neither, so any other instance keeps every query on Kysely's road.
 */
export function attachDirectReader(db: object, reader: DirectReader): void {
  Object.defineProperty(db, DIRECT_READER, { value: reader, enumerable: false })
}

/**
 * The direct reader of `db`, if it has one. Instances Kysely derives from it
 * (`withPlugin`, `withSchema`, a transaction) have none, so their queries stay on
 * Kysely's road.
 */
export function directReader(db: object): DirectReader | undefined {
  return Object.hasOwn(db, DIRECT_READER) ? (db as { [DIRECT_READER]: DirectReader })[DIRECT_READER] : undefined
}
