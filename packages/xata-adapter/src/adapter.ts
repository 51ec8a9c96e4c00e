/**
 * The Xata adapter: Portcullis records as rows of Xata tables, read and written through
 * the typed `@xata.io/client` API (repositories, queries and single-call transactions).
 * @module
 */
import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterTwoFactor,
  AdapterUser,
  VerificationToken,
} from "@portcullis/core/adapters"
import type { BaseClient } from "@xata.io/client"
import { DEFAULT_PREFIX, xataTableNames, type XataTableNames } from "./schema.js"

/**
 * The part of a Xata client the adapter uses. Both the client the Xata CLI generates
 * (`new XataClient()`) and `new BaseClient(options)` from `@xata.io/client` have it.
 */
export type XataClientLike = Pick<BaseClient, "db" | "transactions" | "getConfig">

/** Options of {@link XataAdapter}. */
export interface XataAdapterOptions {
  /**
   * Prefix of the table names. Default `nextauth_`, the prefix of Auth.js's Xata schema,
   * so a database set up for `@auth/xata-adapter` works unchanged.
   */
  prefix?: string
  /**
   * The database has the `<prefix>user_passwords` table (see `schema.json`): the adapter
   * then stores password hashes (`getUserPassword` / `setUserPassword`, which the password
   * provider needs) and `deleteUser` removes a user's hash with it. Default `false`, for a
   * database set up for Auth.js, which has no such table.
   */
  passwords?: boolean
  /**
   * The database has the `<prefix>two_factor` table (see `schema.json`): the adapter then
   * stores two-factor records (`getTwoFactor`, `setTwoFactor`, `deleteTwoFactor`,
   * `useTwoFactorStep`, `useTwoFactorBackupCode`, which `twoFactor.enabled` needs) and
   * `deleteUser` removes a user's record with it. Default `false`.
   */
  twoFactor?: boolean
}

/** An error the adapter raises, naming the Xata database and branch it talked to. */
export class XataAdapterError extends Error {
  override name = "XataAdapterError"
}

// The adapter sees records through this narrow view of the client's repositories; the
// table names are only known at run time, so the generated per-table types cannot help.
type Fields = Record<string, unknown>
interface XRecord {
  readonly id: string
  readonly [column: string]: unknown
}
interface ReadOptions {
  columns?: string[]
  /** A negative TTL turns the client's query cache off for this query. */
  cache?: number
  consistency?: "strong" | "eventual"
}
interface XQuery {
  getFirst(options?: ReadOptions): Promise<XRecord | null>
  getAll(options?: ReadOptions): Promise<XRecord[]>
}
interface XRepository {
  filter(filter: Fields): XQuery
  create(id: string, record: Fields): Promise<XRecord>
  create(record: Fields): Promise<XRecord>
  read(id: string, columns?: string[]): Promise<XRecord | null>
  update(id: string, fields: Fields): Promise<XRecord | null>
  /** With `ifVersion`: null when the record is missing or has another version (Xata's 422). */
  update(id: string, fields: Fields, columns: string[], options: { ifVersion: number }): Promise<XRecord | null>
  delete(id: string): Promise<XRecord | null>
}
type Operation =
  | { insert: { table: string; record: Fields; createOnly?: boolean } }
  | { update: { table: string; id: string; fields: Fields } }
  | { delete: { table: string; id: string } }
interface XTransactions {
  run(operations: Operation[]): Promise<unknown>
}

/** Xata runs at most this many operations in one transaction. */
const MAX_TRANSACTION_OPERATIONS = 1000

/**
 * Auth lookups must see the latest writes: no client-side query cache (a TTL below zero
 * disables it; the client's default cache can answer a repeated query from the same
 * millisecond) and strongly consistent reads.
 */
const FRESH: ReadOptions = { cache: -1, consistency: "strong" }

/** What Xata accepts as a record id; user ids are record ids, so no user has another. */
const RECORD_ID = /^[a-zA-Z0-9_\-~:]{1,255}$/

const ACCOUNT_STRING_FIELDS = ["access_token", "refresh_token", "id_token", "scope", "token_type", "session_state"] as const

function linkId(value: unknown): string | undefined {
  if (typeof value === "string") return value
  if (value && typeof value === "object" && typeof (value as { id?: unknown }).id === "string") {
    return (value as { id: string }).id
  }
  return undefined
}

function toDate(value: unknown): Date | null {
  if (value instanceof Date) return value
  if (typeof value === "string" || typeof value === "number") {
    const date = new Date(value)
    return Number.isNaN(date.getTime()) ? null : date
  }
  return null
}

function text(value: unknown): string | null {
  return typeof value === "string" ? value : null
}

function toUser(record: XRecord): AdapterUser {
  return {
    id: record.id,
    email: text(record.email) ?? "",
    emailVerified: toDate(record.emailVerified),
    name: text(record.name),
    image: text(record.image),
  }
}

function toAccount(record: XRecord): AdapterAccount {
  const account: AdapterAccount = {
    userId: linkId(record.user) ?? "",
    type: text(record.type) as AdapterAccount["type"],
    provider: text(record.provider) ?? "",
    providerAccountId: text(record.providerAccountId) ?? "",
  }
  for (const field of ACCOUNT_STRING_FIELDS) {
    const value = text(record[field])
    // token_type is typed lowercase; it was lowercase when it was stored.
    if (value !== null) (account as Fields)[field] = value
  }
  if (typeof record.expires_at === "number") account.expires_at = record.expires_at
  return account
}

/** A session record with its `id`, as Auth.js's Xata adapter returns it. */
function toSession(record: XRecord, userId?: string): AdapterSession {
  return {
    ...(typeof record.id === "string" && { id: record.id }),
    sessionToken: text(record.sessionToken) ?? "",
    userId: userId ?? linkId(record.user) ?? "",
    expires: toDate(record.expires) ?? new Date(0),
  }
}

function toVerificationToken(record: XRecord): VerificationToken {
  return {
    identifier: text(record.identifier) ?? "",
    token: text(record.token) ?? "",
    expires: toDate(record.expires) ?? new Date(0),
  }
}

function toAuthenticator(record: XRecord): AdapterAuthenticator {
  return {
    credentialID: text(record.credentialID) ?? "",
    userId: linkId(record.user) ?? "",
    providerAccountId: text(record.providerAccountId) ?? "",
    credentialPublicKey: text(record.credentialPublicKey) ?? "",
    counter: typeof record.counter === "number" ? record.counter : 0,
    credentialDeviceType: text(record.credentialDeviceType) ?? "",
    credentialBackedUp: record.credentialBackedUp === true,
    transports: text(record.transports),
  }
}

/** The backup code hashes stored as a JSON array in a text column. */
function parseCodes(value: unknown): string[] {
  if (typeof value !== "string") return []
  try {
    const parsed: unknown = JSON.parse(value)
    return Array.isArray(parsed) ? parsed.filter((c): c is string => typeof c === "string") : []
  } catch {
    return []
  }
}

function toTwoFactor(record: XRecord): AdapterTwoFactor {
  return {
    userId: record.id,
    secret: text(record.secret) ?? "",
    enabled: record.enabled === true,
    lastUsedStep: typeof record.lastUsedStep === "number" ? record.lastUsedStep : null,
    backupCodes: parseCodes(record.backupCodes),
  }
}

/** The version Xata gave a record (`xata.version`), for a write that expects it unchanged. */
function versionOf(record: XRecord): number {
  const version = (record.xata as { version?: unknown } | undefined)?.version
  if (typeof version !== "number") throw new XataAdapterError("XataAdapter: Xata returned a record without xata.version")
  return version
}

/**
 * How often a two-factor use is retried after another write changed the record first.
 * Each retry means another caller's write went through, so this bounds the work under
 * contention rather than the outcome (50 concurrent users of one record need at most 50).
 */
const MAX_VERSION_RETRIES = 200

/** The user's columns; an empty email is stored as no email (Xata's `email` type refuses ""). */
function userFields(user: Partial<AdapterUser>): Fields {
  const fields: Fields = {}
  if ("email" in user) fields.email = user.email || null
  if ("emailVerified" in user) fields.emailVerified = user.emailVerified ?? null
  if ("name" in user) fields.name = user.name ?? null
  if ("image" in user) fields.image = user.image ?? null
  return fields
}

/** The account's columns. Fields without a column (`expires_in`, ...) are left out. */
function accountFields(account: AdapterAccount): Fields {
  const fields: Fields = {
    user: account.userId,
    type: account.type,
    provider: account.provider,
    providerAccountId: account.providerAccountId,
  }
  for (const field of ACCOUNT_STRING_FIELDS) {
    const value = account[field]
    if (typeof value === "string") fields[field] = value
  }
  if (typeof account.expires_at === "number") fields.expires_at = account.expires_at
  return fields
}

/** Transactions bypass the client's conversions: dates must already be ISO strings. */
function apiValues(fields: Fields): Fields {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]))
}

async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value))
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("")
}

/**
 * Record id of an account: derived from provider and providerAccountId, so Xata itself
 * refuses a second link of the same provider account (it has no composite unique keys).
 */
async function accountRecordId(provider: string, providerAccountId: string): Promise<string> {
  return `acc_${await sha256Hex(`${provider}\u0000${providerAccountId}`)}`
}

/** Record id of an authenticator, derived from its credential id (case-sensitive). */
async function authenticatorRecordId(credentialID: string): Promise<string> {
  return `pk_${await sha256Hex(credentialID)}`
}

function newRecordId(): string {
  return `rec_${crypto.randomUUID().replaceAll("-", "")}`
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const details = (error as { errors?: unknown }).errors
  const messages = Array.isArray(details)
    ? details.map((e) => (e && typeof e === "object" && typeof e.message === "string" ? e.message : "")).filter(Boolean)
    : []
  const extra = messages.filter((m) => m !== error.message)
  return extra.length > 0 ? `${error.message} (${extra.join("; ")})` : error.message
}

/** `https://ws-1234.us-east-1.xata.sh/db/app` on branch `main` → `app:main`. */
async function resolveTarget(client: XataClientLike): Promise<string> {
  const { databaseURL, branch } = await client.getConfig()
  let url: URL
  try {
    url = new URL(databaseURL)
  } catch {
    throw new XataAdapterError(`XataAdapter: the Xata client has no valid databaseURL (got ${JSON.stringify(databaseURL)})`)
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new XataAdapterError(`XataAdapter: the Xata databaseURL must be an http(s) URL, got ${url.protocol}`)
  }
  const database = url.pathname.match(/\/db\/([^/:]+)/)?.[1]
  if (!database) {
    throw new XataAdapterError(`XataAdapter: the Xata databaseURL ${url.origin}${url.pathname} does not name a database (/db/<name>)`)
  }
  if (typeof branch !== "string" || branch === "") {
    throw new XataAdapterError(`XataAdapter: the Xata client has no branch (set XATA_BRANCH or the client's branch option)`)
  }
  return `${database}:${branch} at ${url.host}`
}

/**
 * Creates an adapter on a Xata client. Tables are `<prefix>users`, `<prefix>accounts`,
 * `<prefix>sessions`, `<prefix>verificationTokens`, the link tables
 * `<prefix>users_accounts` and `<prefix>users_sessions`, and, for passkeys only,
 * `<prefix>authenticators`, for passwords only (`{ passwords: true }`),
 * `<prefix>user_passwords`, and for two-factor sign-in only (`{ twoFactor: true }`),
 * `<prefix>two_factor`. Create them from `@portcullis/xata-adapter/schema.json` (or
 * `xataSchema(prefix)` for another prefix).
 *
 * The client's `getConfig()` is read once, at the first operation: a client without a
 * valid `databaseURL` or branch fails there with a message saying what is missing, and
 * every error the adapter throws names the database and branch (never the API key).
 *
 * User ids are used as Xata record ids, so they must match `[a-zA-Z0-9_\-~:]+` (the
 * UUIDs Portcullis generates do).
 *
 * @example
 * ```ts
 * import { XataClient } from "./xata" // generated by `xata init` / `xata codegen`
 * import { XataAdapter } from "@portcullis/xata-adapter"
 *
 * const client = new XataClient({ branch: process.env.XATA_BRANCH ?? "main" })
 * export const config = { adapter: XataAdapter(client), providers: [] }
 *
 * // tables named auth_users, auth_sessions, ... instead of nextauth_*:
 * XataAdapter(client, { prefix: "auth_" })
 *
 * // with the nextauth_user_passwords table, for the password provider:
 * XataAdapter(client, { passwords: true })
 *
 * // with nextauth_two_factor too, for twoFactor.enabled:
 * XataAdapter(client, { passwords: true, twoFactor: true })
 * ```
 */
export function XataAdapter(client: XataClientLike, options: XataAdapterOptions = {}): Adapter {
  const t: XataTableNames = xataTableNames(options.prefix ?? DEFAULT_PREFIX)
  const db = client.db as unknown as Record<string, XRepository>
  const transactions = client.transactions as unknown as XTransactions
  const users = db[t.users]!
  const accounts = db[t.accounts]!
  const sessions = db[t.sessions]!
  const verificationTokens = db[t.verificationTokens]!
  const usersAccounts = db[t.usersAccounts]!
  const usersSessions = db[t.usersSessions]!
  const authenticators = db[t.authenticators]!
  const userPasswords = db[t.userPasswords]!
  const passwords = options.passwords === true
  const twoFactorRecords = db[t.twoFactor]!
  const twoFactor = options.twoFactor === true

  let target: Promise<string> | undefined

  /** Runs one adapter operation, after the client's configuration was checked once. */
  async function run<T>(operation: string, body: () => Promise<T>): Promise<T> {
    target ??= resolveTarget(client)
    const where = await target
    try {
      return await body()
    } catch (error) {
      if (error instanceof XataAdapterError) throw error
      throw new XataAdapterError(`XataAdapter.${operation} failed on Xata ${where}: ${describeError(error)}`, { cause: error })
    }
  }

  /** Runs operations as Xata transactions, at most 1000 per call, in order. */
  async function transact(operations: Operation[]): Promise<void> {
    for (let i = 0; i < operations.length; i += MAX_TRANSACTION_OPERATIONS) {
      await transactions.run(operations.slice(i, i + MAX_TRANSACTION_OPERATIONS))
    }
  }

  function findAccount(provider: string, providerAccountId: string, columns = ["*"]): Promise<XRecord | null> {
    return accounts.filter({ provider, providerAccountId }).getFirst({ ...FRESH, columns })
  }

  function findSession(sessionToken: string, columns = ["*"]): Promise<XRecord | null> {
    return sessions.filter({ sessionToken }).getFirst({ ...FRESH, columns })
  }

  /** Ids of the rows of `repository` whose link column `column` points at `id`. */
  async function linkedIds(repository: XRepository, column: string, id: string): Promise<string[]> {
    const rows = await repository.filter({ [column]: id }).getAll({ ...FRESH, columns: ["id"] })
    return rows.map((row) => row.id)
  }

  /** Like {@link linkedIds}, but `[]` when the table does not exist (no passkeys set up). */
  async function optionalLinkedIds(repository: XRepository, column: string, id: string): Promise<string[]> {
    try {
      return await linkedIds(repository, column, id)
    } catch (error) {
      if ((error as { status?: unknown }).status === 404) return []
      throw error
    }
  }

  const del = (table: string) => (id: string): Operation => ({ delete: { table, id } })

  /**
   * Compare-and-set on the user's two-factor record: reads it, lets `change` decide the
   * fields to write (or `null`: nothing to do, answer `false`), and writes them only if
   * the record still has the version read (Xata's `ifVersion`). When another write got in
   * between, reads again and decides again: of concurrent callers wanting the same
   * change exactly one writes it.
   */
  async function casTwoFactor(userId: string, change: (record: XRecord) => Fields | null): Promise<boolean> {
    if (!RECORD_ID.test(userId)) return false
    for (let attempt = 0; attempt < MAX_VERSION_RETRIES; attempt++) {
      const record = await twoFactorRecords.read(userId, ["*"])
      if (!record) return false
      const fields = change(record)
      if (!fields) return false
      const updated = await twoFactorRecords.update(userId, fields, ["id"], { ifVersion: versionOf(record) })
      if (updated) return true
    }
    throw new XataAdapterError(`XataAdapter: the two-factor record of ${userId} kept changing (${MAX_VERSION_RETRIES} attempts)`)
  }

  /** Passkey methods fail with a pointer to the schema when the table is missing. */
  async function withAuthenticators<T>(operation: string, body: () => Promise<T>): Promise<T> {
    return run(operation, async () => {
      try {
        return await body()
      } catch (error) {
        const status = (error as { status?: unknown }).status
        if (status === 404 || (error instanceof Error && /not found in schema/.test(error.message))) {
          const where = await target
          throw new XataAdapterError(
            `XataAdapter.${operation}: passkeys need the ${t.authenticators} table on Xata ${where} (see @portcullis/xata-adapter/schema.json): ${describeError(error)}`,
            { cause: error },
          )
        }
        throw error
      }
    })
  }

  return {
    createUser: (user) =>
      run("createUser", async () => toUser(await users.create(user.id, userFields(user)))),

    getUser: (id) =>
      run("getUser", async () => {
        if (id === "") return null
        const record = await users.read(id)
        return record ? toUser(record) : null
      }),

    getUserByEmail: (email) =>
      run("getUserByEmail", async () => {
        if (email === "") return null
        const record = await users.filter({ email }).getFirst(FRESH)
        return record ? toUser(record) : null
      }),

    getUserByAccount: ({ provider, providerAccountId }) =>
      run("getUserByAccount", async () => {
        // One request: the account with its linked user expanded.
        const record = await findAccount(provider, providerAccountId, ["user.*"])
        const user = record?.user as XRecord | null | undefined
        return user && typeof user.id === "string" ? toUser(user) : null
      }),

    updateUser: ({ id, ...changes }) =>
      run("updateUser", async () => {
        const record = await users.update(id, userFields(changes))
        if (!record) throw new XataAdapterError(`XataAdapter.updateUser: no user with id ${id}`)
        return toUser(record)
      }),

    deleteUser: (userId) =>
      run("deleteUser", async () => {
        const user = await users.read(userId)
        const [accountIds, sessionIds, accountLinks, sessionLinks, authenticatorIds] = await Promise.all([
          linkedIds(accounts, "user", userId),
          linkedIds(sessions, "user", userId),
          linkedIds(usersAccounts, "user", userId),
          linkedIds(usersSessions, "user", userId),
          optionalLinkedIds(authenticators, "user", userId),
        ])
        // Link rows first, the user last: a failure part-way leaves no row pointing at
        // a missing record, and a retry finishes the job.
        await transact([
          ...accountLinks.map(del(t.usersAccounts)),
          ...sessionLinks.map(del(t.usersSessions)),
          ...accountIds.map(del(t.accounts)),
          ...sessionIds.map(del(t.sessions)),
          ...authenticatorIds.map(del(t.authenticators)),
          // The hash's record id is the user id; deleting a missing record is no error.
          ...(passwords ? [del(t.userPasswords)(userId)] : []),
          ...(twoFactor ? [del(t.twoFactor)(userId)] : []),
          del(t.users)(userId),
        ])
        return user ? toUser(user) : null
      }),

    linkAccount: (account) =>
      run("linkAccount", async () => {
        // Accounts written before this adapter have random ids: look for one first.
        if (await findAccount(account.provider, account.providerAccountId, ["id"])) {
          throw new XataAdapterError(`XataAdapter.linkAccount: ${account.provider} account ${account.providerAccountId} is already linked`)
        }
        const id = await accountRecordId(account.provider, account.providerAccountId)
        await transact([
          { insert: { table: t.accounts, record: { id, ...apiValues(accountFields(account)) }, createOnly: true } },
          { insert: { table: t.usersAccounts, record: { id: newRecordId(), user: account.userId, account: id }, createOnly: true } },
        ])
        return account
      }),

    unlinkAccount: ({ provider, providerAccountId }) =>
      run("unlinkAccount", async () => {
        const record = await findAccount(provider, providerAccountId)
        if (!record) return undefined
        const links = await linkedIds(usersAccounts, "account", record.id)
        await transact([...links.map(del(t.usersAccounts)), del(t.accounts)(record.id)])
        return toAccount(record)
      }),

    getAccount: (providerAccountId, provider) =>
      run("getAccount", async () => {
        const record = await findAccount(provider, providerAccountId)
        return record ? toAccount(record) : null
      }),

    createSession: (session) =>
      run("createSession", async () => {
        const id = newRecordId()
        await transact([
          {
            insert: {
              table: t.sessions,
              record: { id, ...apiValues({ sessionToken: session.sessionToken, expires: session.expires, user: session.userId }) },
              createOnly: true,
            },
          },
          { insert: { table: t.usersSessions, record: { id: newRecordId(), user: session.userId, session: id }, createOnly: true } },
        ])
        return { id, sessionToken: session.sessionToken, userId: session.userId, expires: new Date(session.expires) }
      }),

    getSessionAndUser: (sessionToken) =>
      run("getSessionAndUser", async () => {
        // One request: the session with its linked user expanded.
        const record = await findSession(sessionToken, ["*", "user.*"])
        const user = record?.user as XRecord | null | undefined
        if (!record || !user || typeof user.id !== "string") return null
        return { session: toSession(record, user.id), user: toUser(user) }
      }),

    updateSession: ({ sessionToken, ...changes }) =>
      run("updateSession", async () => {
        const record = await findSession(sessionToken)
        if (!record) return null
        const fields: Fields = {}
        if (changes.expires) fields.expires = changes.expires
        const userId = changes.userId
        if (!userId || userId === linkId(record.user)) {
          // `update` answers null for a record deleted meanwhile: never re-created.
          const updated = await sessions.update(record.id, fields)
          return updated ? toSession(updated) : null
        }
        const links = await linkedIds(usersSessions, "session", record.id)
        await transact([
          { update: { table: t.sessions, id: record.id, fields: apiValues({ ...fields, user: userId }) } },
          ...links.map((id): Operation => ({ update: { table: t.usersSessions, id, fields: { user: userId } } })),
        ])
        const updated = await sessions.read(record.id)
        return updated ? toSession(updated) : null
      }),

    // Session management (a Portcullis capability). The Xata schema has no metadata
    // columns: sessions are listed without createdAt, lastSeenAt, user agent or address.
    listSessions: (userId) =>
      run("listSessions", async () => {
        const rows = await sessions.filter({ user: userId }).getAll(FRESH)
        return rows.map((record) => toSession(record, userId))
      }),

    deleteSession: (sessionToken) =>
      run("deleteSession", async () => {
        const record = await findSession(sessionToken)
        if (!record) return null
        const links = await linkedIds(usersSessions, "session", record.id)
        await transact([...links.map(del(t.usersSessions)), del(t.sessions)(record.id)])
        return toSession(record)
      }),

    createVerificationToken: (token) =>
      run("createVerificationToken", async () =>
        toVerificationToken(
          await verificationTokens.create({ identifier: token.identifier, token: token.token, expires: token.expires }),
        )),

    useVerificationToken: ({ identifier, token }) =>
      run("useVerificationToken", async () => {
        const record = await verificationTokens.filter({ identifier, token }).getFirst(FRESH)
        if (!record) return null
        // Xata answers a delete of a record that is already gone with 404 (null here):
        // of concurrent callers, only the one whose delete removed the row gets the token.
        const deleted = await verificationTokens.delete(record.id)
        return deleted ? toVerificationToken(record) : null
      }),

    createAuthenticator: (authenticator) =>
      withAuthenticators("createAuthenticator", async () => {
        const id = await authenticatorRecordId(authenticator.credentialID)
        const record = await authenticators.create(id, {
          credentialID: authenticator.credentialID,
          user: authenticator.userId,
          providerAccountId: authenticator.providerAccountId,
          credentialPublicKey: authenticator.credentialPublicKey,
          counter: authenticator.counter,
          credentialDeviceType: authenticator.credentialDeviceType,
          credentialBackedUp: authenticator.credentialBackedUp,
          transports: authenticator.transports ?? null,
        })
        return toAuthenticator(record)
      }),

    getAuthenticator: (credentialID) =>
      withAuthenticators("getAuthenticator", async () => {
        const record = await authenticators.read(await authenticatorRecordId(credentialID))
        return record && record.credentialID === credentialID ? toAuthenticator(record) : null
      }),

    listAuthenticatorsByUserId: (userId) =>
      withAuthenticators("listAuthenticatorsByUserId", async () => {
        const records = await authenticators.filter({ user: userId }).getAll(FRESH)
        return records.map(toAuthenticator)
      }),

    updateAuthenticatorCounter: (credentialID, newCounter) =>
      withAuthenticators("updateAuthenticatorCounter", async () => {
        const record = await authenticators.update(await authenticatorRecordId(credentialID), { counter: newCounter })
        if (!record) throw new XataAdapterError(`XataAdapter.updateAuthenticatorCounter: no authenticator ${credentialID}`)
        return toAuthenticator(record)
      }),

    // Password hashes (a Portcullis capability), only when the table exists: the password
    // provider looks for these methods, so an Auth.js-era database must not offer them.
    ...(passwords && {
      getUserPassword: (userId: string) =>
        run("getUserPassword", async () => {
          // An id Xata would refuse cannot be a user's: no hash, rather than a 400 from Xata.
          if (!RECORD_ID.test(userId)) return null
          const record = await userPasswords.read(userId, ["hash"])
          return record ? text(record.hash) : null
        }),

      setUserPassword: (userId: string, hash: string) =>
        run("setUserPassword", async () => {
          // One insert that replaces the record when it exists (`createOnly: false`): of
          // concurrent writers (a reset and a rehash) one write wins whole, and no writer
          // fails on a record another has just created.
          await transact([{
            insert: {
              table: t.userPasswords,
              record: { id: userId, ...apiValues({ user: userId, hash, updatedAt: new Date() }) },
              createOnly: false,
            },
          }])
        }),
    }),

    // Two-factor records (a Portcullis capability), only when the table exists.
    ...(twoFactor && {
      getTwoFactor: (userId: string) =>
        run("getTwoFactor", async () => {
          if (!RECORD_ID.test(userId)) return null
          const record = await twoFactorRecords.read(userId, ["*"])
          return record ? toTwoFactor(record) : null
        }),

      setTwoFactor: (record: AdapterTwoFactor) =>
        run("setTwoFactor", async () => {
          // One insert replacing any earlier record (`createOnly: false`), like setUserPassword.
          await transact([{
            insert: {
              table: t.twoFactor,
              record: {
                id: record.userId,
                user: record.userId,
                secret: record.secret,
                enabled: record.enabled,
                lastUsedStep: record.lastUsedStep,
                backupCodes: JSON.stringify(record.backupCodes),
              },
              createOnly: false,
            },
          }])
        }),

      deleteTwoFactor: (userId: string) =>
        run("deleteTwoFactor", async () => {
          // A transaction delete of a missing record is no error: nothing for a user without one.
          if (RECORD_ID.test(userId)) await transact([del(t.twoFactor)(userId)])
        }),

      useTwoFactorStep: (userId: string, step: number) =>
        run("useTwoFactorStep", () =>
          casTwoFactor(userId, (record) => {
            const last = record.lastUsedStep
            return typeof last === "number" && last >= step ? null : { lastUsedStep: step }
          })),

      useTwoFactorBackupCode: (userId: string, hash: string) =>
        run("useTwoFactorBackupCode", () =>
          casTwoFactor(userId, (record) => {
            const codes = parseCodes(record.backupCodes)
            const index = codes.indexOf(hash)
            if (index === -1) return null
            codes.splice(index, 1)
            return { backupCodes: JSON.stringify(codes) }
          })),
    }),
  }
}
