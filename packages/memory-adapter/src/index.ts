/**
 * `@portcullis/memory-adapter`: an adapter that keeps everything in process memory.
 * For tests, demos and single-process prototypes; data is gone on restart.
 * @module
 */
import { auditPage, checkAuditQuery, matchesAuditQuery, newestFirst } from "@portcullis/core/adapters"
import type {
  Adapter,
  AuditEvent,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterTwoFactor,
  AdapterUser,
  SessionRecord,
  SessionRegistry,
  VerificationToken,
} from "@portcullis/core/adapters"

/**
 * Records are cloned on the way in and out: a caller that mutates a returned user must
 * not change what the next caller reads. `structuredClone` keeps `Date`s as `Date`s.
 */
const copy = structuredClone

/**
 * The copy `structuredClone` makes of a stored record, without its cost when the record is
 * plain — strings, numbers, booleans, bigints, `null`, `undefined` and `Date`s, and one
 * level of plain objects of those (an audit record's `details`), which is every session,
 * user and audit record the adapter contract describes. A session check copies a session
 * and a user, and two `structuredClone`s cost more than the rest of the lookup. A record
 * with anything else in it (deeper nesting, an array, a class instance an app stored) goes
 * to `structuredClone`, so the copy is the same either way.
 */
function copyRecord<T extends object>(record: T): T {
  return (flatCopy(record as Record<string, unknown>, true) ?? copy(record)) as T
}

/** A copy of a record of primitives and `Date`s (and, when `nest`, plain objects of them); `undefined` for anything else. */
function flatCopy(record: Record<string, unknown>, nest: boolean): Record<string, unknown> | undefined {
  // A spread copies a flat record fastest; only its `Date`s then need copies of their own.
  const out: Record<string, unknown> = { ...record }
  for (const key in out) {
    const value = out[key]
    if (typeof value === "object") {
      if (value === null) continue
      if (value instanceof Date) out[key] = new Date(value.getTime())
      else if (!nest || Object.getPrototypeOf(value) !== Object.prototype) return undefined
      else {
        const inner = flatCopy(value as Record<string, unknown>, false)
        if (!inner) return undefined
        out[key] = inner
      }
    } else if (typeof value === "function" || typeof value === "symbol") {
      return undefined
    }
  }
  return out
}

/** Map key of an account; JSON keeps `a:b` + `c` apart from `a` + `b:c`. */
const accountKey = (provider: string, providerAccountId: string) => JSON.stringify([provider, providerAccountId])
const tokenKey = (identifier: string, token: string) => JSON.stringify([identifier, token])

/**
 * Creates an in-memory adapter. Each call has its own empty store.
 *
 * Absent optional fields stay absent: what you store is what you read back. Every method
 * is `async`: a failure (a duplicate email, an unknown id) is a rejected promise, never a
 * synchronous throw, as from a real database.
 * Expired sessions and verification tokens are not returned and are removed when read.
 *
 * @example
 * ```ts
 * import { Auth } from "@portcullis/core"
 * import { MemoryAdapter } from "@portcullis/memory-adapter"
 *
 * const config = { adapter: MemoryAdapter(), providers: [] }
 * const response = await Auth(request, config)
 * ```
 */
export function MemoryAdapter(): Adapter {
  const users = new Map<string, AdapterUser>()
  const accounts = new Map<string, AdapterAccount>()
  const sessions = new Map<string, AdapterSession>()
  const verificationTokens = new Map<string, VerificationToken>()
  const authenticators = new Map<string, AdapterAuthenticator>()
  const locks = new Map<string, { owner: string; expires: number }>()
  /** Locks taken so far: every 1,000th take sweeps the expired ones (see `acquireLock`). */
  let lockTakes = 0
  const shared = new Map<string, { value: string; expires: number }>()
  const twoFactor = new Map<string, AdapterTwoFactor>()
  // Password hashes by user id: apart from the users, so no user read ever carries one.
  const passwords = new Map<string, string>()
  // Audit records by id (a second write of one id keeps the first, as a primary key would).
  const auditRecords = new Map<string, AuditEvent>()

  const findUserByEmail = (email: string) => [...users.values()].find((u) => u.email === email)
  const isExpired = (expires: Date) => expires.getTime() <= Date.now()

  function liveSession(sessionToken: string): AdapterSession | undefined {
    const session = sessions.get(sessionToken)
    if (session && isExpired(session.expires)) {
      sessions.delete(sessionToken)
      return undefined
    }
    return session
  }

  function removeWhere<V>(map: Map<string, V>, match: (value: V) => boolean): void {
    for (const [key, value] of map) if (match(value)) map.delete(key)
  }

  return {
    async createUser(user) {
      // Mirrors the unique index of the SQL adapter, so code tested here behaves the same there.
      if (findUserByEmail(user.email)) throw new Error(`a user with email ${user.email} already exists`)
      users.set(user.id, copy(user))
      return copy(user)
    },
    async getUser(id) {
      const user = users.get(id)
      // copyRecord: the same copy without structuredClone's cost (an OP's token and userinfo read the user every call).
      return user ? copyRecord(user) : null
    },
    async getUserByEmail(email) {
      const user = findUserByEmail(email)
      return user ? copy(user) : null
    },
    async getUserByAccount({ provider, providerAccountId }) {
      const account = accounts.get(accountKey(provider, providerAccountId))
      const user = account && users.get(account.userId)
      return user ? copy(user) : null
    },
    async updateUser(patch) {
      const user = users.get(patch.id)
      if (!user) throw new Error(`no user with id ${patch.id}`)
      const merged = { ...user, ...copy(patch) }
      users.set(user.id, merged)
      return copy(merged)
    },
    async deleteUser(userId) {
      const user = users.get(userId)
      users.delete(userId)
      removeWhere(accounts, (a) => a.userId === userId)
      removeWhere(sessions, (s) => s.userId === userId)
      removeWhere(authenticators, (a) => a.userId === userId)
      twoFactor.delete(userId)
      passwords.delete(userId)
      return user ? copy(user) : null
    },

    async linkAccount(account) {
      const key = accountKey(account.provider, account.providerAccountId)
      // A provider account belongs to one user, as the SQL unique index enforces.
      if (accounts.has(key)) throw new Error(`account ${account.provider}/${account.providerAccountId} is already linked`)
      accounts.set(key, copy(account))
      return copy(account)
    },
    async unlinkAccount({ provider, providerAccountId }) {
      const key = accountKey(provider, providerAccountId)
      const account = accounts.get(key)
      accounts.delete(key)
      return account ? copy(account) : undefined
    },
    async getAccount(providerAccountId, provider) {
      const account = accounts.get(accountKey(provider, providerAccountId))
      return account ? copy(account) : null
    },

    async createSession(session) {
      sessions.set(session.sessionToken, copy(session))
      return copy(session)
    },
    async getSessionAndUser(sessionToken) {
      const session = liveSession(sessionToken)
      const user = session && users.get(session.userId)
      return session && user ? { session: copyRecord(session), user: copyRecord(user) } : null
    },
    async updateSession(patch) {
      const session = liveSession(patch.sessionToken)
      if (!session) return null
      const merged = { ...session, ...copy(patch) }
      sessions.set(session.sessionToken, merged)
      return copy(merged)
    },
    async deleteSession(sessionToken) {
      const session = sessions.get(sessionToken)
      sessions.delete(sessionToken)
      return session ? copy(session) : null
    },
    // A scan: the memory adapter is for tests and the demo, never a million users.
    async listUsers({ search, verified, cursor, limit }) {
      const found = [...users.values()]
        .filter((u) => cursor === undefined || u.id > cursor)
        .filter((u) => verified === undefined || !!u.emailVerified === verified)
        .filter((u) => search === undefined || (u.email ?? "").toLowerCase().includes(search) || (u.name ?? "").toLowerCase().includes(search))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      const page = found.slice(0, limit)
      return { users: page.map((u) => copy(u)), next: found.length > limit ? page[page.length - 1]!.id : null }
    },

    async listSessions(userId) {
      return [...sessions.keys()].map(liveSession).filter((s): s is AdapterSession => s?.userId === userId).map((s) => copy(s))
    },

    async countSessions() {
      return [...sessions.keys()].map(liveSession).filter((s) => s !== null && s !== undefined).length
    },

    async createVerificationToken(verificationToken) {
      verificationTokens.set(tokenKey(verificationToken.identifier, verificationToken.token), copy(verificationToken))
      return copy(verificationToken)
    },
    // Atomic by construction: get and delete run in one synchronous turn of the event loop
    // (nothing is awaited between them).
    async useVerificationToken({ identifier, token }) {
      const key = tokenKey(identifier, token)
      const found = verificationTokens.get(key)
      verificationTokens.delete(key)
      return found && !isExpired(found.expires) ? copy(found) : null
    },

    async createAuthenticator(authenticator) {
      if (authenticators.has(authenticator.credentialID)) {
        throw new Error(`authenticator ${authenticator.credentialID} already exists`)
      }
      authenticators.set(authenticator.credentialID, copy(authenticator))
      return copy(authenticator)
    },
    async getAuthenticator(credentialID) {
      const authenticator = authenticators.get(credentialID)
      return authenticator ? copy(authenticator) : null
    },
    async listAuthenticatorsByUserId(userId) {
      return [...authenticators.values()].filter((a) => a.userId === userId).map((a) => copy(a))
    },
    async renameAuthenticator(credentialID, name) {
      const authenticator = authenticators.get(credentialID)
      if (authenticator) authenticator.name = name
    },
    async deleteAuthenticator(credentialID) {
      authenticators.delete(credentialID)
    },
    async updateAuthenticatorCounter(credentialID, newCounter) {
      const authenticator = authenticators.get(credentialID)
      if (!authenticator) throw new Error(`no authenticator with credentialID ${credentialID}`)
      authenticator.counter = newCounter
      return copy(authenticator)
    },

    // Portcullis extensions for provider token refresh (docs/adapters.md).
    async getAccountByUserId(userId, provider) {
      const account = [...accounts.values()].find((a) => a.userId === userId && a.provider === provider)
      return account ? copy(account) : null
    },
    // Compare and write in one synchronous turn: atomic, as the SQL adapter's UPDATE … WHERE.
    async updateAccount({ provider, providerAccountId }, patch, expected) {
      const key = accountKey(provider, providerAccountId)
      const account = accounts.get(key)
      if (!account) return null
      if (expected && (account.refresh_token ?? null) !== expected.refresh_token) return null
      const merged: AdapterAccount = { ...account }
      for (const [field, value] of Object.entries(patch)) {
        if (value === undefined) continue
        // An unmarked account has no `reauth_required` at all, as before it was ever marked.
        if (value === null || (field === "reauth_required" && value === false)) delete merged[field]
        else merged[field] = value
      }
      accounts.set(key, merged)
      return copy(merged)
    },
    async acquireLock(key, owner, ttlMs) {
      const now = Date.now()
      // Most keys are taken once (two-factor attempt slots, one per challenge and attempt)
      // and left to expire: sweep now and then so the map cannot grow without end.
      if (++lockTakes % 1_000 === 0) for (const [k, v] of locks) if (v.expires <= now) locks.delete(k)
      const held = locks.get(key)
      if (held && held.expires > now) return false
      locks.set(key, { owner, expires: now + ttlMs })
      return true
    },
    async releaseLock(key, owner) {
      if (locks.get(key)?.owner === owner) locks.delete(key)
    },
    async setShared(key, value, ttlMs) {
      // Values expire when read; sweep the unread ones so the map cannot grow without end.
      const now = Date.now()
      for (const [k, v] of shared) if (v.expires <= now) shared.delete(k)
      shared.set(key, { value, expires: now + ttlMs })
    },
    async getShared(key) {
      const hit = shared.get(key)
      if (!hit || isExpired(new Date(hit.expires))) {
        shared.delete(key)
        return null
      }
      return hit.value
    },

    // Two-factor capability. Each method runs to its end without awaiting, so a check and
    // its write are one step: of concurrent uses of one code exactly one finds it.
    async getTwoFactor(userId) {
      const record = twoFactor.get(userId)
      return record ? copy(record) : null
    },
    async setTwoFactor(record) {
      twoFactor.set(record.userId, copy(record))
    },
    async deleteTwoFactor(userId) {
      twoFactor.delete(userId)
    },
    async useTwoFactorStep(userId, step) {
      const record = twoFactor.get(userId)
      if (!record || (record.lastUsedStep !== null && step <= record.lastUsedStep)) return false
      record.lastUsedStep = step
      return true
    },
    async useTwoFactorBackupCode(userId, hash) {
      const record = twoFactor.get(userId)
      const index = record ? record.backupCodes.indexOf(hash) : -1
      if (index === -1) return false
      record!.backupCodes.splice(index, 1)
      return true
    },
    async getUserPassword(userId) {
      return passwords.get(userId) ?? null
    },
    async setUserPassword(userId, hash) {
      // As the SQL table's foreign key: a hash belongs to an existing user.
      if (!users.has(userId)) throw new Error(`no user with id ${userId}`)
      passwords.set(userId, hash)
    },

    // Audit capability: filtered and sorted on each read, which a test-sized trail affords.
    async createAuditRecord(record) {
      // copyRecord: an audit record is flat but for `details` (structuredClone then); one is
      // written per token an OpenID Provider issues.
      if (!auditRecords.has(record.id)) auditRecords.set(record.id, copyRecord(record))
    },
    async listAuditRecords(query) {
      const checked = checkAuditQuery(query)
      const found = [...auditRecords.values()].filter((record) => matchesAuditQuery(record, checked)).sort(newestFirst)
      return auditPage(found.slice(0, checked.limit + 1).map((record) => copy(record)), checked.limit)
    },
    async deleteAuditRecordsBefore(before) {
      // An Invalid Date is no bound (PostgreSQL fails on it): refused on every store alike.
      if (!(before instanceof Date) || !Number.isFinite(before.getTime())) throw new TypeError("deleteAuditRecordsBefore needs a valid Date")
      let deleted = 0
      for (const [id, record] of auditRecords) {
        if (Date.parse(record.time) < before.getTime()) {
          auditRecords.delete(id)
          deleted++
        }
      }
      return deleted
    },
  }
}

/**
 * A JWT session registry in process memory (`session.registry`, `docs/sessions.md`): for
 * one process, tests and demos. Several app instances need a shared one
 * (`RedisSessionRegistry`, `SqlSessionRegistry`). Each instance has its own empty store.
 *
 * @example
 * ```ts
 * const config = { providers, session: { strategy: "jwt", registry: new MemorySessionRegistry() } }
 * ```
 */
export class MemorySessionRegistry implements SessionRegistry {
  readonly #byUser = new Map<string, Map<string, SessionRecord>>()

  async add(record: SessionRecord): Promise<void> {
    let sessions = this.#byUser.get(record.userId)
    if (!sessions) this.#byUser.set(record.userId, (sessions = new Map()))
    sessions.set(record.id, copy(record))
  }

  async touch(userId: string, id: string, lastSeenAt: Date, expires: Date): Promise<boolean> {
    const record = this.#live(userId).get(id)
    if (!record) return false
    record.lastSeenAt = new Date(lastSeenAt)
    record.expires = new Date(expires)
    return true
  }

  async list(userId: string): Promise<SessionRecord[]> {
    return [...this.#live(userId).values()].map((r) => copy(r))
  }

  async remove(userId: string, ids: string[]): Promise<number> {
    const sessions = this.#byUser.get(userId)
    if (!sessions) return 0
    let removed = 0
    for (const id of new Set(ids)) if (sessions.delete(id)) removed++
    return removed
  }

  async removeAll(userId: string): Promise<number> {
    const removed = this.#live(userId).size
    this.#byUser.delete(userId)
    return removed
  }

  async count(): Promise<number> {
    let total = 0
    for (const userId of [...this.#byUser.keys()]) total += this.#live(userId).size
    return total
  }

  /** The user's sessions, expired ones dropped on the way. */
  #live(userId: string): Map<string, SessionRecord> {
    const sessions = this.#byUser.get(userId)
    if (!sessions) return new Map()
    const now = Date.now()
    for (const [id, r] of sessions) if (r.expires.getTime() <= now) sessions.delete(id)
    if (!sessions.size) this.#byUser.delete(userId)
    return sessions
  }
}
