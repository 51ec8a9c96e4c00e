/**
 * The `audit` event's shape: a leaf module, so `types.ts` and the docs can name it without
 * importing the code that fills it in (`lib/audit/index.ts`).
 *
 * Every event is one flat, JSON-serialisable record — the row an audit store will keep —
 * and never holds a token, password, code or secret: who (`userId`, `actor`), from where
 * (`ip`, `userAgent`), how (`method`, `provider`), what came of it (`outcome`, `reason`),
 * and a few scalar `details`.
 * @module
 */

/** Whether what the event records went through (`success`) or was refused (`failure`). */
export type AuditOutcome = "success" | "failure"

/** Extra facts of an event: scalars only, so the record stays one flat row. */
export type AuditDetails = Readonly<Record<string, string | number | boolean | null>>

/** The fields every audit event has or may have. */
export interface AuditRecord {
  /** Unique per event (a random UUID): the key of its row once stored. */
  id: string
  /** When it happened, ISO 8601 in UTC (`2026-11-28T14:03:05.123Z`). */
  time: string
  /** The account it is about, when known. A failed sign-in names none: it would tell whose address was tried. */
  userId?: string
  /** Who did it when not the user: the `actor` an app passes to a support action (`resetTwoFactor`). */
  actor?: string
  /** The client address, when the request has a trusted one (`clientAddress`, `docs/rate-limiting.md`). */
  ip?: string
  /** The request's `User-Agent`, capped at 512 characters. */
  userAgent?: string
  /** How: the provider's type (`credentials`, `password`, `email`, `oauth`, `oidc`, `webauthn`), or `twoFactor`. */
  method?: string
  /** Which provider, by id (`github`, `password`). */
  provider?: string
  outcome: AuditOutcome
  /** Why it failed: the error's stable `type` (`CredentialsSignin`, `Verification`, …), see docs/errors.md. */
  reason?: string
  details?: AuditDetails
}

/** A sign-in that issued a session; `details.secondFactor` says which code passed, when one was asked. */
export interface SignInAuditEvent extends AuditRecord {
  type: "signIn"
  outcome: "success"
  userId: string
  method: string
  provider: string
  details: { isNewUser: boolean; secondFactor?: "totp" | "backup" }
}

/**
 * A sign-in refused by the client's input (wrong password, forged or stale link or callback,
 * wrong second-factor code). `reason` is the error's type; a wrong code names its user
 * (the first factor passed) and says why in `details.code` (`wrong`, `reused`, `malformed`).
 */
export interface SignInFailedAuditEvent extends AuditRecord {
  type: "signInFailed"
  outcome: "failure"
  reason: string
}

/**
 * A rate limit refused a request (`rateLimited`), or a sign-in identifier is locked out after
 * wrong passwords (`lockout`). The identifier (an email address, a username) is never in the
 * event: `details.identifier` is its keyed hash (HMAC-SHA-256 under the newest secret, 32 hex
 * digits) — the same value for the same identifier, so trips can be grouped, but not
 * reversible or testable without the secret. One event per trip: the same limit refusing the
 * same address and identifier again before `retryAfter` has passed is no new event.
 */
export interface RateLimitAuditEvent extends AuditRecord {
  type: "rateLimited" | "lockout"
  outcome: "failure"
  details: { action: string; limit: "address" | "identifier" | "lockout"; retryAfter: number; identifier?: string }
}

/** A session was signed out; `userId` when the session named one. */
export interface SignOutAuditEvent extends AuditRecord {
  type: "signOut"
  outcome: "success"
}

/** Sessions were revoked (session management, a password change or reset, a 2FA reset). */
export interface SessionRevokedAuditEvent extends AuditRecord {
  type: "sessionRevoked"
  outcome: "success"
  userId: string
  details: { scope: "one" | "others" | "everywhere"; count: number; strategy: "jwt" | "database" }
}

/** Something that guards an account changed (the same moments as the `securityNotice` event). */
export interface AccountChangeAuditEvent extends AuditRecord {
  type: "passwordChanged" | "passwordReset" | "twoFactorEnabled" | "twoFactorDisabled" | "backupCodesRegenerated" | "passkeyAdded" | "emailChanged" | "emailVerified" | "backupCodeUsed"
  outcome: "success"
  userId: string
}

/** A support action removed a user's second factor (`resetTwoFactor`): `actor` and `reason` as the app gave them. */
export interface TwoFactorResetAuditEvent extends AuditRecord {
  type: "twoFactorReset"
  outcome: "success"
  userId: string
  reason: string
  details: { wasEnabled: boolean; sessionsRevoked: number }
}

/** An OAuth account or a passkey was linked to a user (the moments of the `linkAccount` event). */
export interface AccountLinkedAuditEvent extends AuditRecord {
  type: "accountLinked"
  outcome: "success"
  userId: string
  method: string
  provider: string
}

/** Step-up re-authentication (`<basePath>/reauthenticate`): the password proven again, or refused. */
export interface StepUpAuditEvent extends AuditRecord {
  type: "stepUp"
  userId: string
  method: "password"
}

/**
 * A security event, for an audit trail: the `audit` event's message. Narrow it by `type`.
 *
 * @example
 * ```ts
 * import type { AuditEvent } from "@portcullis/core/types"
 *
 * const config = {
 *   providers,
 *   events: {
 *     audit(event: AuditEvent) {
 *       if (event.type === "signInFailed") metrics.count("sign_in_failed", { reason: event.reason })
 *       auditLog.insert(event) // one flat row: id, type, time, userId, ip, outcome, …
 *     },
 *   },
 * }
 * ```
 */
/**
 * An extension's event (docs/extensions.md): `type` is the extension's id, a dot and the
 * event's name (`organizations.memberAdded`); the facts are in `details`.
 */
export interface ExtensionAuditEvent extends AuditRecord {
  type: `${string}.${string}`
}

export type AuditEvent =
  | ExtensionAuditEvent
  | SignInAuditEvent
  | SignInFailedAuditEvent
  | RateLimitAuditEvent
  | SignOutAuditEvent
  | SessionRevokedAuditEvent
  | AccountChangeAuditEvent
  | TwoFactorResetAuditEvent
  | AccountLinkedAuditEvent
  | StepUpAuditEvent

/** Every audit event type, in the order docs/observability.md lists them. */
export type AuditEventType = AuditEvent["type"]

/**
 * Every audit event type, as values: what an audit query's `type` filter is checked against
 * (`query.ts`). Typed so a type added to the union above and not here fails to compile.
 */
export const AUDIT_EVENT_TYPES = [
  "signIn",
  "signInFailed",
  "rateLimited",
  "lockout",
  "signOut",
  "sessionRevoked",
  "passwordChanged",
  "passwordReset",
  "twoFactorEnabled",
  "twoFactorDisabled",
  "backupCodesRegenerated",
  "backupCodeUsed",
  "twoFactorReset",
  "passkeyAdded",
  "accountLinked",
  "emailChanged",
  "emailVerified",
  "stepUp",
] as const satisfies readonly AuditEventType[]

/** An extension's event type (`organizations.memberAdded`): what a query's `type` may name besides core's. */
export const EXTENSION_AUDIT_TYPE = /^[a-z][a-z0-9-]{0,31}\.[A-Za-z][A-Za-z0-9]{0,63}$/

/** The union's types missing from the list above: none, or this module does not compile. */
type Missing = Exclude<Exclude<AuditEventType, ExtensionAuditEvent["type"]>, (typeof AUDIT_EVENT_TYPES)[number]>
/**
 * Compile-time check that the list above names every type of the union — a type, not a
 * statement, so importing this module still runs nothing (`"sideEffects": false`).
 * @internal
 */
export type EveryAuditTypeListed = NoneMissing<Missing>
type NoneMissing<T extends never> = T
