/**
 * The server functions of organizations (`extensions.organizations.…` in every
 * integration): the same operations the routes run, typed with the app's roles and
 * permissions.
 * @module
 */
import type {
  CreateOrganizationInput,
  InvitationDetails,
  MemberDetails,
  OrganizationDetails,
  OrganizationSummary,
  UpdateOrganizationInput,
} from "./operations.js"

/** Which organization a permission is asked about; default: the session's active one. */
export interface PermissionScope {
  organizationId?: string
}

/**
 * What app code calls on the server, bound to the request's session. Every call reads the
 * caller's membership from the store, so a removal or a role change counts at once.
 * Refusals throw `ExtensionRequestError` with a stable `code` (`forbidden`, `not-found`,
 * `last-owner`, …); without a session, `NotSignedIn`.
 */
export interface OrganizationsServer<Permission extends string = string, Role extends string = string> {
  /** The caller's organizations with their role in each, and the active one's id. */
  list(): Promise<{ organizations: OrganizationSummary[]; active: string | null }>
  /** One organization the caller belongs to (else `not-found`). */
  get(id: string): Promise<OrganizationDetails>
  /** Creates an organization with the caller as owner; it becomes active when none is. */
  create(input: CreateOrganizationInput): Promise<OrganizationDetails>
  /** Changes name, slug or metadata (`organization:update`). */
  update(id: string, patch: UpdateOrganizationInput): Promise<OrganizationDetails>
  /** Deletes the organization (`organization:delete`; needs a recent sign-in). */
  remove(id: string): Promise<{ deleted: true }>
  /** The members, with name and email. */
  members(id: string): Promise<MemberDetails[]>
  /** Gives a member another role (`member:role`; nobody grants above their own role). */
  setRole(id: string, userId: string, role: Role): Promise<{ userId: string; role: string }>
  /** Removes a member (`member:remove`; not one above the caller). */
  removeMember(id: string, userId: string): Promise<{ removed: true }>
  /** Leaves an organization (not its last owner). */
  leave(id: string): Promise<{ removed: true }>
  /** Invites by email and mails the link (`member:invite`). */
  invite(id: string, input: { email: string; role?: Role }): Promise<InvitationDetails>
  /** Withdraws a pending invitation (`member:invite`). */
  revokeInvitation(id: string, invitationId: string): Promise<{ revoked: true }>
  /** The pending invitations (`member:invite`). */
  invitations(id: string): Promise<InvitationDetails[]>
  /** Accepts an invitation with its token, as the signed-in user (verified, invited email). */
  accept(invitationId: string, token: string): Promise<{ organization: OrganizationSummary }>
  /** Switches the session's active organization (or clears it with `null`). */
  setActive(id: string | null): Promise<{ active: OrganizationSummary | null }>
  /** The session's active organization with the caller's role, or `null`. */
  active(): Promise<OrganizationSummary | null>
  /**
   * Whether the caller holds `permission` in the organization (default: the active one).
   * `false` when signed out, not a member, or without it — the one way an app asks.
   */
  can(permission: Permission, scope?: PermissionScope): Promise<boolean>
  /** As `can`, but throws `forbidden` (403) without the permission, `NotSignedIn` (401) without a session. */
  require(permission: Permission, scope?: PermissionScope): Promise<void>
}
