/**
 * Impersonations in a SQL table (PostgreSQL, MySQL/MariaDB, SQLite through Kysely): one row
 * per impersonated session, under the session's key, written by one upsert (so the last `put`
 * of a key wins, as the contract's "stores (or replaces)" says) and read by primary key at
 * every check of that session. The contract needs no compare-and-set: a record only ever
 * changes from running to ended, and each `put` carries the whole record.
 *
 * `keep_until` is when the record may be forgotten (`put`'s `ttl`): reads ignore a row past
 * it, and each `put` deletes such rows (by the `keep_until` index), so the table holds only
 * impersonations whose sessions could still be presented. Instants are milliseconds since
 * the epoch in a `bigint`, as in the ban table.
 * @module
 */
import type { Kysely } from "kysely"
import type { Impersonation, ImpersonationStore } from "../store/impersonations.js"
import { banDialect, type BanSqlDialect, type SqlBanStoreOptions } from "./store.js"

/** The table's name: `<tablePrefix>admin_impersonations`. */
export function impersonationTable(tablePrefix = ""): string {
  return `${tablePrefix}admin_impersonations`
}

type Instant = number | string | bigint

interface Row {
  session_key: string
  user_id: string
  by_id: string
  by_email: string | null
  started_at: Instant
  until_at: Instant
  ended_at: Instant | null
  keep_until: Instant
}

const toImpersonation = (row: Row): Impersonation => ({
  userId: row.user_id,
  by: { id: row.by_id, email: row.by_email },
  startedAt: new Date(Number(row.started_at)),
  until: new Date(Number(row.until_at)),
  endedAt: row.ended_at === null ? null : new Date(Number(row.ended_at)),
})

export type SqlImpersonationStoreOptions = SqlBanStoreOptions

/** An impersonation store on `db` (migrated with `migrateAdmin`). */
export class SqlImpersonationStore implements ImpersonationStore {
  readonly #db: Kysely<any>
  readonly #table: string
  readonly #dialect: BanSqlDialect

  constructor(db: Kysely<any>, options: SqlImpersonationStoreOptions = {}) {
    this.#db = db
    this.#table = impersonationTable(options.tablePrefix)
    this.#dialect = banDialect(db, options.dialect)
  }

  async put(key: string, record: Impersonation, ttl: number): Promise<void> {
    const now = Date.now()
    const update = {
      user_id: record.userId,
      by_id: record.by.id,
      by_email: record.by.email,
      started_at: record.startedAt.getTime(),
      until_at: record.until.getTime(),
      ended_at: record.endedAt?.getTime() ?? null,
      // At least a millisecond, as Redis's `PX`: a record put is readable at once.
      keep_until: now + Math.max(1, Math.ceil(ttl)),
    }
    const insert = this.#db.insertInto(this.#table).values({ session_key: key, ...update })
    await (this.#dialect === "mysql" ? insert.onDuplicateKeyUpdate(update) : insert.onConflict((c) => c.column("session_key").doUpdateSet(update))).execute()
    // Opportunistic pruning: the rows no session can be presented with any more.
    await this.#db.deleteFrom(this.#table).where("keep_until", "<=", now).execute()
  }

  async get(key: string): Promise<Impersonation | null> {
    // PostgreSQL text cannot hold NUL (the query would fail): no record was stored under such a key.
    if (key.includes("\u0000")) return null
    const row = (await this.#db
      .selectFrom(this.#table)
      .selectAll()
      .where("session_key", "=", key)
      .where("keep_until", ">", Date.now())
      .executeTakeFirst()) as Row | undefined
    return row ? toImpersonation(row) : null
  }
}
