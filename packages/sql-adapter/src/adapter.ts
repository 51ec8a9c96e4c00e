/**
 * The SQL adapter: Portcullis storage on any Kysely instance whose schema came from
 * `migrateToLatest`. Written against the dialect-neutral query builder; the one place
 * dialects differ (deleting and returning a row atomically) asks Kysely what the dialect
 * supports.
 * @module
 */
import { CompiledQuery, sql, type Kysely } from "kysely"
import { auditPage, checkAuditQuery, isAuditId, type AccountTokenPatch, type Adapter, type AdapterTwoFactor, type AuditEvent, type AuditQuery } from "@portcullis/core/adapters"
import { directReader } from "./direct-read.js"
import { resolveTables, type TableNames } from "./tables.js"
import {
  accountFromRow,
  accountRow,
  ACCOUNT_TOKEN_COLUMNS,
  authenticatorFromRow,
  authenticatorRow,
  sessionFromRow,
  sessionMetadataPatch,
  toBoolean,
  userFromRow,
  userPatch,
  verificationTokenFromRow,
} from "./rows.js"

type Row = Record<string, unknown>

/** Options of {@link SqlAdapter}. */
export interface SqlAdapterOptions {
  /** Table names, if not the defaults; give `migrateToLatest` the same. */
  tables?: Partial<TableNames>
  /**
   * The sessions table has the metadata columns (`0003_session_management`): read
   * `createdAt` with each session check, which `session.absoluteMaxAge` needs. Default
   * `false`, for an Auth.js schema. Writing metadata follows core's `session.metadata`.
   */
  sessionMetadata?: boolean
  /**
   * The database has the passwords table (`0005_passwords`): the adapter then stores
   * password hashes (`getUserPassword` / `setUserPassword`, which the password provider
   * needs) and `deleteUser` removes a user's hash with it. Default `false`, for an Auth.js
   * schema; `migrateToLatest` creates the table.
   */
  passwords?: boolean
  /**
   * The database has the audit table (`0007_audit_trail`): the adapter then stores the audit
   * trail (`createAuditRecord`, `listAuditRecords`, `deleteAuditRecordsBefore`), and core
   * stores every audit event in it. Default `false`, so a database not migrated yet is not
   * written to; `migrateToLatest` creates the table.
   */
  auditTrail?: boolean
}

/**
 * Creates an adapter over a Kysely instance on PostgreSQL, MySQL/MariaDB or SQLite.
 * Run {@link migrateToLatest} first (with the same `tables`).
 *
 * Absent optional account fields come back left out (not `null`); account fields without
 * a column (such as `expires_in`) are not stored. Expired sessions and tokens are
 * returned as stored: Portcullis checks `expires` and deletes them.
 *
 * @example
 * ```ts
 * import { createPostgresKysely, migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"
 *
 * const db = createPostgresKysely(process.env.DATABASE_URL!)
 * await migrateToLatest(db, { dialect: "postgres" })
 * export const config = { adapter: SqlAdapter(db), providers: [GitHub] }
 * ```
 */
export function SqlAdapter(db: Kysely<any>, options: SqlAdapterOptions = {}): Adapter {
  const t = resolveTables(options.tables)
  // One round trip: session columns are aliased so they cannot clash with the user's. The
  // user's columns are named (not `u.*`): `userFromRow` reads these five, and a statement
  // that names its columns keeps its row shape whatever columns the app adds
  // (`direct-read.ts` relies on it).
  const sessionAndUserQuery = (sessionToken: string) =>
    db.selectFrom(`${t.sessions} as s`)
      .innerJoin(`${t.users} as u`, "u.id", "s.userId")
      .select(["u.id", "u.name", "u.email", "u.emailVerified", "u.image"])
      .select(["s.id as s_id", "s.sessionToken as s_sessionToken", "s.userId as s_userId", "s.expires as s_expires"])
      .$if(options.sessionMetadata === true, (q) => q.select(["s.createdAt as s_createdAt"]))
      .where("s.sessionToken", "=", sessionToken)
  let sessionAndUserSql: string | undefined
  const direct = directReader(db)
  const supportsReturning = db.getExecutor().adapter.supportsReturning
  /** Locks taken through this adapter: every 100th take sweeps the expired rows (`acquireLock`). */
  let lockTakes = 0

  /**
   * Deletes the rows matching `where` and returns the first, such that under concurrency
   * only one caller receives it. With RETURNING the DELETE alone decides; without it
   * (MySQL), a locking read holds off the other transactions, and the row counts only if
   * this DELETE removed it.
   */
  async function take(table: string, where: Row): Promise<Row | undefined> {
    const filtered = <Q extends { where(column: string, op: "=", value: unknown): Q }>(query: Q) =>
      Object.entries(where).reduce((q, [column, value]) => q.where(column, "=", value), query)
    if (supportsReturning) {
      return filtered(db.deleteFrom(table)).returningAll().executeTakeFirst()
    }
    return db.transaction().execute(async (trx) => {
      const row = await filtered(trx.selectFrom(table).selectAll()).forUpdate().executeTakeFirst()
      if (!row) return undefined
      const { numDeletedRows } = await filtered(trx.deleteFrom(table)).executeTakeFirst()
      return numDeletedRows > 0n ? row : undefined
    })
  }

  /**
   * One statement inserting `values` into a table keyed by `userId`, or setting `changes` on
   * the row already there: ON CONFLICT on PostgreSQL and SQLite, ON DUPLICATE KEY on MySQL.
   */
  async function upsert(table: string, values: Row, changes: Row): Promise<void> {
    const insert = db.insertInto(table).values(values)
    await (supportsReturning ? insert.onConflict((oc) => oc.column("userId").doUpdateSet(changes)) : insert.onDuplicateKeyUpdate(changes)).execute()
  }

  const findUser = async (column: "id" | "email", value: string) => {
    const row = await db.selectFrom(t.users).selectAll().where(column, "=", value).executeTakeFirst()
    return row ? userFromRow(row) : null
  }

  const findAuthenticator = async (credentialID: string) => {
    const row = await db.selectFrom(t.authenticators).selectAll().where("credentialID", "=", credentialID).executeTakeFirst()
    return row ? authenticatorFromRow(row) : null
  }

  return {
    async createUser(user) {
      await db.insertInto(t.users).values({ id: user.id, ...userPatch(user) }).execute()
      return userFromRow({ ...user })
    },
    getUser: (id) => findUser("id", id),
    getUserByEmail: (email) => findUser("email", email),
    async getUserByAccount({ provider, providerAccountId }) {
      const row = await db.selectFrom(`${t.accounts} as a`)
        .innerJoin(`${t.users} as u`, "u.id", "a.userId")
        .selectAll("u")
        .where("a.provider", "=", provider)
        .where("a.providerAccountId", "=", providerAccountId)
        .executeTakeFirst()
      return row ? userFromRow(row) : null
    },
    async updateUser(user) {
      const patch = userPatch(user)
      if (Object.keys(patch).length > 0) await db.updateTable(t.users).set(patch).where("id", "=", user.id).execute()
      const updated = await findUser("id", user.id)
      if (!updated) throw new Error(`no user with id ${user.id}`)
      return updated
    },
    async deleteUser(userId) {
      // Explicit deletes rather than trusting ON DELETE CASCADE: SQLite ignores foreign
      // keys on connections that did not enable them.
      return db.transaction().execute(async (trx) => {
        const row = await trx.selectFrom(t.users).selectAll().where("id", "=", userId).executeTakeFirst()
        for (const table of options.passwords === true ? [t.passwords, t.authenticators, t.sessions, t.accounts] : [t.authenticators, t.sessions, t.accounts]) {
          await trx.deleteFrom(table).where("userId", "=", userId).execute()
        }
        await trx.deleteFrom(t.users).where("id", "=", userId).execute()
        return row ? userFromRow(row) : null
      })
    },

    async linkAccount(account) {
      await db.insertInto(t.accounts).values(accountRow(crypto.randomUUID(), account)).execute()
      return account
    },
    async unlinkAccount({ provider, providerAccountId }) {
      const row = await take(t.accounts, { provider, providerAccountId })
      return row ? accountFromRow(row) : undefined
    },
    async getAccount(providerAccountId, provider) {
      const row = await db.selectFrom(t.accounts).selectAll()
        .where("provider", "=", provider)
        .where("providerAccountId", "=", providerAccountId)
        .executeTakeFirst()
      return row ? accountFromRow(row) : null
    },

    async createSession(session) {
      const id = crypto.randomUUID()
      // Metadata only when core sends it (`session.metadata`): an Auth.js schema has no columns for it.
      const metadata = sessionMetadataPatch(session)
      await db.insertInto(t.sessions).values({
        id, sessionToken: session.sessionToken, userId: session.userId, expires: session.expires, ...metadata,
      }).execute()
      return { id, sessionToken: session.sessionToken, userId: session.userId, expires: session.expires, ...metadata }
    },
    async getSessionAndUser(sessionToken) {
      // The hottest query of all (every session check): built and compiled once, then run
      // with each token as its only parameter.
      sessionAndUserSql ??= sessionAndUserQuery("").compile().sql
      // On a connection that allows it (SQLite in this process, no transaction open), the
      // query runs now instead of queueing through Kysely's executor (`direct-read.ts`).
      const rows = direct?.read(sessionAndUserSql, [sessionToken]) ??
        (await db.executeQuery<Row>(CompiledQuery.raw(sessionAndUserSql, [sessionToken]))).rows
      const row = rows[0]
      if (!row) return null
      return {
        session: sessionFromRow({
          id: row.s_id, sessionToken: row.s_sessionToken, userId: row.s_userId, expires: row.s_expires,
          ...("s_createdAt" in row && { createdAt: row.s_createdAt }),
        }),
        user: userFromRow(row),
      }
    },
    async updateSession(session) {
      const patch: Row = {}
      if (session.expires) patch.expires = session.expires
      if (session.userId) patch.userId = session.userId
      Object.assign(patch, sessionMetadataPatch(session))
      // UPDATE only: a session deleted meanwhile stays deleted (no upsert).
      if (Object.keys(patch).length > 0) {
        await db.updateTable(t.sessions).set(patch).where("sessionToken", "=", session.sessionToken).execute()
      }
      const row = await db.selectFrom(t.sessions).selectAll().where("sessionToken", "=", session.sessionToken).executeTakeFirst()
      return row ? sessionFromRow(row) : null
    },
    async deleteSession(sessionToken) {
      const row = await take(t.sessions, { sessionToken })
      return row ? sessionFromRow(row) : null
    },
    // Session management (a Portcullis capability): every column there is, metadata
    // included when migrated; expired rows are left for core to filter.
    // Users by id after the cursor, the search as a literal substring of the lower-cased
    // email or name ('!' escapes LIKE's wildcards, the same on every dialect).
    async listUsers({ search, verified, cursor, limit }) {
      let query = db.selectFrom(t.users).selectAll().orderBy("id").limit(limit + 1)
      if (cursor !== undefined) query = query.where("id", ">", cursor)
      if (verified !== undefined) query = query.where("emailVerified", verified ? "is not" : "is", null)
      if (search !== undefined) {
        const pattern = `%${search.replace(/[!%_]/g, (c) => `!${c}`)}%`
        query = query.where(({ or }) => or([sql<boolean>`lower(${sql.ref("email")}) like ${pattern} escape '!'`, sql<boolean>`lower(coalesce(${sql.ref("name")}, '')) like ${pattern} escape '!'`]))
      }
      const rows = await query.execute()
      const users = rows.slice(0, limit).map(userFromRow)
      return { users, next: rows.length > limit ? users[users.length - 1]!.id : null }
    },

    async listSessions(userId) {
      const rows = await db.selectFrom(t.sessions).selectAll().where("userId", "=", userId).execute()
      return rows.map(sessionFromRow)
    },

    // Expired rows stay until a sign-out or cleanup deletes them: only unexpired ones count.
    async countSessions() {
      const row = await db.selectFrom(t.sessions).select((eb) => eb.fn.countAll<number | string | bigint>().as("n")).where("expires", ">", new Date()).executeTakeFirst()
      return Number(row?.n ?? 0)
    },

    async createVerificationToken(verificationToken) {
      const { identifier, token, expires } = verificationToken
      await db.insertInto(t.verificationTokens).values({ identifier, token, expires }).execute()
      return { identifier, token, expires }
    },
    async useVerificationToken({ identifier, token }) {
      const row = await take(t.verificationTokens, { identifier, token })
      return row ? verificationTokenFromRow(row) : null
    },

    async createAuthenticator(authenticator) {
      // A duplicate credentialID violates the primary key and throws, as the contract requires.
      await db.insertInto(t.authenticators).values(authenticatorRow(authenticator)).execute()
      return authenticatorFromRow(authenticatorRow(authenticator))
    },
    getAuthenticator: findAuthenticator,
    async listAuthenticatorsByUserId(userId) {
      const rows = await db.selectFrom(t.authenticators).selectAll().where("userId", "=", userId).execute()
      return rows.map(authenticatorFromRow)
    },
    async renameAuthenticator(credentialID, name) {
      await db.updateTable(t.authenticators).set({ name }).where("credentialID", "=", credentialID).execute()
    },
    async deleteAuthenticator(credentialID) {
      await db.deleteFrom(t.authenticators).where("credentialID", "=", credentialID).execute()
    },
    async updateAuthenticatorCounter(credentialID, newCounter) {
      await db.updateTable(t.authenticators).set({ counter: newCounter }).where("credentialID", "=", credentialID).execute()
      // Read back instead of trusting the affected-row count, which MySQL reports as 0
      // when the value did not change.
      const updated = await findAuthenticator(credentialID)
      if (!updated) throw new Error(`no authenticator with credentialID ${credentialID}`)
      return updated
    },

    // Portcullis extensions for provider token refresh (docs/adapters.md).
    async getAccountByUserId(userId, provider) {
      const row = await db.selectFrom(t.accounts).selectAll()
        .where("userId", "=", userId)
        .where("provider", "=", provider)
        .executeTakeFirst()
      return row ? accountFromRow(row) : null
    },
    async updateAccount({ provider, providerAccountId }, patch, expected) {
      const set = accountPatch(patch)
      // Nothing to write: the compare alone (an UPDATE needs a SET).
      if (Object.keys(set).length === 0) set.provider = provider
      const matching = <Q extends { where(...args: any[]): Q }>(query: Q): Q => {
        let q = query.where("provider", "=", provider).where("providerAccountId", "=", providerAccountId)
        // The compare-and-set: the write happens only while the refresh token is the one read.
        if (expected) q = expected.refresh_token === null ? q.where("refresh_token", "is", null) : q.where("refresh_token", "=", expected.refresh_token)
        return q
      }
      if (supportsReturning) {
        const row = await matching(db.updateTable(t.accounts).set(set)).returningAll().executeTakeFirst()
        return row ? accountFromRow(row) : null
      }
      // MySQL has no RETURNING and counts only rows whose values changed: a locking read
      // decides whether the row matches, and the UPDATE runs under that lock.
      return db.transaction().execute(async (trx) => {
        const row = await matching(trx.selectFrom(t.accounts).selectAll()).forUpdate().executeTakeFirst()
        if (!row) return null
        await matching(trx.updateTable(t.accounts).set(set)).execute()
        return accountFromRow({ ...row, ...set })
      })
    },
    async acquireLock(key, owner, ttlMs) {
      const now = Date.now()
      // Most keys are taken once (two-factor attempt slots, one per challenge and attempt)
      // and left to expire: now and then the expired rows go, so the table stays small.
      if (++lockTakes % 100 === 0) await db.deleteFrom(t.locks).where("expires", "<", now).execute()
      // A taken key is no error (waiters ask every few hundred milliseconds; failed INSERTs
      // would fill the server's log): ON CONFLICT DO NOTHING, or MySQL's INSERT IGNORE.
      const insert = db.insertInto(t.locks).values({ key, owner, value: null, expires: now + ttlMs })
      const inserted = await (supportsReturning ? insert.onConflict((oc) => oc.column("key").doNothing()) : insert.ignore()).executeTakeFirst()
      if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) return true
      // Taken: ours only if its holder's time is up. One UPDATE decides among several
      // takers of an expired lock; the others match no row.
      const { numUpdatedRows } = await db.updateTable(t.locks)
        .set({ owner, value: null, expires: now + ttlMs })
        .where("key", "=", key)
        .where("expires", "<=", now)
        .executeTakeFirst()
      return numUpdatedRows > 0n
    },
    async releaseLock(key, owner) {
      await db.deleteFrom(t.locks).where("key", "=", key).where("owner", "=", owner).execute()
    },
    async setShared(key, value, ttlMs) {
      const expires = Date.now() + ttlMs
      await db.transaction().execute(async (trx) => {
        // Rows expire only logically: every write also sweeps the expired ones (shared
        // values nobody read, locks of holders that died), so the table stays small.
        await trx.deleteFrom(t.locks).where((eb) => eb.or([eb("key", "=", key), eb("expires", "<", Date.now())])).execute()
        await trx.insertInto(t.locks).values({ key, owner: "", value, expires }).execute()
      })
    },
    async getShared(key) {
      const row = await db.selectFrom(t.locks).select(["value", "expires"]).where("key", "=", key).executeTakeFirst()
      if (!row || row.value == null || Number(row.expires) <= Date.now()) return null
      return String(row.value)
    },

    // Two-factor capability (docs/two-factor.md), table `0006_two_factor`.
    async getTwoFactor(userId) {
      const row = await db.selectFrom(t.twoFactor).selectAll().where("userId", "=", userId).executeTakeFirst()
      return row ? twoFactorFromRow(row) : null
    },
    async setTwoFactor(record) {
      const { userId, ...fields } = { ...record, backupCodes: JSON.stringify(record.backupCodes) }
      // One upsert, so two concurrent writes (two tabs starting enrollment) both succeed and
      // the last one stands.
      await upsert(t.twoFactor, { userId, ...fields }, fields)
    },
    async deleteTwoFactor(userId) {
      await db.deleteFrom(t.twoFactor).where("userId", "=", userId).execute()
    },
    async useTwoFactorStep(userId, step) {
      // One UPDATE decides: of concurrent callers with the same step, one moves the mark.
      const { numUpdatedRows } = await db.updateTable(t.twoFactor)
        .set({ lastUsedStep: step })
        .where("userId", "=", userId)
        .where((eb) => eb.or([eb("lastUsedStep", "is", null), eb("lastUsedStep", "<", step)]))
        .executeTakeFirst()
      return numUpdatedRows > 0n
    },
    async useTwoFactorBackupCode(userId, hash) {
      // Compare-and-set on the whole list: the write happens only while the list is the one
      // read, so of two callers with the same code one removes it and the other reads again
      // and no longer finds it. Another code used in between only costs a retry.
      for (let attempt = 0; attempt < 100; attempt++) {
        const row = await db.selectFrom(t.twoFactor).select("backupCodes").where("userId", "=", userId).executeTakeFirst()
        if (!row) return false
        const codes = parseCodes(row.backupCodes)
        const index = codes.indexOf(hash)
        if (index === -1) return false
        const rest = codes.filter((_, i) => i !== index)
        const { numUpdatedRows } = await db.updateTable(t.twoFactor)
          .set({ backupCodes: JSON.stringify(rest) })
          .where("userId", "=", userId)
          .where("backupCodes", "=", row.backupCodes)
          .executeTakeFirst()
        if (numUpdatedRows > 0n) return true
      }
      throw new Error("useTwoFactorBackupCode: the backup codes kept changing; try again")
    },
    ...(options.passwords === true && {
      async getUserPassword(userId: string) {
        const row = await db.selectFrom(t.passwords).select("hash").where("userId", "=", userId).executeTakeFirst()
        return row ? String(row.hash) : null
      },
      async setUserPassword(userId: string, hash: string) {
        // One statement, so two concurrent writers (a reset and a rehash) cannot both insert.
        const updatedAt = new Date()
        await upsert(t.passwords, { userId, hash, updatedAt }, { hash, updatedAt })
      },
    }),
    ...(options.auditTrail === true && {
      // Audit capability (docs/observability.md, "Storing the audit trail"), table `0007_audit_trail`.
      async createAuditRecord(record: AuditEvent) {
        const insert = db.insertInto(t.auditRecords).values(auditRow(record))
        // The same id twice keeps the first: a retried write is no second event.
        await (supportsReturning ? insert.onConflict((oc) => oc.column("id").doNothing()) : insert.onDuplicateKeyUpdate({ id: sql.ref("id") })).execute()
      },
      async listAuditRecords(query: AuditQuery) {
        const q = checkAuditQuery(query)
        const after = q.after
        const rows = await db.selectFrom(t.auditRecords).selectAll()
          .$if(q.userId !== undefined, (b) => b.where("user_id", "=", q.userId!))
          .$if(q.types !== undefined, (b) => b.where("type", "in", q.types!))
          .$if(q.since !== undefined, (b) => b.where("time", ">=", q.since!))
          .$if(q.until !== undefined, (b) => b.where("time", "<", q.until!))
          // The keyset: strictly after the cursor's (time, id) in newest-first order.
          .$if(after !== undefined, (b) => b.where((eb) => eb(eb.refTuple("time", "id"), "<", eb.tuple(after!.time, after!.id))))
          .orderBy("time", "desc")
          .orderBy("id", "desc")
          .limit(q.limit + 1)
          .execute()
        return auditPage(rows.map(auditFromRow), q.limit)
      },
      async deleteAuditRecordsBefore(before: Date) {
        // NaN as a bound is an error on PostgreSQL and "nothing" or "anything" elsewhere: refused everywhere.
        if (!(before instanceof Date) || !Number.isFinite(before.getTime())) throw new TypeError("deleteAuditRecordsBefore needs a valid Date")
        const { numDeletedRows } = await db.deleteFrom(t.auditRecords).where("time", "<", before.getTime()).executeTakeFirst()
        return Number(numDeletedRows)
      },
    }),
  }
}

/** The columns of an audit record; a field the event lacks is `NULL`. */
function auditRow(record: AuditEvent): Row {
  const time = Date.parse(record.time)
  // The keyset needs both: refuse a record a page could not be positioned on.
  if (!isAuditId(record.id) || !Number.isFinite(time)) throw new Error("createAuditRecord: the record needs an id of letters, digits, - and _ and an ISO 8601 time")
  return {
    id: record.id,
    time,
    type: record.type,
    outcome: record.outcome,
    user_id: record.userId ?? null,
    actor: record.actor ?? null,
    ip: record.ip ?? null,
    user_agent: record.userAgent ?? null,
    method: record.method ?? null,
    provider: record.provider ?? null,
    reason: record.reason ?? null,
    details: record.details === undefined ? null : JSON.stringify(record.details),
  }
}

/** An audit record as stored: exactly the event's fields, those it lacked left out. */
function auditFromRow(row: Row): AuditEvent {
  const optional = { userId: row.user_id, actor: row.actor, ip: row.ip, userAgent: row.user_agent, method: row.method, provider: row.provider, reason: row.reason }
  return {
    id: String(row.id),
    time: new Date(Number(row.time)).toISOString(),
    type: String(row.type),
    outcome: String(row.outcome),
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value != null).map(([key, value]) => [key, String(value)])),
    ...(row.details != null && { details: JSON.parse(String(row.details)) }),
  } as AuditEvent
}

function parseCodes(value: unknown): string[] {
  const parsed: unknown = JSON.parse(String(value))
  return Array.isArray(parsed) ? parsed.filter((c): c is string => typeof c === "string") : []
}

function twoFactorFromRow(row: Row): AdapterTwoFactor {
  return {
    userId: String(row.userId),
    secret: String(row.secret),
    enabled: toBoolean(row.enabled),
    lastUsedStep: row.lastUsedStep == null ? null : Number(row.lastUsedStep),
    backupCodes: parseCodes(row.backupCodes),
  }
}

/** The columns an account token patch sets (`undefined` fields are left as they are). */
function accountPatch(patch: AccountTokenPatch): Row {
  const set: Row = {}
  for (const column of ACCOUNT_TOKEN_COLUMNS) {
    const value = (patch as Record<string, unknown>)[column]
    if (value !== undefined) set[column] = value
  }
  if (patch.reauth_required !== undefined) set.reauth_required = patch.reauth_required
  return set
}
