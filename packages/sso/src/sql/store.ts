/**
 * The SSO store on PostgreSQL, MySQL/MariaDB or SQLite through Kysely. Every rule of the
 * contract is kept by the database, in one statement or one transaction: primary keys make
 * `useOnce` and a verified domain single, a unique index makes a SCIM userName single per
 * organization, a conditional UPDATE makes a versioned update win once, and `take` deletes
 * what it returns (DELETE … RETURNING, or on MySQL a row locked before its DELETE).
 * @module
 */
import { createHash } from "node:crypto"
import { sql, type InsertQueryBuilder, type Kysely, type Transaction } from "kysely"
import { isDuplicate, retrying } from "@portcullis/sql-adapter/migrations"
import type { Connection, Domain, ScimGroup, ScimToken, ScimUser, SsoStore } from "../store/types.js"
import { resolveSsoDialect, ssoTables, type SsoSqlDialect } from "./tables.js"

type Row = Record<string, unknown>
type Db = Kysely<any> | Transaction<any>

/** Options of {@link sqlSsoStore}. */
export interface SqlSsoStoreOptions {
  /** Put in front of every table name, as given to `migrateSso`. Default none. */
  tablePrefix?: string
  /** Detected from the Kysely instance when not given. */
  dialect?: SsoSqlDialect
}

/** PostgreSQL and MySQL hand back `Date`s; SQLite the ISO 8601 text it stores. */
const toDate = (value: unknown): Date => (value instanceof Date ? new Date(value.getTime()) : new Date(String(value)))
const toDateOrNull = (value: unknown): Date | null => (value == null ? null : toDate(value))
const toStringOrNull = (value: unknown): string | null => (value == null ? null : String(value))
const flag = (value: boolean) => (value ? 1 : 0)

const byCreatedThenId = <T extends { createdAt: Date; id: string }>(a: T, b: T) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** What a connection keeps besides its indexed columns: read and written whole. */
type ConnectionSettings = Pick<Connection, "oidc" | "saml" | "spKey" | "roleRules" | "defaultRole">

function connectionToRow(connection: Connection): Row {
  const settings: ConnectionSettings = {
    oidc: connection.oidc,
    saml: connection.saml,
    spKey: connection.spKey,
    roleRules: connection.roleRules,
    defaultRole: connection.defaultRole,
  }
  return {
    id: connection.id,
    organization_id: connection.organizationId,
    kind: connection.kind,
    name: connection.name,
    enabled: flag(connection.enabled),
    settings: JSON.stringify(settings),
    created_at: connection.createdAt,
  }
}

function connectionFromRow(row: Row): Connection {
  const settings = JSON.parse(String(row.settings)) as ConnectionSettings
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    kind: String(row.kind) as Connection["kind"],
    name: String(row.name),
    enabled: Number(row.enabled) === 1,
    ...(settings.oidc !== undefined && { oidc: settings.oidc }),
    ...(settings.saml !== undefined && { saml: settings.saml }),
    ...(settings.spKey !== undefined && { spKey: settings.spKey }),
    roleRules: settings.roleRules,
    defaultRole: settings.defaultRole,
    createdAt: toDate(row.created_at),
  }
}

function domainFromRow(row: Row): Domain {
  return {
    domain: String(row.domain),
    organizationId: String(row.organization_id),
    token: String(row.token),
    verifiedAt: toDateOrNull(row.verified_at),
    requireSso: Number(row.require_sso) === 1,
    connectionId: toStringOrNull(row.connection_id),
    createdAt: toDate(row.created_at),
  }
}

function tokenFromRow(row: Row): ScimToken {
  return {
    id: String(row.id),
    connectionId: String(row.connection_id),
    organizationId: String(row.organization_id),
    hash: String(row.hash),
    createdAt: toDate(row.created_at),
    lastUsedAt: toDateOrNull(row.last_used_at),
  }
}

/** The columns a user's replacement sets (not its keys, not its version). */
function userColumns(user: ScimUser): Row {
  return {
    external_id: user.externalId,
    user_name: user.userName,
    user_name_key: user.userName.toLowerCase(),
    active: flag(user.active),
    attributes: JSON.stringify(user.attributes),
    created_at: user.createdAt,
    updated_at: user.updatedAt,
  }
}

function userFromRow(row: Row): ScimUser {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    externalId: toStringOrNull(row.external_id),
    userName: String(row.user_name),
    active: Number(row.active) === 1,
    attributes: JSON.parse(String(row.attributes)) as Record<string, unknown>,
    version: Number(row.version),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  }
}

function groupColumns(group: ScimGroup): Row {
  return {
    external_id: group.externalId,
    display_name: group.displayName,
    members: JSON.stringify(group.members),
    created_at: group.createdAt,
    updated_at: group.updatedAt,
  }
}

function groupFromRow(row: Row): ScimGroup {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    externalId: toStringOrNull(row.external_id),
    displayName: String(row.display_name),
    members: JSON.parse(String(row.members)) as string[],
    version: Number(row.version),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  }
}

/**
 * The `id` column of a single-use row for `id`: the id itself behind `=`, or — when longer than
 * the column holds — its SHA-256 behind `#`. An id is never cut to fit (MySQL outside strict
 * mode would), which could make two ids one; and the marks keep a short id from posing as a
 * long one's hash. Ids come from the network (a SAML assertion's `ID`, its `InResponseTo`).
 */
function onceId(id: string): string {
  return id.length < 255 ? `=${id}` : `#${createHash("sha256").update(id).digest("hex")}`
}

/** Namespaces are the extension's own names; one that does not fit its column is a programming error. */
function checkNamespace(namespace: string): string {
  if (namespace.length > 64) throw new TypeError(`single-use namespaces are at most 64 characters (got ${namespace.length})`)
  return namespace
}

/** How many writes of expiring rows between two sweeps of the expired ones. */
const SWEEP_EVERY = 100

/**
 * Creates the SSO store over a Kysely instance whose schema came from `migrateSso` (with the
 * same `tablePrefix`).
 *
 * @example
 * ```ts
 * import { createPostgresKysely } from "@portcullis/sql-adapter"
 * import { migrateSso, sqlSsoStore } from "@portcullis/sso/sql"
 *
 * const db = createPostgresKysely(process.env.DATABASE_URL!)
 * await migrateSso(db)
 * const store = sqlSsoStore(db)
 * ```
 */
export function sqlSsoStore(db: Kysely<any>, options: SqlSsoStoreOptions = {}): SsoStore {
  const dialect = resolveSsoDialect(db, options.dialect)
  const t = ssoTables(options.tablePrefix)
  // SQLite has no row locks (and Kysely refuses FOR UPDATE there): a writer holds the whole
  // database, and on one Kysely instance transactions run one at a time.
  const locking = dialect !== "sqlite"
  const transaction = <T>(work: (trx: Transaction<any>) => Promise<T>) => retrying(() => db.transaction().execute(work))
  let writes = 0

  /**
   * Runs an INSERT that must not replace a row with the same key: `true` when it inserted.
   * MySQL's INSERT IGNORE would also turn a too-long value into a truncated one (a warning,
   * not an error), so there the duplicate key's error is caught instead.
   */
  async function insertIfAbsent(insert: InsertQueryBuilder<any, any, any>, key: string[]): Promise<boolean> {
    if (dialect !== "mysql") {
      const { numInsertedOrUpdatedRows } = await insert.onConflict((oc) => oc.columns(key as never).doNothing()).executeTakeFirst()
      return (numInsertedOrUpdatedRows ?? 0n) > 0n
    }
    try {
      await insert.execute()
      return true
    } catch (error) {
      if (isDuplicate(error)) return false
      throw error
    }
  }

  /** Every {@link SWEEP_EVERY}th write of an expiring row deletes the expired ones, so tables stay the size of what is live. */
  async function maybeSweep(): Promise<void> {
    if (++writes % SWEEP_EVERY !== 0) return
    const now = new Date()
    await db.deleteFrom(t.once).where("expires_at", "<=", now).execute()
    await db.deleteFrom(t.sessions).where("expires_at", "<=", now).execute()
  }

  const lockedIf = <Q extends { forUpdate(): Q }>(query: Q): Q => (locking ? query.forUpdate() : query)

  /**
   * Replaces a SCIM resource if `expectedVersion` is still its version: the conditional
   * UPDATE is the compare-and-set, so of concurrent updates from one version one wins. A
   * unique key the replacement would break (a userName, a displayName) is a conflict too.
   */
  async function replace<T>(table: string, organizationId: string, id: string, columns: Row, expectedVersion: number | undefined, fromRow: (row: Row) => T): Promise<T | "conflict" | null> {
    try {
      return await transaction(async (trx) => {
        let update = trx.updateTable(table).set((eb) => ({ ...columns, version: eb("version", "+", 1) }))
          .where("organization_id", "=", organizationId).where("id", "=", id)
        if (expectedVersion !== undefined) update = update.where("version", "=", expectedVersion)
        const { numUpdatedRows } = await update.executeTakeFirst()
        const row = await trx.selectFrom(table).selectAll().where("organization_id", "=", organizationId).where("id", "=", id).executeTakeFirst()
        if (numUpdatedRows === 0n) return row ? "conflict" : null
        if (!row) throw new Error(`${table} row ${id} vanished inside its own transaction`)
        return fromRow(row)
      })
    } catch (error) {
      if (isDuplicate(error)) return "conflict"
      throw error
    }
  }

  async function insertOrFalse(insert: InsertQueryBuilder<any, any, any>): Promise<boolean> {
    try {
      await insert.execute()
      return true
    } catch (error) {
      // The primary key or the unique name decides, so concurrent creations cannot both win.
      if (isDuplicate(error)) return false
      throw error
    }
  }

  const selectDomain = (q: Db, domain: string, organizationId: string) =>
    q.selectFrom(t.domains).selectAll().where("domain", "=", domain).where("organization_id", "=", organizationId)

  return {
    async createConnection(connection) {
      await db.insertInto(t.connections).values(connectionToRow(connection)).execute()
    },
    async getConnection(id) {
      const row = await db.selectFrom(t.connections).selectAll().where("id", "=", id).executeTakeFirst()
      return row ? connectionFromRow(row) : null
    },
    async listConnections(organizationId) {
      const rows = await db.selectFrom(t.connections).selectAll().where("organization_id", "=", organizationId).execute()
      return rows.map(connectionFromRow).sort(byCreatedThenId)
    },
    async updateConnection(connection) {
      const { id: _id, organization_id: _organization, ...columns } = connectionToRow(connection)
      // mysql2 asks for found rows, so an UPDATE that changes nothing still counts its row.
      const { numUpdatedRows } = await db.updateTable(t.connections).set(columns)
        .where("id", "=", connection.id).where("organization_id", "=", connection.organizationId).executeTakeFirst()
      return numUpdatedRows > 0n
    },
    async deleteConnection(id) {
      await transaction(async (trx) => {
        await trx.deleteFrom(t.scimTokens).where("connection_id", "=", id).execute()
        await trx.updateTable(t.domains).set({ connection_id: null }).where("connection_id", "=", id).execute()
        await trx.deleteFrom(t.connections).where("id", "=", id).execute()
      })
    },

    async claimDomain(domain) {
      const holder = await db.selectFrom(t.verifiedDomains).select("organization_id").where("domain", "=", domain.domain).executeTakeFirst()
      if (holder && holder.organization_id !== domain.organizationId) return "taken"
      // A claim made again keeps the first one (its token, its verification).
      await insertIfAbsent(db.insertInto(t.domains).values({
        domain: domain.domain,
        organization_id: domain.organizationId,
        token: domain.token,
        verified_at: domain.verifiedAt,
        require_sso: flag(domain.requireSso),
        connection_id: domain.connectionId,
        created_at: domain.createdAt,
      }), ["domain", "organization_id"])
      return "claimed"
    },
    async getDomain(domain, organizationId) {
      if (organizationId !== undefined) {
        const row = await selectDomain(db, domain, organizationId).executeTakeFirst()
        return row ? domainFromRow(row) : null
      }
      const row = await db.selectFrom(`${t.verifiedDomains} as v`)
        .innerJoin(`${t.domains} as d`, (join) => join.onRef("d.domain", "=", "v.domain").onRef("d.organization_id", "=", "v.organization_id"))
        .selectAll("d").where("v.domain", "=", domain).executeTakeFirst()
      return row ? domainFromRow(row) : null
    },
    async listDomains(organizationId) {
      const rows = await db.selectFrom(t.domains).selectAll().where("organization_id", "=", organizationId).execute()
      return rows.map(domainFromRow).sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0))
    },
    verifyDomain(domain, organizationId, at) {
      return transaction(async (trx) => {
        const claim = await lockedIf(selectDomain(trx, domain, organizationId)).executeTakeFirst()
        if (!claim) return "missing" as const
        // The verified table's key is the domain: of two organizations verifying at once,
        // the second's insert waits for the first's commit, then finds the row.
        const insert = trx.insertInto(t.verifiedDomains).values({ domain, organization_id: organizationId })
        // On MySQL an insert that meets a duplicate takes a shared lock and then wants an
        // exclusive one: fifty of them deadlock. ON DUPLICATE KEY UPDATE (changing nothing)
        // asks for the exclusive lock at once, so the contenders queue instead.
        if (dialect === "mysql") await insert.onDuplicateKeyUpdate({ organization_id: sql.ref(`${t.verifiedDomains}.organization_id`) }).execute()
        else await insertIfAbsent(insert, ["domain"])
        // A locking read sees the latest committed row (MySQL's plain reads see the snapshot).
        const holder = await lockedIf(trx.selectFrom(t.verifiedDomains).select("organization_id").where("domain", "=", domain)).executeTakeFirst()
        if (!holder || holder.organization_id !== organizationId) return "taken" as const
        await trx.updateTable(t.domains).set({ verified_at: at })
          .where("domain", "=", domain).where("organization_id", "=", organizationId).where("verified_at", "is", null).execute()
        return "verified" as const
      })
    },
    async updateDomain(domain, organizationId, patch) {
      const set: Row = {}
      if (patch.requireSso !== undefined) set.require_sso = flag(patch.requireSso)
      if (patch.connectionId !== undefined) set.connection_id = patch.connectionId
      if (Object.keys(set).length === 0) return (await selectDomain(db, domain, organizationId).executeTakeFirst()) !== undefined
      const { numUpdatedRows } = await db.updateTable(t.domains).set(set).where("domain", "=", domain).where("organization_id", "=", organizationId).executeTakeFirst()
      return numUpdatedRows > 0n
    },
    async removeDomain(domain, organizationId) {
      await transaction(async (trx) => {
        await trx.deleteFrom(t.verifiedDomains).where("domain", "=", domain).where("organization_id", "=", organizationId).execute()
        await trx.deleteFrom(t.domains).where("domain", "=", domain).where("organization_id", "=", organizationId).execute()
      })
    },

    async addScimToken(token) {
      await db.insertInto(t.scimTokens).values({
        id: token.id,
        connection_id: token.connectionId,
        organization_id: token.organizationId,
        hash: token.hash,
        created_at: token.createdAt,
        last_used_at: token.lastUsedAt,
      }).execute()
    },
    async findScimToken(hash) {
      const row = await db.selectFrom(t.scimTokens).selectAll().where("hash", "=", hash).executeTakeFirst()
      return row ? tokenFromRow(row) : null
    },
    async listScimTokens(connectionId) {
      const rows = await db.selectFrom(t.scimTokens).selectAll().where("connection_id", "=", connectionId).execute()
      return rows.map(tokenFromRow).sort(byCreatedThenId)
    },
    async revokeScimToken(id) {
      await db.deleteFrom(t.scimTokens).where("id", "=", id).execute()
    },
    async touchScimToken(id, at) {
      await db.updateTable(t.scimTokens).set({ last_used_at: at }).where("id", "=", id).execute()
    },

    createScimUser(user) {
      return insertOrFalse(db.insertInto(t.scimUsers).values({ organization_id: user.organizationId, id: user.id, ...userColumns(user), version: user.version }))
    },
    async getScimUser(organizationId, id) {
      const row = await db.selectFrom(t.scimUsers).selectAll().where("organization_id", "=", organizationId).where("id", "=", id).executeTakeFirst()
      return row ? userFromRow(row) : null
    },
    async findScimUser(organizationId, by) {
      let query = db.selectFrom(t.scimUsers).selectAll().where("organization_id", "=", organizationId)
      if (by.userName !== undefined) query = query.where("user_name_key", "=", by.userName.toLowerCase())
      if (by.externalId !== undefined) query = query.where("external_id", "=", by.externalId)
      const row = await query.orderBy("created_at").orderBy("id").executeTakeFirst()
      return row ? userFromRow(row) : null
    },
    async listScimUsers(organizationId) {
      const rows = await db.selectFrom(t.scimUsers).selectAll().where("organization_id", "=", organizationId).execute()
      return rows.map(userFromRow).sort(byCreatedThenId)
    },
    updateScimUser(user, expectedVersion) {
      return replace(t.scimUsers, user.organizationId, user.id, userColumns(user), expectedVersion, userFromRow)
    },
    deleteScimUser(organizationId, id) {
      return transaction(async (trx) => {
        const { numDeletedRows } = await trx.deleteFrom(t.scimUsers).where("organization_id", "=", organizationId).where("id", "=", id).executeTakeFirst()
        // A deleted user leaves the organization's groups too, in the same transaction.
        const groups = await lockedIf(trx.selectFrom(t.scimGroups).select(["id", "members"]).where("organization_id", "=", organizationId)).execute()
        for (const group of groups) {
          const members = JSON.parse(String(group.members)) as string[]
          if (!members.includes(id)) continue
          await trx.updateTable(t.scimGroups).set((eb) => ({ members: JSON.stringify(members.filter((m) => m !== id)), version: eb("version", "+", 1) }))
            .where("organization_id", "=", organizationId).where("id", "=", group.id).execute()
        }
        return numDeletedRows > 0n
      })
    },
    createScimGroup(group) {
      return insertOrFalse(db.insertInto(t.scimGroups).values({ organization_id: group.organizationId, id: group.id, ...groupColumns(group), version: group.version }))
    },
    async getScimGroup(organizationId, id) {
      const row = await db.selectFrom(t.scimGroups).selectAll().where("organization_id", "=", organizationId).where("id", "=", id).executeTakeFirst()
      return row ? groupFromRow(row) : null
    },
    async listScimGroups(organizationId) {
      const rows = await db.selectFrom(t.scimGroups).selectAll().where("organization_id", "=", organizationId).execute()
      return rows.map(groupFromRow).sort(byCreatedThenId)
    },
    updateScimGroup(group, expectedVersion) {
      return replace(t.scimGroups, group.organizationId, group.id, groupColumns(group), expectedVersion, groupFromRow)
    },
    async deleteScimGroup(organizationId, id) {
      const { numDeletedRows } = await db.deleteFrom(t.scimGroups).where("organization_id", "=", organizationId).where("id", "=", id).executeTakeFirst()
      return numDeletedRows > 0n
    },

    async useOnce(namespace, given, expires) {
      const id = onceId(given)
      checkNamespace(namespace)
      // An expired record of the same id goes first. Of concurrent callers, at most one
      // deletes it, and the primary key lets one insert through whatever the interleaving.
      await db.deleteFrom(t.once).where("namespace", "=", namespace).where("id", "=", id).where("expires_at", "<=", new Date()).execute()
      const first = await insertIfAbsent(db.insertInto(t.once).values({ namespace, id, value: null, expires_at: expires }), ["namespace", "id"])
      await maybeSweep()
      return first
    },
    async put(namespace, given, value, expires) {
      const id = onceId(given)
      checkNamespace(namespace)
      const insert = db.insertInto(t.once).values({ namespace, id, value, expires_at: expires })
      const changes = { value, expires_at: expires }
      await (dialect === "mysql" ? insert.onDuplicateKeyUpdate(changes) : insert.onConflict((oc) => oc.columns(["namespace", "id"]).doUpdateSet(changes))).execute()
      await maybeSweep()
    },
    async take(namespace, given) {
      const id = onceId(given)
      checkNamespace(namespace)
      const row = dialect === "mysql"
        // MySQL has no DELETE … RETURNING: the row is locked, read and deleted in one
        // transaction, and a concurrent take waits for the lock, then finds no row.
        ? await transaction(async (trx) => {
          const found = await trx.selectFrom(t.once).select(["value", "expires_at"]).where("namespace", "=", namespace).where("id", "=", id).forUpdate().executeTakeFirst()
          if (found) await trx.deleteFrom(t.once).where("namespace", "=", namespace).where("id", "=", id).execute()
          return found
        })
        : await db.deleteFrom(t.once).where("namespace", "=", namespace).where("id", "=", id).returning(["value", "expires_at"]).executeTakeFirst()
      if (!row || row.value == null || toDate(row.expires_at).getTime() <= Date.now()) return null
      return String(row.value)
    },

    async recordSession(key, userId, organizationId, expires) {
      const insert = db.insertInto(t.sessions).values({ session_key: key, user_id: userId, organization_id: organizationId, ended: 0, expires_at: expires })
      const changes = { user_id: userId, organization_id: organizationId, ended: 0, expires_at: expires }
      await (dialect === "mysql" ? insert.onDuplicateKeyUpdate(changes) : insert.onConflict((oc) => oc.column("session_key").doUpdateSet(changes))).execute()
      await maybeSweep()
    },
    async endSessions(userId, organizationId) {
      // One UPDATE: of concurrent calls, each live session is counted by exactly one.
      const { numUpdatedRows } = await db.updateTable(t.sessions).set({ ended: 1 })
        .where("user_id", "=", userId).where("organization_id", "=", organizationId).where("ended", "=", 0).where("expires_at", ">", new Date())
        .executeTakeFirst()
      return Number(numUpdatedRows)
    },
    async sessionEnded(key) {
      const row = await db.selectFrom(t.sessions).select("session_key")
        .where("session_key", "=", key).where("ended", "=", 1).where("expires_at", ">", new Date()).executeTakeFirst()
      return row !== undefined
    },
  }
}
