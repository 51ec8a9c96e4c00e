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
import type { SessionInfo } from "../../base-types.js"

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

/** The admin facet: every call acts on the user named, whoever is signed in. */
export interface ExtensionAdmin {
  capabilities(): AdminCapabilities
  /** @throws `ExtensionRequestError` (`invalid-query`, 400) for a malformed query, (`unsupported`, 409) without `listUsers`. */
  listUsers(query?: AdminUserQuery): Promise<AdminUserPage>
  /** The user, or `null` for an unknown id. */
  getUser(id: string): Promise<AdminUser | null>
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
}
