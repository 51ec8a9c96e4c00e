/**
 * Bans in a SQL table (PostgreSQL, MySQL/MariaDB, SQLite through Kysely): one row per user,
 * written by one upsert (so 50 concurrent bans of one user leave one row), read by primary
 * key at every sign-in. Instants are milliseconds since the epoch in a `bigint`, the same
 * on every database.
 * @module
 */
import { MysqlAdapter, PostgresAdapter, SqliteAdapter, type Kysely } from "kysely"
import type { Ban, BanStore } from "../store/types.js"

export type BanSqlDialect = "postgres" | "mysql" | "sqlite"

/** The table's name: `<tablePrefix>admin_bans`. */
export function banTable(tablePrefix = ""): string {
  return `${tablePrefix}admin_bans`
}

/** `given`, or the dialect of `db`'s adapter. */
export function banDialect(db: Kysely<any>, given?: BanSqlDialect): BanSqlDialect {
  if (given) return given
  const adapter = db.getExecutor().adapter
  if (adapter instanceof PostgresAdapter) return "postgres"
  if (adapter instanceof MysqlAdapter) return "mysql"
  if (adapter instanceof SqliteAdapter) return "sqlite"
  throw new TypeError('cannot tell this Kysely instance\'s SQL dialect: pass { dialect: "postgres" | "mysql" | "sqlite" }')
}

interface Row {
  user_id: string
  reason: string
  banned_by: string
  banned_at: number | string | bigint
  expires: number | string | bigint | null
}

const toBan = (row: Row): Ban => ({
  userId: row.user_id,
  reason: row.reason,
  bannedBy: row.banned_by,
  bannedAt: new Date(Number(row.banned_at)),
  expires: row.expires === null ? null : new Date(Number(row.expires)),
})

export interface SqlBanStoreOptions {
  tablePrefix?: string
  dialect?: BanSqlDialect
}

/** A ban store on `db` (migrated with `migrateAdmin`). */
export class SqlBanStore implements BanStore {
  readonly #db: Kysely<any>
  readonly #table: string
  readonly #dialect: BanSqlDialect

  constructor(db: Kysely<any>, options: SqlBanStoreOptions = {}) {
    this.#db = db
    this.#table = banTable(options.tablePrefix)
    this.#dialect = banDialect(db, options.dialect)
  }

  async ban(ban: Ban): Promise<void> {
    const row = { user_id: ban.userId, reason: ban.reason, banned_by: ban.bannedBy, banned_at: ban.bannedAt.getTime(), expires: ban.expires?.getTime() ?? null }
    const update = { reason: row.reason, banned_by: row.banned_by, banned_at: row.banned_at, expires: row.expires }
    const insert = this.#db.insertInto(this.#table).values(row)
    await (this.#dialect === "mysql" ? insert.onDuplicateKeyUpdate(update) : insert.onConflict((c) => c.column("user_id").doUpdateSet(update))).execute()
  }

  async unban(userId: string): Promise<boolean> {
    const now = Date.now()
    const result = await this.#db
      .deleteFrom(this.#table)
      .where("user_id", "=", userId)
      .where((w) => w.or([w("expires", "is", null), w("expires", ">", now)]))
      .executeTakeFirst()
    // An expired row is left for the next read to ignore; deleting it too is tidier.
    await this.#db.deleteFrom(this.#table).where("user_id", "=", userId).execute()
    return Number(result.numDeletedRows) > 0
  }

  async get(userId: string, now = new Date()): Promise<Ban | null> {
    const row = (await this.#db.selectFrom(this.#table).selectAll().where("user_id", "=", userId).executeTakeFirst()) as Row | undefined
    if (!row) return null
    const ban = toBan(row)
    return ban.expires && ban.expires.getTime() <= now.getTime() ? null : ban
  }

  async many(userIds: readonly string[], now = new Date()): Promise<Map<string, Ban>> {
    const out = new Map<string, Ban>()
    if (!userIds.length) return out
    const rows = (await this.#db.selectFrom(this.#table).selectAll().where("user_id", "in", [...userIds]).execute()) as Row[]
    for (const row of rows) {
      const ban = toBan(row)
      if (!ban.expires || ban.expires.getTime() > now.getTime()) out.set(ban.userId, ban)
    }
    return out
  }
}
