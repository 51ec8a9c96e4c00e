/**
 * The adapter interface: how Portcullis stores users, accounts, sessions, verification
 * tokens and passkey authenticators. It is the Auth.js v5 interface, so an Auth.js adapter
 * works here unchanged, and ours work there.
 *
 * Every method is optional; Portcullis checks at the first request that the adapter has
 * the methods the configured features need, and names the missing ones.
 *
 * @example
 * ```ts
 * import type { Adapter } from "@portcullis/core/adapters"
 *
 * export function MyAdapter(db: MyDb): Adapter {
 *   return {
 *     async createUser(user) { return db.users.insert(user) },
 *     async getUser(id) { return (await db.users.find(id)) ?? null },
 *     // ...
 *   }
 * }
 * ```
 * @module
 */
import type { Account, Awaitable, User } from "./base-types.js"
import type { AuditEvent } from "./lib/audit/events.js"
import type { AuditPage, AuditQuery } from "./lib/audit/query.js"

export type { AuditEvent, AuditEventType, AuditOutcome, AuditRecord } from "./lib/audit/events.js"
export type { AuditPage, AuditPosition, AuditQuery, CheckedAuditQuery } from "./lib/audit/query.js"
/**
 * For adapters implementing the audit capability: `checkAuditQuery` turns a query into
 * filters, a limit and the cursor's position (throwing `InvalidAuditQuery` for a bad one);
 * `auditPage` makes the page of up to `limit + 1` records found newest first;
 * `matchesAuditQuery`, `newestFirst` and `isBefore` for stores that filter and sort in memory.
 */
export { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX, auditCursor, auditPage, checkAuditQuery, isAuditId, isBefore, matchesAuditQuery, newestFirst } from "./lib/audit/query.js"

export type { SessionInfo, SessionRecord, SessionRegistry } from "./base-types.js"

/** A user as stored by an adapter. */
export interface AdapterUser extends User {
  /** Unique identifier. */
  id: string
  /** The user's email address. */
  email: string
  /** When the address was verified through the email provider, or `null`. */
  emailVerified: Date | null
}

/** Provider types an account can be stored for. */
export type AdapterAccountType = "oauth" | "oidc" | "email" | "webauthn"

/** A link between a user and a provider, as stored by an adapter. */
export interface AdapterAccount extends Account {
  userId: string
  type: AdapterAccountType
  /**
   * Portcullis: set when the provider refused the stored refresh token (`invalid_grant`);
   * `getAccessToken` then throws `ReauthRequired` until the user signs in with the provider
   * again, which clears it. Absent (or `false`) otherwise.
   */
  reauth_required?: boolean
}

/** Which stored account a call is about. */
export type AccountKey = Pick<AdapterAccount, "provider" | "providerAccountId">

/**
 * The token fields {@link Adapter.updateAccount} writes. A field left out is kept; `null`
 * clears it (an access token without `expires_at`, for example).
 */
export interface AccountTokenPatch {
  access_token?: string | null
  refresh_token?: string | null
  expires_at?: number | null
  token_type?: string | null
  scope?: string | null
  id_token?: string | null
  reauth_required?: boolean
}

/** A database session. The cookie holds only `sessionToken`. */
export interface AdapterSession {
  /** Random value; the only thing the session cookie holds. */
  sessionToken: string
  /** Owner of the session. */
  userId: string
  /** Absolute expiry. */
  expires: Date
  /**
   * Session metadata, written only with `session.metadata: true` (columns `portcullis
   * migrate` adds; an Auth.js schema has none). `null`/absent when unknown.
   */
  createdAt?: Date | null
  lastSeenAt?: Date | null
  userAgent?: string | null
  ipAddress?: string | null
}

/** A one-time sign-in token (email provider). `token` is stored hashed. */
export interface VerificationToken {
  /** The user's email address. */
  identifier: string
  /** When the token stops working. */
  expires: Date
  /** Hash of the token sent by email (never the raw token). */
  token: string
}

/** A WebAuthn credential. */
export interface AdapterAuthenticator {
  /** Base64-encoded credential id. */
  credentialID: string
  /** Owner of the credential. */
  userId: string
  /** Id of the account the credential belongs to (the credential id). */
  providerAccountId: string
  /** Number of times the authenticator has been used. */
  counter: number
  /** Whether the credential is backed up (synced passkey). */
  credentialBackedUp: boolean
  /** Base64-encoded public key. */
  credentialPublicKey: string
  /** Comma-separated transports, or `null`. */
  transports?: string | null
  /** `singleDevice` or `multiDevice`. */
  credentialDeviceType: string
  /** Portcullis: the name the user gave the passkey (the account center), or `null`. */
  name?: string | null
}

/**
 * Portcullis: a user's two-factor state, as the adapter stores it. The adapter treats every
 * field as data: `secret` arrives encrypted (Portcullis seals it with the configuration's
 * secret before storing) and `backupCodes` are hashes.
 */
export interface AdapterTwoFactor {
  userId: string
  /** The TOTP secret, sealed by Portcullis (a JWE string); opaque to the adapter. */
  secret: string
  /** `false` while enrollment waits for the first code; `true` once confirmed. */
  enabled: boolean
  /** The last TOTP time step used to sign in, so a code works once; `null` before the first. */
  lastUsedStep: number | null
  /** Hashes of the unused backup codes. */
  backupCodes: string[]
}

/**
 * The storage interface. All methods are optional and may return promises.
 * Dates are `Date` objects both ways.
 */
export interface Adapter {
  createUser?(user: AdapterUser): Awaitable<AdapterUser>
  getUser?(id: string): Awaitable<AdapterUser | null>
  getUserByEmail?(email: string): Awaitable<AdapterUser | null>
  getUserByAccount?(
    providerAccountId: Pick<AdapterAccount, "provider" | "providerAccountId">,
  ): Awaitable<AdapterUser | null>
  updateUser?(user: Partial<AdapterUser> & Pick<AdapterUser, "id">): Awaitable<AdapterUser>
  /** Removes the user and their accounts, sessions and authenticators. */
  deleteUser?(userId: string): Promise<void> | Awaitable<AdapterUser | null | undefined>
  linkAccount?(account: AdapterAccount): Promise<void> | Awaitable<AdapterAccount | null | undefined>
  unlinkAccount?(
    providerAccountId: Pick<AdapterAccount, "provider" | "providerAccountId">,
  ): Promise<void> | Awaitable<AdapterAccount | undefined>
  getAccount?(providerAccountId: string, provider: string): Awaitable<AdapterAccount | null>
  /** Gets the metadata fields of {@link AdapterSession} only with `session.metadata: true`. */
  createSession?(session: { sessionToken: string; userId: string; expires: Date } & Partial<Pick<AdapterSession, "createdAt" | "lastSeenAt" | "userAgent" | "ipAddress">>): Awaitable<AdapterSession>
  /** Should be one round trip (a join) where the backend supports it. */
  getSessionAndUser?(sessionToken: string): Awaitable<{ session: AdapterSession; user: AdapterUser } | null>
  updateSession?(
    session: Partial<AdapterSession> & Pick<AdapterSession, "sessionToken">,
  ): Awaitable<AdapterSession | null | undefined>
  deleteSession?(sessionToken: string): Promise<void> | Awaitable<AdapterSession | null | undefined>
  /**
   * Portcullis capability (not in Auth.js): every unexpired session of `userId`, for session
   * management (`listSessions`, revoking, signing out everywhere). `[]` for an unknown user.
   */
  listSessions?(userId: string): Awaitable<AdapterSession[]>
  /**
   * Portcullis capability (not in Auth.js), for admin consoles' "active sessions": how many
   * stored sessions have not expired, of every user. Counted by the store (one query), never
   * by listing them.
   *
   * @example
   * ```ts
   * const active = await adapter.countSessions?.() // 42, or undefined without the capability
   * ```
   */
  countSessions?(): Awaitable<number>
  /**
   * Portcullis capability (not in Auth.js), for admin consoles (`@portcullis/admin`): users
   * ordered by id, after `cursor` (the last id of the previous page), `search` matched
   * case-insensitively as a substring of the email or the name, `verified` on whether
   * `emailVerified` is set; at most `limit` (1–100, already checked) and `next` (the last
   * id) when there may be more. Never answers password hashes.
   */
  listUsers?(query: UserListQuery): Awaitable<{ users: AdapterUser[]; next: string | null }>
  createVerificationToken?(verificationToken: VerificationToken): Awaitable<VerificationToken | null | undefined>
  /** Returns the token and deletes it, atomically: under concurrency exactly one caller gets it. */
  useVerificationToken?(params: { identifier: string; token: string }): Awaitable<VerificationToken | null>
  /** Must throw if the credential cannot be stored. */
  createAuthenticator?(authenticator: AdapterAuthenticator): Awaitable<AdapterAuthenticator>
  getAuthenticator?(credentialID: AdapterAuthenticator["credentialID"]): Awaitable<AdapterAuthenticator | null>
  /** `[]` for an unknown user. */
  listAuthenticatorsByUserId?(userId: AdapterAuthenticator["userId"]): Awaitable<AdapterAuthenticator[]>
  /** Must throw if the update fails. */
  /** Portcullis: names a passkey (the account center's rename). */
  renameAuthenticator?(credentialID: AdapterAuthenticator["credentialID"], name: string): Awaitable<void>
  /** Portcullis: removes a passkey (the account center's remove); its account row is unlinked apart. */
  deleteAuthenticator?(credentialID: AdapterAuthenticator["credentialID"]): Awaitable<void>
  updateAuthenticatorCounter?(
    credentialID: AdapterAuthenticator["credentialID"],
    newCounter: AdapterAuthenticator["counter"],
  ): Awaitable<AdapterAuthenticator>

  /*
   * Portcullis extensions (Auth.js adapters have none of these; each is optional and only
   * `getAccessToken` and the token refresh use them — see docs/adapters.md).
   */

  /** Portcullis: the account `userId` has with `provider`, or `null`. */
  getAccountByUserId?(userId: string, provider: string): Awaitable<AdapterAccount | null>
  /**
   * Portcullis: writes `patch` into the account, atomically. With `expected`, only if the
   * stored `refresh_token` is still `expected.refresh_token` (compare-and-set: of two
   * writers that read the same token, one wins). Returns the account as stored after the
   * write, or `null` when nothing was written (no such account, or the token had changed).
   */
  updateAccount?(
    account: AccountKey,
    patch: AccountTokenPatch,
    expected?: { refresh_token: string | null },
  ): Awaitable<AdapterAccount | null>
  /**
   * Portcullis: takes the lock `key` for `owner` for `ttlMs` milliseconds, unless someone
   * else holds it. `true` when taken. Shared by every app instance using this store.
   */
  acquireLock?(key: string, owner: string, ttlMs: number): Awaitable<boolean>
  /** Portcullis: releases `key` if (and only if) `owner` still holds it. */
  releaseLock?(key: string, owner: string): Awaitable<void>
  /**
   * Portcullis: keeps `value` under `key` for `ttlMs` milliseconds, for every instance to
   * read with {@link getShared} (JWT sessions hand a rotated token set, encrypted, to
   * requests elsewhere that still carry the old one).
   */
  setShared?(key: string, value: string, ttlMs: number): Awaitable<void>
  /** Portcullis: the value {@link setShared} kept under `key`, or `null` once it expired. */
  getShared?(key: string): Awaitable<string | null>

  /*
   * Portcullis two-factor capability (docs/two-factor.md): a user's TOTP state, one record
   * per user. Optional; `twoFactor.enabled` needs all five.
   */

  /** Portcullis 2FA: the user's two-factor record, or `null` when they never enrolled. */
  getTwoFactor?(userId: string): Awaitable<AdapterTwoFactor | null>
  /** Portcullis 2FA: stores `record` as the user's, replacing any earlier one. */
  setTwoFactor?(record: AdapterTwoFactor): Awaitable<void>
  /** Portcullis 2FA: removes the user's record (2FA off); nothing for a user without one. */
  deleteTwoFactor?(userId: string): Awaitable<void>
  /**
   * Portcullis 2FA: records TOTP time step `step` as used, atomically, only when it is after
   * the stored `lastUsedStep` (or none is stored). `true` when written: of concurrent callers
   * with the same step exactly one gets `true`, so one code signs in once.
   */
  useTwoFactorStep?(userId: string, step: number): Awaitable<boolean>
  /**
   * Portcullis 2FA: removes `hash` from the user's backup code hashes, atomically. `true`
   * when it was there: of concurrent callers with the same hash exactly one gets `true`.
   */
  useTwoFactorBackupCode?(userId: string, hash: string): Awaitable<boolean>

  /**
   * Portcullis: the password hash (a PHC string from `hashPassword`) stored for `userId`, or
   * `null` when the user has none. The password provider's capability: the hash lives
   * apart from the user record, so `getUser` never returns it and Auth.js's users table
   * stays as it is.
   */
  getUserPassword?(userId: string): Awaitable<string | null>
  /** Portcullis: stores `hash` as the password hash of `userId`, replacing any earlier one. */
  setUserPassword?(userId: string, hash: string): Awaitable<void>

  /*
   * Portcullis audit capability (docs/observability.md, "Storing the audit trail"): every
   * audit event, kept as the event's own fields, listed newest first and pruned by age.
   * Optional; the store is used when the adapter has all three.
   */

  /**
   * Portcullis audit: stores `record` as given — its fields are the event's (`id`, `time`,
   * `type`, `outcome`, `userId`, `actor`, `ip`, `userAgent`, `method`, `provider`, `reason`,
   * `details`), none of them a secret. `id` is unique; storing the same id twice keeps one.
   */
  createAuditRecord?(record: AuditEvent): Awaitable<void>
  /**
   * Portcullis audit: one page of the records `query` matches, newest first by (`time`,
   * `id`), read with `checkAuditQuery` (from this module) and made with `auditPage`: the
   * cursor is a position, so a record written meanwhile never shifts a later page.
   * Throws `InvalidAuditQuery` for a bad query.
   */
  listAuditRecords?(query: AuditQuery): Awaitable<AuditPage>
  /** Portcullis audit: deletes every record older than `before`; returns how many. */
  deleteAuditRecordsBefore?(before: Date): Awaitable<number>
}

/** Whether `value` is an ISO 8601 date string (for adapters that store dates as text). */
export function isDate(value: unknown): value is string {
  return (
    typeof value === "string" &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value))
  )
}

/** What an adapter's `listUsers` is asked (checked by core before it gets here). */
export interface UserListQuery {
  /** Lower-cased, 1–200 characters, no NUL. */
  search?: string
  verified?: boolean
  /** The last id of the previous page. */
  cursor?: string
  limit: number
}
