/**
 * What organizations keep, and the store contract every backend (memory, SQL, Redis)
 * implements. Every rule that must hold across instances — one membership per accepted
 * invitation, an organization never without an owner, a slug taken once — is enforced by
 * the store in one atomic step, never by reading first and writing after in the extension.
 * @module
 */

/** An organization: a team, a tenant, a customer account. */
export interface Organization {
  /** Random, opaque (a UUID): never derived from the name. */
  id: string
  name: string
  /** Unique, lowercase `a-z0-9-`, 1–48 characters: for URLs. */
  slug: string
  /** The app's own facts about the organization (JSON, at most 4 KiB serialised). */
  metadata: Record<string, unknown> | null
  createdAt: Date
}

/** A user's membership of an organization, with one role. */
export interface Membership {
  organizationId: string
  userId: string
  /** `owner`, `admin`, `member` or one of the app's roles. */
  role: string
  createdAt: Date
}

/** Where an invitation stands; only `pending` ones can be accepted or revoked. */
export type InvitationStatus = "pending" | "accepted" | "revoked"

/** An invitation by email to join an organization with a role. */
export interface Invitation {
  /** Random, opaque: the id the accept link names (with a secret token). */
  id: string
  organizationId: string
  /** The invited address, normalised (trimmed, lowercase). */
  email: string
  role: string
  /** The user who invited. */
  invitedBy: string
  /** SHA-256 (hex) of the secret token the link carries; the token itself is never stored. */
  tokenHash: string
  status: InvitationStatus
  expiresAt: Date
  createdAt: Date
  /** The user who accepted, once `accepted`. */
  acceptedBy?: string | null
}

/**
 * Outcome of a change that must leave an organization with an owner. `"changed"`: the
 * member's role was no longer the one the caller checked (`expectedRole`), so nothing changed.
 */
export type OwnerGuarded = "ok" | "missing" | "last-owner" | "changed"

/** Outcome of accepting an invitation. */
export type AcceptOutcome =
  /** Accepted now: the user is a member with the invitation's role. */
  | "accepted"
  /** The user was a member already: the invitation is used up, the role is unchanged. */
  | "already-member"
  /** No such invitation. */
  | "missing"
  /** Accepted, revoked or expired before: nothing changed. */
  | "unavailable"

/** Outcome of adding a member directly (just-in-time membership, SCIM provisioning). */
export type AddMemberOutcome =
  /** Added now, with the membership's role. */
  | "added"
  /** The user was a member already: nothing changed, the role is kept. */
  | "already-member"
  /** No such organization: nothing written. */
  | "missing"
  /** The organization has `limit` members already: nothing written. */
  | "full"

/**
 * The storage of organizations. Methods that change more than one record do it atomically
 * (a transaction, a Lua script, one synchronous step in memory): two instances, or fifty
 * concurrent requests, cannot observe or leave a half-done change.
 */
export interface OrganizationStore {
  /**
   * Creates `organization` with `owner` as its first member (role `owner`), atomically.
   * @returns `false` when the slug is taken (nothing is written).
   */
  createOrganization(organization: Organization, owner: Membership): Promise<boolean>
  getOrganization(id: string): Promise<Organization | null>
  getOrganizationBySlug(slug: string): Promise<Organization | null>
  /**
   * Changes name, slug or metadata.
   * @returns the organization as changed, `null` when there is none, `"slug-taken"` when the new slug is another's.
   */
  updateOrganization(id: string, patch: { name?: string; slug?: string; metadata?: Record<string, unknown> | null }): Promise<Organization | null | "slug-taken">
  /** Deletes the organization with its memberships, invitations and active-organization marks. */
  deleteOrganization(id: string): Promise<void>
  /** The organizations `userId` belongs to, with the role in each, oldest first. */
  listOrganizations(userId: string): Promise<Array<{ organization: Organization; role: string }>>

  getMembership(organizationId: string, userId: string): Promise<Membership | null>
  /** Members of an organization, oldest first. */
  listMembers(organizationId: string): Promise<Membership[]>
  /**
   * Changes a member's role. Atomically refuses (`"last-owner"`) to move the organization's
   * only owner to another role. With `expectedRole`, atomically refuses (`"changed"`) when
   * the member's role is no longer that one: the caller checked that it may manage the
   * member in that role, and a promotion since (to owner) must not be undone by it.
   */
  setRole(organizationId: string, userId: string, role: string, expectedRole?: string): Promise<OwnerGuarded>
  /**
   * Adds `membership.userId` to `membership.organizationId` with `membership.role`, without an
   * invitation (an SSO sign-in's just-in-time membership, a SCIM client's provisioning). One
   * atomic step checks that the organization exists, that the user is not a member yet and,
   * with `limit`, that it has fewer than `limit` members (its owners included): of any number
   * of concurrent adds, no more than `limit` members result.
   */
  addMember(membership: Membership, limit?: number): Promise<AddMemberOutcome>
  /** Removes a member. Atomically refuses (`"last-owner"`) to remove the only owner, and (`"changed"`) a member whose role is no longer `expectedRole`. */
  removeMember(organizationId: string, userId: string, expectedRole?: string): Promise<OwnerGuarded>

  createInvitation(invitation: Invitation): Promise<void>
  getInvitation(id: string): Promise<Invitation | null>
  /** The pending, unexpired invitations of an organization, newest first. */
  listInvitations(organizationId: string, now: Date): Promise<Invitation[]>
  /** Marks a pending invitation `revoked`. @returns whether it was pending. */
  revokeInvitation(organizationId: string, id: string): Promise<boolean>
  /**
   * Accepts a pending, unexpired invitation for `userId`: in one atomic step the invitation
   * becomes `accepted` (by `userId`) and the membership is created with its role. Of any
   * number of concurrent accepts of one invitation, exactly one sees `"accepted"` or
   * `"already-member"`; the others see `"unavailable"`.
   */
  acceptInvitation(id: string, userId: string, now: Date): Promise<AcceptOutcome>

  /** The active organization of a session (by the session's key), or `null`. */
  getActiveOrganization(sessionKey: string): Promise<string | null>
  /** Sets (or with `null` clears) the active organization of a session until `expires`. */
  setActiveOrganization(sessionKey: string, organizationId: string | null, expires: Date): Promise<void>
}
