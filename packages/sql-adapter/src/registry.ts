/**
 * The JWT session registry on SQL (`session.registry`, docs/sessions.md): one row per
 * signed-in JWT session, in the table `0003_session_management` creates.
 * @module
 */
import type { Kysely } from "kysely"
import type { SessionRecord, SessionRegistry } from "@portcullis/core/adapters"
import { toDate } from "./rows.js"
import { resolveTables, type TableNames } from "./tables.js"

type Row = Record<string, unknown>

/**
 * A {@link SessionRegistry} over the same Kysely instance as {@link SqlAdapter}, so JWT
 * sessions can be listed and revoked across every app instance sharing the database.
 * `touch` is one `UPDATE … WHERE id AND userId`: it can never bring back a removed row, and
 * its row count is the answer. Expired rows are skipped when listed and deleted when the
 * user's sessions are next listed.
 *
 * @example
 * ```ts
 * const db = createPostgresKysely(process.env.DATABASE_URL!)
 * await migrateToLatest(db, { dialect: "postgres" })
 * export const config = { providers, session: { strategy: "jwt", registry: new SqlSessionRegistry(db) } }
 * ```
 */
export class SqlSessionRegistry implements SessionRegistry {
  readonly #table: string
  /**
   * Whether an UPDATE's row count may leave out matched rows whose values did not change:
   * MySQL's, without the FOUND_ROWS flag. Kysely's MySQL adapter is the one of the three
   * without RETURNING, as in `SqlAdapter`.
   */
  readonly #countsChangedRowsOnly: boolean

  constructor(
    private readonly db: Kysely<any>,
    options: { tables?: Partial<TableNames> } = {},
  ) {
    this.#table = resolveTables(options.tables).sessionRegistry
    this.#countsChangedRowsOnly = !db.getExecutor().adapter.supportsReturning
  }

  async add(record: SessionRecord): Promise<void> {
    const { id, userId, createdAt, lastSeenAt, expires } = record
    await this.db.insertInto(this.#table).values({ id, userId, createdAt, lastSeenAt, expires, userAgent: record.userAgent ?? null, ipAddress: record.ipAddress ?? null }).execute()
  }

  async touch(userId: string, id: string, lastSeenAt: Date, expires: Date): Promise<boolean> {
    const result = await this.db.updateTable(this.#table).set({ lastSeenAt, expires })
      .where("id", "=", id).where("userId", "=", userId).where("expires", ">", lastSeenAt)
      .executeTakeFirst()
    if (Number(result.numUpdatedRows) > 0) return true
    // PostgreSQL and SQLite count every matched row: none matched, so none is there.
    if (!this.#countsChangedRowsOnly) return false
    // A MySQL connection without the FOUND_ROWS flag (mysql2 sets it by default; a pool of
    // your own may not) counts only rows whose values changed: two touches within one
    // millisecond would leave the second at 0 although the row is there. Rare; ask.
    const row = await this.db.selectFrom(this.#table).select("id")
      .where("id", "=", id).where("userId", "=", userId).where("expires", ">", lastSeenAt)
      .executeTakeFirst()
    return row !== undefined
  }

  async list(userId: string): Promise<SessionRecord[]> {
    const now = new Date()
    await this.db.deleteFrom(this.#table).where("userId", "=", userId).where("expires", "<=", now).execute()
    const rows = await this.db.selectFrom(this.#table).selectAll().where("userId", "=", userId).execute()
    return rows.map(recordFromRow).filter((r) => r.expires.getTime() > now.getTime())
  }

  /** The unexpired sessions of every user, counted by the database (one query). */
  async count(): Promise<number> {
    const row = await this.db.selectFrom(this.#table).select((eb) => eb.fn.countAll<number | string | bigint>().as("n")).where("expires", ">", new Date()).executeTakeFirst()
    return Number(row?.n ?? 0)
  }

  async remove(userId: string, ids: string[]): Promise<number> {
    if (!ids.length) return 0
    const result = await this.db.deleteFrom(this.#table).where("userId", "=", userId).where("id", "in", ids).executeTakeFirst()
    return Number(result.numDeletedRows)
  }

  async removeAll(userId: string): Promise<number> {
    const result = await this.db.deleteFrom(this.#table).where("userId", "=", userId).executeTakeFirst()
    return Number(result.numDeletedRows)
  }
}

function recordFromRow(row: Row): SessionRecord {
  return {
    id: String(row.id),
    userId: String(row.userId),
    createdAt: toDate(row.createdAt),
    lastSeenAt: toDate(row.lastSeenAt),
    expires: toDate(row.expires),
    userAgent: row.userAgent == null ? null : String(row.userAgent),
    ipAddress: row.ipAddress == null ? null : String(row.ipAddress),
  }
}
