/**
 * Every operation of organizations, written once: the routes and the server functions both
 * call these, so a rule (who may grant which role, who may remove whom, which email may
 * accept) holds the same whichever way an app reaches it. Each takes the caller's session
 * from the tools, checks its membership in the store on every call (a removal takes effect
 * at once), and emits an audit event on success and on a refused attempt.
 * @module
 */
import { ExtensionRequestError, type ExtensionSession, type ExtensionTools } from "@portcullis/core/extension"
import type { Invitation, Membership, Organization, OrganizationStore } from "./store/types.js"
import type { RoleTable } from "./roles.js"
import { newToken, sha256Hex, tokenMatches } from "./secrets.js"
import { isId, normaliseEmail, parseEmail, parseMetadata, parseName, parseSlug, slugFromName } from "./validation.js"

/** What organizations keeps per configuration (its `locals`). */
export interface OrganizationsLocals {
  store: OrganizationStore
  roles: RoleTable
  /** Seconds an invitation stays valid. */
  invitationMaxAge: number
  /** Whether the accept page offers to create an account (core's password sign-up page). */
  signUp: boolean
  /** Where the accept page's form lands once accepted (a path of the site), unless its link named a `callbackUrl`. */
  afterAccept: string
  limits: { organizationsPerUser: number; membersPerOrganization: number }
  getUser(id: string): Promise<{ id: string; email?: string | null; emailVerified?: Date | null; name?: string | null } | null>
  getUserByEmail(email: string): Promise<{ id: string } | null>
}

/** An organization as its members see it in a list. */
export interface OrganizationSummary {
  id: string
  name: string
  slug: string
  /** The caller's role in it. */
  role: string
}

/** An organization with its details. */
export interface OrganizationDetails extends OrganizationSummary {
  metadata: Record<string, unknown> | null
  /** ISO 8601. */
  createdAt: string
}

/** A member, with the user's name and email when the adapter knows them. */
export interface MemberDetails {
  userId: string
  role: string
  name: string | null
  email: string | null
  /** ISO 8601. */
  joinedAt: string
}

/** An invitation as members with `member:invite` see it (never its token or hash). */
export interface InvitationDetails {
  id: string
  organizationId: string
  email: string
  role: string
  invitedBy: string
  status: Invitation["status"]
  /** ISO 8601. */
  expiresAt: string
  /** ISO 8601. */
  createdAt: string
}

/** The input of `create`. */
export interface CreateOrganizationInput {
  name: string
  /** Derived from the name when left out. */
  slug?: string
  metadata?: Record<string, unknown> | null
}

/** The input of `update`: only what is given changes. */
export interface UpdateOrganizationInput {
  name?: string
  slug?: string
  metadata?: Record<string, unknown> | null
}

/** A valid, pending invitation with its organization. */
export interface OpenInvitation {
  invitation: Invitation
  organization: Organization
}

const notFound = () => new ExtensionRequestError("not-found", "No such organization, or you are not a member of it", 404)
const forbidden = (message: string) => new ExtensionRequestError("forbidden", message, 403)
const unavailable = () => new ExtensionRequestError("invitation-unavailable", "This invitation is invalid, was used already, or has expired", 410)
const memberNotFound = () => new ExtensionRequestError("member-not-found", "This user is not a member of the organization", 404)
const memberChanged = () => new ExtensionRequestError("member-changed", "This member's role changed meanwhile; look again and retry", 409)

const summary = (organization: Organization, role: string): OrganizationSummary => ({ id: organization.id, name: organization.name, slug: organization.slug, role })
const details = (organization: Organization, role: string): OrganizationDetails => ({
  ...summary(organization, role),
  metadata: organization.metadata,
  createdAt: organization.createdAt.toISOString(),
})
const invitationDetails = (i: Invitation): InvitationDetails => ({
  id: i.id,
  organizationId: i.organizationId,
  email: i.email,
  role: i.role,
  invitedBy: i.invitedBy,
  status: i.status,
  expiresAt: i.expiresAt.toISOString(),
  createdAt: i.createdAt.toISOString(),
})

/**
 * Runs a follow-up step whose failure must not undo the answer of a change already made:
 * its store failure was counted by core's store wrapper (and shows in the next request that
 * needs the store); here it is only left out.
 */
async function settled<T>(step: () => Promise<T>): Promise<T | undefined> {
  try {
    return await step()
  } catch {
    return undefined
  }
}

/** A short random suffix for a derived slug that is taken (`acme-3f9a1c`). */
const suffix = () => [...crypto.getRandomValues(new Uint8Array(3))].map((b) => b.toString(16).padStart(2, "0")).join("")

/**
 * The invitation `id` when `token` is its token and it is pending and unexpired, with its
 * organization; otherwise `null` — the same for a missing, revoked, used or expired
 * invitation and a wrong token, so a guesser learns nothing. Also `null` once the inviter
 * may no longer grant the invitation's role (removed, or demoted below it): an invitation
 * carries its inviter's authority, and an admin demoted or removed must not keep it in
 * links they sent (to a second address of their own, say) and come back through them.
 */
export async function openInvitation(store: OrganizationStore, roles: RoleTable, id: unknown, token: unknown, now = new Date()): Promise<OpenInvitation | null> {
  if (!isId(id)) return null
  const invitation = await store.getInvitation(id)
  // The hash is compared even for a missing invitation, so both take the same time.
  const matches = await tokenMatches(token, invitation?.tokenHash ?? "0".repeat(64))
  if (!invitation || !matches || invitation.status !== "pending" || invitation.expiresAt <= now) return null
  const inviter = await store.getMembership(invitation.organizationId, invitation.invitedBy)
  if (!inviter || !roles.has(inviter.role, "member:invite") || !roles.mayGrant(inviter.role, invitation.role)) return null
  const organization = await store.getOrganization(invitation.organizationId)
  return organization ? { invitation, organization } : null
}

/** The active organization of `session` with the role in it, or `null`: at most two store reads. */
export async function activeOrganization(store: OrganizationStore, session: ExtensionSession): Promise<OrganizationSummary | null> {
  const id = await store.getActiveOrganization(session.key)
  if (id === null) return null
  // Read with the membership, so a removal since the switch shows as no active organization.
  const mine = await store.listOrganizations(session.userId)
  const found = mine.find((entry) => entry.organization.id === id)
  return found ? summary(found.organization, found.role) : null
}

/** The operations of one call (a request or a server-function call). */
export type OrganizationOperations = ReturnType<typeof organizationOperations>

/**
 * The operations, bound to one call's tools (its session, audit, mail) and the
 * configuration's locals.
 */
export function organizationOperations(tools: ExtensionTools, locals: OrganizationsLocals) {
  const { store, roles, limits } = locals

  const audit = (type: string, outcome: "success" | "failure", userId: string, details: Record<string, string | number | boolean | null>, reason?: string) =>
    tools.audit({ type, outcome, userId, ...(reason !== undefined && { reason }), details })

  /**
   * The caller's membership of `organizationId` when their role holds `permission`. Not a
   * member (or no such organization): 404, the same either way, so ids can't be probed.
   */
  async function authorize(organizationId: unknown, permission: string, event: string, session?: ExtensionSession): Promise<{ session: ExtensionSession; membership: Membership }> {
    const actor = session ?? (await tools.requireSession())
    const membership = isId(organizationId) ? await store.getMembership(organizationId, actor.userId) : null
    if (!membership) {
      await audit(event, "failure", actor.userId, { organizationId: isId(organizationId) ? organizationId : null }, "not-member")
      throw notFound()
    }
    if (!roles.has(membership.role, permission)) {
      await audit(event, "failure", actor.userId, { organizationId: membership.organizationId, role: membership.role, permission }, "forbidden")
      throw forbidden(`Your role (${membership.role}) does not have ${permission}`)
    }
    return { session: actor, membership }
  }

  function knownRole(role: unknown): string {
    if (typeof role !== "string" || !roles.permissions(role)) throw new ExtensionRequestError("unknown-role", `Unknown role; one of: ${roles.names.join(", ")}`, 422)
    return role
  }

  async function organizationOrNotFound(id: string): Promise<Organization> {
    const organization = await store.getOrganization(id)
    if (!organization) throw notFound()
    return organization
  }

  async function permitted(permission: string, options: { organizationId?: string } = {}): Promise<boolean> {
    const session = await tools.session()
    if (!session) return false
    const organizationId = options.organizationId ?? (await store.getActiveOrganization(session.key))
    if (!isId(organizationId)) return false
    const membership = await store.getMembership(organizationId, session.userId)
    return membership !== null && roles.has(membership.role, permission)
  }

  return {
    /** The caller's organizations with their role in each, and the active one's id. */
    async list(): Promise<{ organizations: OrganizationSummary[]; active: string | null }> {
      const session = await tools.requireSession()
      const [mine, active] = await Promise.all([store.listOrganizations(session.userId), store.getActiveOrganization(session.key)])
      const organizations = mine.map((entry) => summary(entry.organization, entry.role))
      return { organizations, active: organizations.some((o) => o.id === active) ? active : null }
    },

    /** Creates an organization with the caller as its owner; it becomes active when none is. */
    async create(input: CreateOrganizationInput): Promise<OrganizationDetails> {
      const session = await tools.requireSession()
      const body = (input ?? {}) as Partial<Record<keyof CreateOrganizationInput, unknown>>
      const name = parseName(body.name)
      const explicit = body.slug !== undefined && body.slug !== null && body.slug !== ""
      const slug = explicit ? parseSlug(body.slug) : slugFromName(name)
      const metadata = body.metadata === undefined ? null : parseMetadata(body.metadata)
      const mine = await store.listOrganizations(session.userId)
      if (mine.length >= limits.organizationsPerUser) {
        await audit("created", "failure", session.userId, { limit: limits.organizationsPerUser }, "organization-limit")
        throw new ExtensionRequestError("organization-limit", `You may belong to at most ${limits.organizationsPerUser} organizations`, 409)
      }
      // A derived slug that is taken gets a random suffix; one the caller chose is refused.
      for (let attempt = 0; attempt < (explicit ? 1 : 4); attempt++) {
        const now = new Date()
        const organization: Organization = { id: crypto.randomUUID(), name, slug: attempt === 0 ? slug : `${slug}-${suffix()}`, metadata, createdAt: now }
        const created = await store.createOrganization(organization, { organizationId: organization.id, userId: session.userId, role: "owner", createdAt: now })
        if (!created) continue
        // The organization exists now: a store that fails to mark it active must not answer
        // 503 for a change that was made (the caller would retry into "slug-taken").
        await settled(async () => {
          if ((await store.getActiveOrganization(session.key)) === null) await store.setActiveOrganization(session.key, organization.id, session.expires)
        })
        await audit("created", "success", session.userId, { organizationId: organization.id, slug: organization.slug })
        return details(organization, "owner")
      }
      throw new ExtensionRequestError("slug-taken", "This slug is taken; choose another", 409)
    },

    /** One organization the caller belongs to. */
    async get(id: string): Promise<OrganizationDetails> {
      const { membership } = await authorize(id, "organization:read", "read")
      return details(await organizationOrNotFound(membership.organizationId), membership.role)
    },

    /** Changes name, slug or metadata (`organization:update`). */
    async update(id: string, patch: UpdateOrganizationInput): Promise<OrganizationDetails> {
      const body = (patch ?? {}) as Partial<Record<keyof UpdateOrganizationInput, unknown>>
      const change: { name?: string; slug?: string; metadata?: Record<string, unknown> | null } = {}
      if (body.name !== undefined) change.name = parseName(body.name)
      if (body.slug !== undefined) change.slug = parseSlug(body.slug)
      if (body.metadata !== undefined) change.metadata = parseMetadata(body.metadata)
      const { session, membership } = await authorize(id, "organization:update", "updated")
      const updated = await store.updateOrganization(membership.organizationId, change)
      if (updated === null) throw notFound()
      if (updated === "slug-taken") throw new ExtensionRequestError("slug-taken", "This slug is taken; choose another", 409)
      await audit("updated", "success", session.userId, { organizationId: updated.id, fields: Object.keys(change).join(",") })
      return details(updated, membership.role)
    },

    /** Deletes the organization with its members and invitations (`organization:delete`, a recent sign-in). */
    async remove(id: string): Promise<{ deleted: true }> {
      const session = await tools.requireSession({ stepUp: true })
      const { membership } = await authorize(id, "organization:delete", "deleted", session)
      await store.deleteOrganization(membership.organizationId)
      await audit("deleted", "success", session.userId, { organizationId: membership.organizationId })
      return { deleted: true }
    },

    /** The members, with names and emails (any member may read them). */
    async members(id: string): Promise<MemberDetails[]> {
      const { membership } = await authorize(id, "organization:read", "read")
      const members = await store.listMembers(membership.organizationId)
      return Promise.all(
        members.map(async (m) => {
          const user = await locals.getUser(m.userId)
          return { userId: m.userId, role: m.role, name: user?.name ?? null, email: user?.email ?? null, joinedAt: m.createdAt.toISOString() }
        }),
      )
    },

    /**
     * Gives a member another role (`member:role`): only when the caller's permissions cover
     * both the member's current role and the new one; `owner` only by an owner. The last
     * owner can't be moved off `owner` (409 `last-owner`).
     */
    async setRole(id: string, userId: string, role: string): Promise<{ userId: string; role: string }> {
      const { session, membership } = await authorize(id, "member:role", "roleChanged")
      const wanted = knownRole(role)
      const target = isId(userId) ? await store.getMembership(membership.organizationId, userId) : null
      if (!target) throw memberNotFound()
      if (!roles.mayManage(membership.role, target.role) || !roles.mayGrant(membership.role, wanted)) {
        await audit("roleChanged", "failure", session.userId, { organizationId: membership.organizationId, targetUserId: target.userId, role: wanted, actorRole: membership.role }, "escalation")
        throw forbidden("Nobody grants a role above their own, or changes a member above them")
      }
      // Making someone an owner, or taking ownership away, hands over or takes the whole
      // organization: a sensitive action, behind a recent re-authentication (docs/step-up.md),
      // so a stolen session cookie cannot transfer it.
      if ((wanted === "owner") !== (target.role === "owner")) await tools.requireSession({ stepUp: true })
      // Only if the role is still the one checked above: an owner made meanwhile is out of reach.
      const outcome = await store.setRole(membership.organizationId, target.userId, wanted, target.role)
      if (outcome === "missing") throw memberNotFound()
      if (outcome === "changed") throw memberChanged()
      if (outcome === "last-owner") throw new ExtensionRequestError("last-owner", "The last owner can't be given another role; make someone else owner first", 409)
      await audit("roleChanged", "success", session.userId, { organizationId: membership.organizationId, targetUserId: target.userId, role: wanted, previousRole: target.role })
      return { userId: target.userId, role: wanted }
    },

    /** Removes a member (`member:remove`, and a role covering theirs); the caller themselves: as `leave`. */
    async removeMember(id: string, userId: string): Promise<{ removed: true }> {
      const session = await tools.requireSession()
      if (userId === session.userId) return leave(id, session)
      const { membership } = await authorize(id, "member:remove", "memberRemoved", session)
      const target = isId(userId) ? await store.getMembership(membership.organizationId, userId) : null
      if (!target) throw memberNotFound()
      if (!roles.mayManage(membership.role, target.role)) {
        await audit("memberRemoved", "failure", session.userId, { organizationId: membership.organizationId, targetUserId: target.userId, role: target.role, actorRole: membership.role }, "escalation")
        throw forbidden("Nobody removes a member whose role is above their own")
      }
      // Removing an owner takes a share of the organization away: as for a role change above.
      if (target.role === "owner") await tools.requireSession({ stepUp: true })
      // Only if the role is still the one checked above: an owner made meanwhile is out of reach.
      const outcome = await store.removeMember(membership.organizationId, target.userId, target.role)
      if (outcome === "missing") throw memberNotFound()
      if (outcome === "changed") throw memberChanged()
      if (outcome === "last-owner") throw new ExtensionRequestError("last-owner", "The last owner can't be removed", 409)
      await audit("memberRemoved", "success", session.userId, { organizationId: membership.organizationId, targetUserId: target.userId, role: target.role })
      return { removed: true }
    },

    /** Leaves an organization; anyone may, except its last owner (409 `last-owner`). */
    leave: (id: string) => leave(id),

    /** The pending invitations (`member:invite`). */
    async invitations(id: string): Promise<InvitationDetails[]> {
      const { membership } = await authorize(id, "member:invite", "read")
      return (await store.listInvitations(membership.organizationId, new Date())).map(invitationDetails)
    },

    /**
     * Invites `email` with `role` (`member:invite`, and a role the caller may grant), and
     * mails the link. Needs a trusted origin: the link is handed to someone else.
     */
    async invite(id: string, input: { email: string; role?: string }): Promise<InvitationDetails> {
      const body = (input ?? {}) as { email?: unknown; role?: unknown }
      const email = parseEmail(body.email)
      const role = knownRole(body.role ?? "member")
      const { session, membership } = await authorize(id, "member:invite", "invitationCreated")
      const organizationId = membership.organizationId
      if (!roles.mayGrant(membership.role, role)) {
        await audit("invitationCreated", "failure", session.userId, { organizationId, role, actorRole: membership.role }, "escalation")
        throw forbidden("Nobody invites with a role above their own")
      }
      // A forged Host would otherwise put the invitee's token in a link to the forger's site.
      if (!tools.originTrusted) {
        throw new ExtensionRequestError("untrusted-origin", "Invitation links need a trusted origin: set AUTH_URL, or list this origin in trustedOrigins", 400)
      }
      const organization = await organizationOrNotFound(organizationId)
      const existing = await locals.getUserByEmail(email)
      if (existing && (await store.getMembership(organizationId, existing.id))) {
        throw new ExtensionRequestError("already-member", "This person is a member already", 409)
      }
      if ((await store.listMembers(organizationId)).length >= limits.membersPerOrganization) {
        throw new ExtensionRequestError("member-limit", `An organization may have at most ${limits.membersPerOrganization} members`, 409)
      }
      const token = newToken()
      const now = new Date()
      const invitation: Invitation = {
        id: crypto.randomUUID(),
        organizationId,
        email,
        role,
        invitedBy: session.userId,
        tokenHash: await sha256Hex(token),
        status: "pending",
        expiresAt: new Date(now.getTime() + locals.invitationMaxAge * 1000),
        createdAt: now,
        acceptedBy: null,
      }
      // Stored before it is mailed: a link is never sent for an invitation the store lacks.
      await store.createInvitation(invitation)
      const inviter = await locals.getUser(session.userId).catch(() => null)
      const values = { organization: organization.name, inviter: inviter?.name || session.email || inviter?.email || organization.name }
      try {
        await tools.mail({
          to: email,
          url: `${tools.authUrl}/organizations/invitations/${encodeURIComponent(invitation.id)}?token=${token}`,
          expires: invitation.expiresAt,
          messages: {
            subject: tools.t("email.subject", values),
            heading: tools.t("email.heading", values),
            button: tools.t("email.button"),
            expires: tools.t("email.expires"),
            ignore: tools.t("email.ignore"),
          },
        })
      } catch (error) {
        // Not mailed, so not usable: withdraw it rather than leave a pending invitation nobody holds.
        await store.revokeInvitation(organizationId, invitation.id).catch(() => undefined)
        throw error
      }
      await audit("invitationCreated", "success", session.userId, { organizationId, invitationId: invitation.id, email, role })
      return invitationDetails(invitation)
    },

    /** Withdraws a pending invitation (`member:invite`). */
    async revokeInvitation(id: string, invitationId: string): Promise<{ revoked: true }> {
      const { session, membership } = await authorize(id, "member:invite", "invitationRevoked")
      const revoked = isId(invitationId) && (await store.revokeInvitation(membership.organizationId, invitationId))
      if (!revoked) throw new ExtensionRequestError("invitation-not-found", "No such pending invitation", 404)
      await audit("invitationRevoked", "success", session.userId, { organizationId: membership.organizationId, invitationId })
      return { revoked: true }
    },

    /**
     * Accepts an invitation with its token, for the signed-in user, whose verified email
     * must be the invited one; the organization becomes the session's active one.
     */
    async accept(invitationId: string, token: string): Promise<{ organization: OrganizationSummary }> {
      const session = await tools.requireSession()
      const open = await openInvitation(store, roles, invitationId, token)
      if (!open) {
        await audit("invitationAccepted", "failure", session.userId, { invitationId: isId(invitationId) ? invitationId : null }, "invalid")
        throw unavailable()
      }
      const { invitation, organization } = open
      const user = await locals.getUser(session.userId)
      const email = user?.email ?? session.email
      const refuse = async (code: "email-mismatch" | "email-unverified", message: string) => {
        await audit("invitationAccepted", "failure", session.userId, { organizationId: organization.id, invitationId: invitation.id }, code)
        return new ExtensionRequestError(code, message, 403)
      }
      // A forwarded link is useless: only the invited address's owner accepts, and only once it is proven theirs.
      if (!email || normaliseEmail(email) !== invitation.email) throw await refuse("email-mismatch", "This invitation is for another email address")
      if (!user?.emailVerified) throw await refuse("email-unverified", "Confirm your email address before accepting an invitation")
      if ((await store.listMembers(organization.id)).length >= limits.membersPerOrganization) {
        throw new ExtensionRequestError("member-limit", `An organization may have at most ${limits.membersPerOrganization} members`, 409)
      }
      const outcome = await store.acceptInvitation(invitation.id, session.userId, new Date())
      if (outcome === "missing" || outcome === "unavailable") {
        await audit("invitationAccepted", "failure", session.userId, { organizationId: organization.id, invitationId: invitation.id }, "unavailable")
        throw unavailable()
      }
      // The membership exists now (the invitation is used up): marking it active is a
      // convenience, and its failure must not answer 503 for a join a retry can't repeat.
      await settled(() => store.setActiveOrganization(session.key, organization.id, session.expires))
      await audit("invitationAccepted", "success", session.userId, { organizationId: organization.id, invitationId: invitation.id, role: invitation.role })
      if (outcome === "accepted") await audit("memberAdded", "success", session.userId, { organizationId: organization.id, targetUserId: session.userId, role: invitation.role })
      // A member already keeps the role they had; a new one has the invitation's.
      const role = outcome === "accepted" ? invitation.role : ((await settled(() => store.getMembership(organization.id, session.userId)))?.role ?? invitation.role)
      return { organization: summary(organization, role) }
    },

    /** Makes `organizationId` the session's active organization (the caller must be a member), or clears it with `null`. */
    async setActive(organizationId: string | null): Promise<{ active: OrganizationSummary | null }> {
      const session = await tools.requireSession()
      if (organizationId === null) {
        await store.setActiveOrganization(session.key, null, session.expires)
        await audit("activeChanged", "success", session.userId, { organizationId: null })
        return { active: null }
      }
      const { membership } = await authorize(organizationId, "organization:read", "activeChanged", session)
      const organization = await organizationOrNotFound(membership.organizationId)
      await store.setActiveOrganization(session.key, organization.id, session.expires)
      await audit("activeChanged", "success", session.userId, { organizationId: organization.id })
      return { active: summary(organization, membership.role) }
    },

    /** The session's active organization with the caller's role, or `null` (also when signed out). */
    async active(): Promise<OrganizationSummary | null> {
      const session = await tools.session()
      return session ? activeOrganization(store, session) : null
    },

    /** Whether the caller's role holds `permission` in `organizationId` (default: the active organization); `false` when signed out. */
    can: permitted,

    /** As `can`, but throws: `NotSignedIn` (401) without a session, `forbidden` (403) without the permission. */
    async require(permission: string, options: { organizationId?: string } = {}): Promise<void> {
      const session = await tools.requireSession()
      if (await permitted(permission, options)) return
      await audit("forbidden", "failure", session.userId, { organizationId: options.organizationId ?? null, permission }, "forbidden")
      throw forbidden(`You don't have ${permission} here`)
    },
  }

  async function leave(id: string, known?: ExtensionSession): Promise<{ removed: true }> {
    const session = known ?? (await tools.requireSession())
    const { membership } = await authorize(id, "organization:read", "memberRemoved", session)
    const outcome = await store.removeMember(membership.organizationId, session.userId)
    if (outcome === "missing") throw notFound()
    if (outcome === "last-owner") {
      await audit("memberRemoved", "failure", session.userId, { organizationId: membership.organizationId, targetUserId: session.userId }, "last-owner")
      throw new ExtensionRequestError("last-owner", "The last owner can't leave; make someone else owner, or delete the organization", 409)
    }
    if ((await store.getActiveOrganization(session.key)) === membership.organizationId) await store.setActiveOrganization(session.key, null, session.expires)
    await audit("memberRemoved", "success", session.userId, { organizationId: membership.organizationId, targetUserId: session.userId, role: membership.role, left: true })
    return { removed: true }
  }
}
