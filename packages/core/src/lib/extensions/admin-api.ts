/**
 * The admin facet of the extension API (`ExtensionTools.admin`): what an admin console needs
 * of core that an extension cannot do with its own store — list users (the adapter's
 * `listUsers` capability), read a user's sessions, end them, reset their second factor and
 * query the audit trail. A leaf: types only; the code is `admin/*.ts`, loaded with `import()`
 * on the first call, so a configuration that never calls it loads none of it.
 *
 * The facet checks nothing about who calls it: the extension that uses it decides who is an
 * admin (`@portcullis/admin`'s `isAdmin`), before it calls any of these.
 * @module
 */
import type { AuditPage, AuditQuery } from "../audit/query.js"
import type { Cookie, SessionInfo } from "../../base-types.js"

/** Users as the admin facet lists them: never a password hash or a token. */
export interface AdminUser {
  id: string
  email: string | null
  name: string | null
  emailVerified: Date | null
  image: string | null
}

/** What `admin.listUsers` is asked: at most 100 a page, ordered by id. */
export interface AdminUserQuery {
  /** Part of the email or name, case-insensitive; at most 200 characters. */
  search?: string
  /** Only users whose email is (or is not) verified. */
  verified?: boolean
  /** The `next` of the previous page. */
  cursor?: string
  /** 1–100, default 25. */
  limit?: number
}

/** A page of users, and `next` when there are more. */
export interface AdminUserPage {
  users: AdminUser[]
  next: string | null
}

/** What this configuration's adapter lets the admin facet do. */
export interface AdminCapabilities {
  /** The adapter has `listUsers`. */
  listUsers: boolean
  /** Sessions can be listed and revoked: database sessions with `listSessions`, or JWT sessions with a `session.registry`. */
  sessions: boolean
  /** The adapter stores the audit trail. */
  audit: boolean
  /** The `twoFactor` option is on, so a user's second factor can be reset. */
  twoFactor: boolean
}

/** What `admin.impersonate` is told. */
export interface AdminImpersonation {
  /** The user to act as. */
  userId: string
  /**
   * Called with the new session's key for the calling extension (its `ExtensionSession.key`)
   * and when it lapses without activity, once it exists and before any cookie is set: store
   * the impersonation's record (its end, who started it) here. If it throws, nothing changes.
   */
  record(key: string, expires: Date): Promise<void>
}

/** What `admin.endImpersonation` did. */
export interface AdminImpersonationEnd {
  /** The admin the impersonator cookie named, when it opened and was this session's; else `null`. */
  impersonator: string | null
  /** The admin whose own session was put back (it was still valid), or `null`: then the browser is signed out. */
  restored: string | null
  /** The cookies set (also on the route's answer): a server function's caller sends them. */
  cookies: Cookie[]
}

/** A user's ways in, for their page. */
export interface AdminWaysIn {
  /** One per configured OAuth/OIDC provider the user has linked; `null` when the adapter has no `getAccountByUserId`. */
  accounts: Array<{ provider: string; name: string; type: "oauth" | "oidc"; providerAccountId: string }> | null
  /** How many passkeys; `null` without a passkey provider (or `listAuthenticatorsByUserId`). */
  passkeys: number | null
}

/** The admin facet: every call acts on the user named, whoever is signed in. */
export interface ExtensionAdmin {
  capabilities(): AdminCapabilities
  /** @throws `ExtensionRequestError` (`invalid-query`, 400) for a malformed query, (`unsupported`, 409) without `listUsers`. */
  listUsers(query?: AdminUserQuery): Promise<AdminUserPage>
  /** The user, or `null` for an unknown id. */
  getUser(id: string): Promise<AdminUser | null>
  /**
   * Creates a user through the adapter (the `createUser` event fires) — a provisioned one
   * (SCIM): `emailVerified` only when the caller checked the address (its domain is the
   * organization's). Lowercases the address.
   * @throws `ExtensionRequestError` (`email-taken`, 409) when a user has the address; (`invalid-email`, 422).
   */
  createUser(input: { email: string; name?: string | null; emailVerified: boolean }): Promise<AdminUser>
  /** The user's live sessions (`current` is always false). `[]` when sessions cannot be listed. */
  listSessions(userId: string): Promise<SessionInfo[]>
  /** Ends every session of the user (rows deleted, registry entries removed); how many. */
  revokeSessions(userId: string): Promise<number>
  /** Whether the user has two-factor authentication on. */
  twoFactorEnabled(userId: string): Promise<boolean>
  /** Core's `resetTwoFactor`: removes the second factor, ends the sessions, audits and notifies. */
  resetTwoFactor(input: { userId: string; reason: string; actor?: string }): Promise<{ wasEnabled: boolean; sessionsRevoked: number }>
  /**
   * How many sessions have not expired, of every user: the adapter's `countSessions` (database
   * sessions) or the registry's `count` (JWT sessions); `null` when neither can count.
   */
  countSessions(): Promise<number | null>
  /** Core's audit trail query. @throws `AuditTrailUnsupported` without the audit capability. */
  auditTrail(query?: AuditQuery): Promise<AuditPage>
  /**
   * Starts a session for another user in place of the request's own, which is kept sealed in
   * a cookie (core's JWE keys) until {@link endImpersonation}. The new session has no step-up
   * mark. A route's answer sets the cookies; they are also returned (`cookies`) for a server
   * function, whose caller must send them (an integration does not). Who may impersonate whom is the
   * caller's decision; its limit is the caller's too (a session `valid` hook).
   * @throws `ExtensionRequestError` (`not-found`, 404) for an unknown user; `NotSignedIn` without a session.
   */
  impersonate(input: AdminImpersonation): Promise<{ key: string; expires: Date; cookies: Cookie[] }>
  /** Ends the request's impersonated session and restores the admin's own when it is still valid. */
  endImpersonation(): Promise<AdminImpersonationEnd>
  /**
   * Mails the user a password reset link through the password provider's flow (awaited).
   * @throws `ExtensionRequestError` (`unsupported`, 409) without a password provider, (`no-email`, 409) for a user without an address.
   */
  sendPasswordReset(userId: string): Promise<{ expires: Date }>
  /** The user's linked accounts and passkey count. */
  waysIn(userId: string): Promise<AdminWaysIn>
}
