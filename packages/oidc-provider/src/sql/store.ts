/**
 * The OpenID Provider store on PostgreSQL, MySQL/MariaDB or SQLite through Kysely. Every
 * single-use step is kept by the database in one statement or one transaction: a code is
 * redeemed by a conditional UPDATE (of concurrent ones, one changes the row), a refresh token
 * is rotated under a row lock with its successor inserted and a reuse's grant revoked in the
 * same transaction, a device's decision and its hand-out are conditional on its status, and
 * `takeInteraction` deletes what it returns.
 *
 * Revoking a grant is one UPDATE of its row: codes and refresh tokens are never answered for
 * a grant that is revoked or expired, so nothing is left half revoked if the process dies.
 * @module
 */
import { sql, type Kysely, type Transaction } from "kysely"
import { isDuplicate, retrying } from "@portcullis/sql-adapter/migrations"
import type {
  AuthorizationCode, CodeTake, Consent, DeviceAuthorization, DevicePoll, Grant, OAuthClient, OidcProviderStore,
  RefreshRotation, RefreshToken, StoredSigningKey,
} from "../store/types.js"
import { oidcProviderTables, resolveOidcProviderDialect, type OidcProviderSqlDialect } from "./tables.js"

type Row = Record<string, unknown>
type Db = Kysely<any> | Transaction<any>

/** Options of {@link sqlOidcProviderStore}. */
export interface SqlOidcProviderStoreOptions {
  /** Put in front of every table name, as given to `migrateOidcProvider`. Default none. */
  tablePrefix?: string
  /** Detected from the Kysely instance when not given. */
  dialect?: OidcProviderSqlDialect
}

/** PostgreSQL and MySQL hand back `Date`s; SQLite the ISO 8601 text it stores. */
const toDate = (value: unknown): Date => (value instanceof Date ? new Date(value.getTime()) : new Date(String(value)))
const toDateOrUndefined = (value: unknown): Date | undefined => (value == null ? undefined : toDate(value))
/** PostgreSQL hands a bigint back as text. */
const toNumberOrUndefined = (value: unknown): number | undefined => (value == null ? undefined : Number(value))

/**
 * A record as JSON, its `Date` fields as milliseconds; `revive` turns them back. Records are
 * read and written whole, never queried into: what is queried has a column of its own.
 */
function pack(record: object): string {
  // Only top-level fields are dates in these records; JSON.stringify would turn them into text before a replacer saw them.
  return JSON.stringify(Object.fromEntries(Object.entries(record).map(([k, v]) => [k, v instanceof Date ? { $date: v.getTime() } : v])))
}
function unpack<T>(json: unknown): T {
  const parsed = JSON.parse(String(json)) as Record<string, unknown>
  for (const [k, v] of Object.entries(parsed)) {
    if (v && typeof v === "object" && typeof (v as { $date?: unknown }).$date === "number") parsed[k] = new Date((v as { $date: number }).$date)
  }
  return parsed as T
}

const byCreated = <T extends { createdAt: Date }>(a: T, b: T) => a.createdAt.getTime() - b.createdAt.getTime()

function grantFromRow(row: Row): Grant {
  const data = unpack<Pick<Grant, "scope" | "resources" | "authTime">>(row.data)
  return {
    id: String(row.id),
    clientId: String(row.client_id),
    ...(row.user_id != null && { userId: String(row.user_id) }),
    scope: data.scope,
    resources: data.resources,
    ...(data.authTime !== undefined && { authTime: data.authTime }),
    ...(row.session_key != null && { sessionKey: String(row.session_key) }),
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
  }
}

function consentFromRow(row: Row): Consent {
  return {
    userId: String(row.user_id),
    clientId: String(row.client_id),
    scope: String(row.scope),
    resources: JSON.parse(String(row.resources)) as string[],
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  }
}

/** The request itself is `data`; what changes (status, decision, polling) has columns. */
function deviceFromRow(row: Row): DeviceAuthorization {
  const data = unpack<Pick<DeviceAuthorization, "clientId" | "scope" | "resources">>(row.data)
  const userId = row.user_id == null ? undefined : String(row.user_id)
  const authTime = toNumberOrUndefined(row.auth_time)
  const grantId = row.grant_id == null ? undefined : String(row.grant_id)
  const lastPolledAt = toDateOrUndefined(row.last_polled_at)
  return {
    deviceCodeHash: String(row.device_code_hash),
    userCode: String(row.user_code),
    clientId: data.clientId,
    scope: data.scope,
    resources: data.resources,
    status: String(row.status) as DeviceAuthorization["status"],
    ...(userId !== undefined && { userId }),
    ...(authTime !== undefined && { authTime }),
    ...(grantId !== undefined && { grantId }),
    interval: Number(row.poll_interval),
    ...(lastPolledAt !== undefined && { lastPolledAt }),
    expiresAt: toDate(row.expires_at),
  }
}

function signingKeyFromRow(row: Row): StoredSigningKey {
  const retiredAt = toDateOrUndefined(row.retired_at)
  const expiresAt = toDateOrUndefined(row.expires_at)
  return {
    kid: String(row.kid),
    alg: String(row.alg) as StoredSigningKey["alg"],
    publicJwk: JSON.parse(String(row.public_jwk)) as Record<string, unknown>,
    sealedPrivateJwk: String(row.sealed_private_jwk),
    createdAt: toDate(row.created_at),
    ...(retiredAt !== undefined && { retiredAt }),
    ...(expiresAt !== undefined && { expiresAt }),
  }
}

/** Splits a space-separated scope into its distinct values, in order. */
const scopes = (scope: string) => [...new Set(scope.split(" ").filter(Boolean))]

/** How many writes of expiring rows between two sweeps of the expired ones. */
const SWEEP_EVERY = 100

/**
 * Creates the OpenID Provider store over a Kysely instance whose schema came from
 * `migrateOidcProvider` (with the same `tablePrefix`).
 *
 * @example
 * ```ts
 * import { createPostgresKysely } from "@portcullis/sql-adapter"
 * import { migrateOidcProvider, sqlOidcProviderStore } from "@portcullis/oidc-provider/sql"
 *
 * const db = createPostgresKysely(process.env.DATABASE_URL!)
 * await migrateOidcProvider(db)
 * const store = sqlOidcProviderStore(db)
 * ```
 */
export function sqlOidcProviderStore(db: Kysely<any>, options: SqlOidcProviderStoreOptions = {}): OidcProviderStore {
  const dialect = resolveOidcProviderDialect(db, options.dialect)
  const t = oidcProviderTables(options.tablePrefix)
  // SQLite has no row locks (and Kysely refuses FOR UPDATE there): a writer holds the whole
  // database, and on one Kysely instance transactions run one at a time.
  const locking = dialect !== "sqlite"
  const lockedIf = <Q extends { forUpdate(): Q }>(query: Q): Q => (locking ? query.forUpdate() : query)
  const transaction = <T>(work: (trx: Transaction<any>) => Promise<T>) => retrying(() => db.transaction().execute(work))
  let writes = 0

  /** Every {@link SWEEP_EVERY}th write of an expiring row deletes the expired ones, so tables stay the size of what is live. */
  async function maybeSweep(): Promise<void> {
    if (++writes % SWEEP_EVERY !== 0) return
    const now = new Date()
    for (const table of [t.codes, t.refreshTokens, t.revokedAccessTokens, t.devices, t.interactions, t.grants, t.usedKeys]) {
      await db.deleteFrom(table).where("expires_at", "<=", now).execute()
    }
  }

  /** The grant row when active (not revoked, not expired) at `now`. */
  const activeGrant = (q: Db, id: string, now: Date) =>
    q.selectFrom(t.grants).selectAll().where("id", "=", id).where("revoked", "=", 0).where("expires_at", ">", now)

  /** Marks grants revoked by `filter`; the count of those that were active. One UPDATE: concurrent revocations count each grant once. */
  async function revokeWhere(q: Db, filter: Row): Promise<number> {
    let update = q.updateTable(t.grants).set({ revoked: 1 }).where("revoked", "=", 0).where("expires_at", ">", new Date())
    for (const [column, value] of Object.entries(filter)) update = update.where(column, "=", value)
    const { numUpdatedRows } = await update.executeTakeFirst()
    return Number(numUpdatedRows)
  }

  /** An insert that keeps an existing row of the same key as it is (the unique key decides races). */
  function insertKeeping(q: Db, table: string, values: Row, key: string[]) {
    const insert = q.insertInto(table).values(values)
    // MySQL: ON DUPLICATE KEY UPDATE that changes nothing (not INSERT IGNORE, which would also
    // turn a too-long value into a truncated one), taking the row's exclusive lock at once.
    return dialect === "mysql"
      ? insert.onDuplicateKeyUpdate({ [key[0]!]: sql.ref(`${table}.${key[0]!}`) })
      : insert.onConflict((oc) => oc.columns(key as never).doNothing())
  }

  return {
    async createClient(client) {
      await db.insertInto(t.clients).values({
        client_id: client.clientId,
        dynamic: client.dynamic ? 1 : 0,
        data: pack(client),
        created_at: client.createdAt,
      }).execute()
    },
    async getClient(clientId) {
      const row = await db.selectFrom(t.clients).select("data").where("client_id", "=", clientId).executeTakeFirst()
      return row ? unpack<OAuthClient>(row.data) : null
    },
    async deleteClient(clientId) {
      const { numDeletedRows } = await db.deleteFrom(t.clients).where("client_id", "=", clientId).executeTakeFirst()
      return numDeletedRows > 0n
    },
    async countDynamicClients() {
      const row = await db.selectFrom(t.clients).select((eb) => eb.fn.countAll().as("n")).where("dynamic", "=", 1).executeTakeFirst()
      return Number(row?.n ?? 0)
    },

    async createGrant(grant) {
      await db.insertInto(t.grants).values({
        id: grant.id,
        client_id: grant.clientId,
        user_id: grant.userId ?? null,
        session_key: grant.sessionKey ?? null,
        revoked: 0,
        data: pack({ scope: grant.scope, resources: grant.resources, ...(grant.authTime !== undefined && { authTime: grant.authTime }) }),
        created_at: grant.createdAt,
        expires_at: grant.expiresAt,
      }).execute()
      await maybeSweep()
    },
    async getGrant(id) {
      const row = await activeGrant(db, id, new Date()).executeTakeFirst()
      return row ? grantFromRow(row) : null
    },
    async revokeGrant(id) {
      return (await revokeWhere(db, { id })) > 0
    },
    async listGrants(userId, clientId) {
      let query = db.selectFrom(t.grants).selectAll().where("user_id", "=", userId).where("revoked", "=", 0).where("expires_at", ">", new Date())
      if (clientId !== undefined) query = query.where("client_id", "=", clientId)
      return (await query.execute()).map(grantFromRow).sort(byCreated)
    },
    revokeGrantsOf(userId, clientId) {
      return revokeWhere(db, { user_id: userId, client_id: clientId })
    },
    revokeGrantsOfSession(sessionKey) {
      return revokeWhere(db, { session_key: sessionKey })
    },

    async saveCode(code) {
      await db.insertInto(t.codes).values({ code_hash: code.codeHash, grant_id: code.grantId, used: 0, data: pack(code), expires_at: code.expiresAt }).execute()
      await maybeSweep()
    },
    async takeCode(codeHash): Promise<CodeTake> {
      const now = new Date()
      // The conditional UPDATE is the redemption: of concurrent ones, exactly one changes the
      // row. A code whose grant is revoked or expired is `missing`, taken or not — a replay
      // after the grant was revoked has nothing left to revoke.
      const { numUpdatedRows } = await db.updateTable(t.codes).set({ used: 1 })
        .where("code_hash", "=", codeHash).where("used", "=", 0).where("expires_at", ">", now)
        .where((eb) => eb.exists(eb.selectFrom(t.grants).select("id")
          .whereRef(`${t.grants}.id`, "=", `${t.codes}.grant_id`).where("revoked", "=", 0).where("expires_at", ">", now)))
        .executeTakeFirst()
      const row = await db.selectFrom(t.codes).select(["data", "used"]).where("code_hash", "=", codeHash).where("expires_at", ">", now).executeTakeFirst()
      if (!row) return { status: "missing" }
      const code = unpack<AuthorizationCode>(row.data)
      if (numUpdatedRows > 0n) return { status: "taken", code }
      if (Number(row.used) !== 1 || !(await activeGrant(db, code.grantId, now).executeTakeFirst())) return { status: "missing" }
      return { status: "replayed", code }
    },

    async saveRefreshToken(token) {
      await db.insertInto(t.refreshTokens).values({ token_hash: token.tokenHash, grant_id: token.grantId, rotated: 0, data: pack(token), expires_at: token.expiresAt }).execute()
      await maybeSweep()
    },
    async rotateRefreshToken(tokenHash, next): Promise<RefreshRotation> {
      const outcome = await transaction(async (trx): Promise<RefreshRotation> => {
        const now = new Date()
        // The token's row lock orders concurrent rotations: the second waits for the first's
        // commit and then reads `rotated = 1`. The grant is locked after the token, always in
        // that order, so rotations and revocations cannot deadlock on each other.
        const row = await lockedIf(trx.selectFrom(t.refreshTokens).selectAll().where("token_hash", "=", tokenHash)).executeTakeFirst()
        if (!row || toDate(row.expires_at).getTime() <= now.getTime()) return { status: "missing" }
        const grant = await lockedIf(activeGrant(trx, String(row.grant_id), now)).executeTakeFirst()
        if (!grant) return { status: "missing" }
        const previous = unpack<RefreshToken>(row.data)
        if (Number(row.rotated) === 1) {
          // Reuse: the whole family ends with its grant, in this transaction (RFC 9700 §4.14.2).
          await trx.updateTable(t.grants).set({ revoked: 1 }).where("id", "=", String(row.grant_id)).execute()
          return { status: "reused", previous }
        }
        // Conditional too, for SQLite, where nothing is locked but the transaction is alone.
        const { numUpdatedRows } = await trx.updateTable(t.refreshTokens).set({ rotated: 1 })
          .where("token_hash", "=", tokenHash).where("rotated", "=", 0).executeTakeFirst()
        if (numUpdatedRows === 0n) return { status: "missing" }
        await trx.insertInto(t.refreshTokens).values({ token_hash: next.tokenHash, grant_id: next.grantId, rotated: 0, data: pack(next), expires_at: next.expiresAt }).execute()
        return { status: "rotated", previous }
      })
      if (outcome.status === "rotated") await maybeSweep()
      return outcome
    },
    async getRefreshToken(tokenHash) {
      const now = new Date()
      const row = await db.selectFrom(t.refreshTokens).select(["data", "grant_id"])
        .where("token_hash", "=", tokenHash).where("rotated", "=", 0).where("expires_at", ">", now).executeTakeFirst()
      if (!row || !(await activeGrant(db, String(row.grant_id), now).executeTakeFirst())) return null
      return unpack<RefreshToken>(row.data)
    },

    async revokeAccessToken(jti, expiresAt) {
      const insert = db.insertInto(t.revokedAccessTokens).values({ jti, expires_at: expiresAt })
      await (dialect === "mysql" ? insert.onDuplicateKeyUpdate({ expires_at: expiresAt }) : insert.onConflict((oc) => oc.column("jti").doUpdateSet({ expires_at: expiresAt }))).execute()
      await maybeSweep()
    },
    async accessTokenRevoked(jti) {
      const row = await db.selectFrom(t.revokedAccessTokens).select("jti").where("jti", "=", jti).where("expires_at", ">", new Date()).executeTakeFirst()
      return row !== undefined
    },

    async useOnce(key, expiresAt) {
      try {
        await db.insertInto(t.usedKeys).values({ used_key: key, expires_at: expiresAt }).execute()
        await maybeSweep()
        return true
      } catch (error) {
        if (!isDuplicate(error)) throw error
      }
      // The key was used before: usable again only once that mark has expired. One
      // conditional UPDATE, so of concurrent callers after the expiry exactly one changes the row.
      const { numUpdatedRows } = await db.updateTable(t.usedKeys).set({ expires_at: expiresAt })
        .where("used_key", "=", key).where("expires_at", "<=", new Date()).executeTakeFirst()
      return numUpdatedRows > 0n
    },

    async saveConsent(consent) {
      await transaction(async (trx) => {
        // The row exists first (the key decides between concurrent first consents), then it
        // is locked and merged, so concurrent saves each add their scopes.
        await insertKeeping(trx, t.consents, {
          user_id: consent.userId,
          client_id: consent.clientId,
          scope: "",
          resources: "[]",
          created_at: consent.createdAt,
          updated_at: consent.updatedAt,
        }, ["user_id", "client_id"]).execute()
        const row = await lockedIf(trx.selectFrom(t.consents).selectAll().where("user_id", "=", consent.userId).where("client_id", "=", consent.clientId)).executeTakeFirstOrThrow()
        const current = consentFromRow(row)
        await trx.updateTable(t.consents).set({
          scope: scopes(`${current.scope} ${consent.scope}`).join(" "),
          resources: JSON.stringify([...new Set([...current.resources, ...consent.resources])]),
          updated_at: consent.updatedAt,
        }).where("user_id", "=", consent.userId).where("client_id", "=", consent.clientId).execute()
      })
    },
    async getConsent(userId, clientId) {
      const row = await db.selectFrom(t.consents).selectAll().where("user_id", "=", userId).where("client_id", "=", clientId).executeTakeFirst()
      return row ? consentFromRow(row) : null
    },
    async listConsents(userId) {
      const rows = await db.selectFrom(t.consents).selectAll().where("user_id", "=", userId).execute()
      return rows.map(consentFromRow).sort((a, b) => byCreated(a, b) || (a.clientId < b.clientId ? -1 : 1))
    },
    revokeConsent(userId, clientId) {
      // One transaction: the consent is never forgotten while grants it allowed live on.
      return transaction(async (trx) => {
        const { numDeletedRows } = await trx.deleteFrom(t.consents).where("user_id", "=", userId).where("client_id", "=", clientId).executeTakeFirst()
        await revokeWhere(trx, { user_id: userId, client_id: clientId })
        return numDeletedRows > 0n
      })
    },

    async createDevice(device) {
      // An expired request may still hold the user code (until a sweep): it gives the code up.
      await db.deleteFrom(t.devices).where("user_code", "=", device.userCode).where("expires_at", "<=", new Date()).execute()
      await db.insertInto(t.devices).values({
        device_code_hash: device.deviceCodeHash,
        user_code: device.userCode,
        status: device.status,
        handed_out: 0,
        poll_interval: device.interval,
        last_polled_at: device.lastPolledAt ?? null,
        user_id: device.userId ?? null,
        auth_time: device.authTime ?? null,
        grant_id: device.grantId ?? null,
        data: pack({ clientId: device.clientId, scope: device.scope, resources: device.resources }),
        expires_at: device.expiresAt,
      }).execute()
      await maybeSweep()
    },
    async findDeviceByUserCode(userCode) {
      const row = await db.selectFrom(t.devices).selectAll()
        .where("user_code", "=", userCode).where("status", "=", "pending").where("expires_at", ">", new Date()).executeTakeFirst()
      return row ? deviceFromRow(row) : null
    },
    async decideDevice(userCode, decision) {
      const set: Row = decision.status === "approved"
        ? { status: "approved", user_id: decision.userId, auth_time: decision.authTime ?? null, grant_id: decision.grantId }
        : { status: "denied" }
      // The status in the WHERE makes the decision once: of concurrent ones, one changes the row.
      const { numUpdatedRows } = await db.updateTable(t.devices).set(set)
        .where("user_code", "=", userCode).where("status", "=", "pending").where("expires_at", ">", new Date()).executeTakeFirst()
      return numUpdatedRows > 0n
    },
    pollDevice(deviceCodeHash, now) {
      return transaction(async (trx): Promise<DevicePoll> => {
        const row = await lockedIf(trx.selectFrom(t.devices).selectAll().where("device_code_hash", "=", deviceCodeHash)).executeTakeFirst()
        if (!row || Number(row.handed_out) === 1 || toDate(row.expires_at).getTime() <= now.getTime()) return { status: "missing" }
        const device = deviceFromRow(row)
        const where = trx.updateTable(t.devices).where("device_code_hash", "=", deviceCodeHash)
        if (device.status === "approved") {
          // Conditional, so that on SQLite too only one poll hands the approval out.
          const { numUpdatedRows } = await where.set({ handed_out: 1, last_polled_at: now }).where("handed_out", "=", 0).executeTakeFirst()
          return numUpdatedRows > 0n ? { status: "approved", device } : { status: "missing" }
        }
        if (device.status === "denied") return { status: "denied" }
        const tooSoon = device.lastPolledAt !== undefined && now.getTime() - device.lastPolledAt.getTime() < device.interval * 1_000
        await where.set(tooSoon ? { poll_interval: device.interval + 5, last_polled_at: now } : { last_polled_at: now }).execute()
        return { status: tooSoon ? "slow_down" : "pending" }
      })
    },

    async putInteraction(id, value, expiresAt) {
      const insert = db.insertInto(t.interactions).values({ id, value, expires_at: expiresAt })
      const changes = { value, expires_at: expiresAt }
      await (dialect === "mysql" ? insert.onDuplicateKeyUpdate(changes) : insert.onConflict((oc) => oc.column("id").doUpdateSet(changes))).execute()
      await maybeSweep()
    },
    async takeInteraction(id) {
      const row = dialect === "mysql"
        // MySQL has no DELETE … RETURNING: the row is locked, read and deleted in one
        // transaction, and a concurrent take waits for the lock, then finds no row.
        ? await transaction(async (trx) => {
          const found = await trx.selectFrom(t.interactions).select(["value", "expires_at"]).where("id", "=", id).forUpdate().executeTakeFirst()
          if (found) await trx.deleteFrom(t.interactions).where("id", "=", id).execute()
          return found
        })
        : await db.deleteFrom(t.interactions).where("id", "=", id).returning(["value", "expires_at"]).executeTakeFirst()
      if (!row || toDate(row.expires_at).getTime() <= Date.now()) return null
      return String(row.value)
    },
    async getInteraction(id) {
      const row = await db.selectFrom(t.interactions).select("value").where("id", "=", id).where("expires_at", ">", new Date()).executeTakeFirst()
      return row ? String(row.value) : null
    },

    async listSigningKeys() {
      const now = new Date()
      const rows = await db.selectFrom(t.signingKeys).selectAll()
        .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)])).execute()
      return rows.map(signingKeyFromRow).sort((a, b) => byCreated(a, b) || (a.kid < b.kid ? -1 : 1))
    },
    async addSigningKey(key) {
      await db.insertInto(t.signingKeys).values({
        kid: key.kid,
        alg: key.alg,
        public_jwk: JSON.stringify(key.publicJwk),
        sealed_private_jwk: key.sealedPrivateJwk,
        created_at: key.createdAt,
        retired_at: key.retiredAt ?? null,
        expires_at: key.expiresAt ?? null,
      }).execute()
    },
    async updateSigningKey(kid, patch) {
      const set: Row = {}
      if (patch.retiredAt !== undefined) set.retired_at = patch.retiredAt
      if (patch.expiresAt !== undefined) set.expires_at = patch.expiresAt
      if (Object.keys(set).length > 0) await db.updateTable(t.signingKeys).set(set).where("kid", "=", kid).execute()
    },
  }
}
