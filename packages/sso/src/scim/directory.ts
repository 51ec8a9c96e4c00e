/**
 * What the SCIM server needs from the app: the organization's users and memberships, its
 * verified domains, its sessions, its role rules and its audit log. The integrator builds one
 * per request, for the organization the request's SCIM token belongs to.
 * @module
 */
import type { SsoStore } from "../store/types.js"

/**
 * The app as one organization's SCIM endpoint sees it. Every method may be retried by a SCIM
 * client's retry of the same request, so each must be idempotent as documented.
 *
 * @example
 * ```ts
 * const directory: ScimDirectory = {
 *   organizationId: token.organizationId,
 *   store: ssoStore,
 *   findUserByEmail: (email) => adapter.getUserByEmail(email),
 *   createUser: ({ email, name }) => adapter.createUser({ id: crypto.randomUUID(), email, name, emailVerified: new Date() }),
 *   emailAllowed: async (email) => (await ssoStore.getDomain(email.split("@")[1]!.toLowerCase()))?.organizationId === token.organizationId,
 *   addMember: (userId, role) => organizations.addMember({ organizationId: token.organizationId, userId, role, createdAt: new Date() }).then(() => {}),
 *   setRole: (userId, role) => organizations.setRole(token.organizationId, userId, role).then(() => {}),
 *   removeMember: (userId) => organizations.removeMember(token.organizationId, userId).then(() => {}),
 *   endSessions: (userId) => endSsoSessions(userId, token.organizationId),
 *   roleFor: (groups) => roleForClaims(connection, { groups }),
 *   audit: (type, details) => audit({ type, outcome: "success", organizationId: token.organizationId, details }),
 * }
 * ```
 */
export interface ScimDirectory {
  /** The organization this endpoint provisions into (the SCIM token's). */
  organizationId: string
  /** Where SCIM records are kept. */
  store: SsoStore
  /** The Portcullis user with this email, to link a provisioned user to an existing account. */
  findUserByEmail(email: string): Promise<{ id: string; email: string | null } | null>
  /**
   * Creates a Portcullis user with this email, marked verified: the caller has checked
   * {@link emailAllowed} first. May throw when a user with the email already exists (a
   * unique index, a concurrent request): SCIM then looks the email up again and links.
   */
  createUser(input: { email: string; name: string | null }): Promise<{ id: string }>
  /** Whether the address is of a domain this organization has verified; SCIM provisions no one else. */
  emailAllowed(email: string): Promise<boolean>
  /** Makes the user a member with `role`; a user who already is one keeps the membership and role they have. */
  addMember(userId: string, role: string): Promise<void>
  /**
   * Sets a member's role; nothing when the user is not a member. SCIM calls it whenever a
   * provisioned member's groups change, so the app decides what SCIM may not change — the
   * organization's last owner, say — and leaves those roles as they are.
   */
  setRole(userId: string, role: string): Promise<void>
  /** Ends the user's membership; nothing when there is none. */
  removeMember(userId: string): Promise<void>
  /** Ends the user's sessions in this organization at once — everywhere when they are a member of no other. */
  endSessions(userId: string): Promise<void>
  /** The role for a member in these SCIM groups (by display name), from the connection's role rules (claim `groups`). */
  roleFor(groupNames: string[]): string
  /**
   * Records an audit event: `user.created` (details `userId`, `linked`, `active`), `user.updated`,
   * `user.deactivated`, `user.reactivated`, `user.deleted` (`userId`), `group.created`,
   * `group.updated` (`groupId`, `members`), `group.deleted`; the app adds its namespace
   * (`scim.`). Details are ids and counts, never tokens. A failure here is reported, not answered.
   */
  audit(type: string, details: Record<string, string | number | boolean>): Promise<void>
  /** Told of a failure SCIM answered with 503 (a store or the app down), for the log; the client sees no details. */
  reportError?(error: unknown): void
}
