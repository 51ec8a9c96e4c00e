/**
 * Organizations kept in process memory: for tests, demos and single-process prototypes.
 * Every method does its work in one synchronous step after its first `await`-free line, so
 * on one event loop no other call can see or cause a half-done change.
 * @module
 */
import { MissingOrganization } from "./errors.js"
import type { Invitation, Membership, Organization, OrganizationStore, OwnerGuarded } from "./types.js"

/** Copies keep callers from changing what the next caller reads; `structuredClone` keeps `Date`s. */
const copy = structuredClone

const byCreatedThenId = <T extends { createdAt: Date }>(id: (value: T) => string) => (a: T, b: T) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0)

/**
 * Creates an empty in-memory organization store. Each call has its own maps.
 *
 * @example
 * ```ts
 * import { memoryOrganizationStore } from "@portcullis/organizations/testing"
 *
 * const store = memoryOrganizationStore()
 * await store.createOrganization(organization, { organizationId: organization.id, userId, role: "owner", createdAt: new Date() })
 * ```
 */
export function memoryOrganizationStore(): OrganizationStore {
  const organizations = new Map<string, Organization>()
  const idBySlug = new Map<string, string>()
  /** Organization id → user id → membership. */
  const members = new Map<string, Map<string, Membership>>()
  const invitations = new Map<string, Invitation>()
  const active = new Map<string, { organizationId: string; expires: Date }>()

  const owners = (organizationId: string) =>
    [...(members.get(organizationId)?.values() ?? [])].filter((m) => m.role === "owner").length

  /** Whether changing `userId`'s membership away from `owner` would leave the organization without one. */
  function guard(organizationId: string, userId: string, nextRole: string | null, expectedRole: string | undefined): OwnerGuarded {
    const membership = members.get(organizationId)?.get(userId)
    if (!membership) return "missing"
    if (expectedRole !== undefined && membership.role !== expectedRole) return "changed"
    if (membership.role === "owner" && nextRole !== "owner" && owners(organizationId) <= 1) return "last-owner"
    return "ok"
  }

  return {
    async createOrganization(organization, owner) {
      if (idBySlug.has(organization.slug)) return false
      organizations.set(organization.id, copy(organization))
      idBySlug.set(organization.slug, organization.id)
      members.set(organization.id, new Map([[owner.userId, copy({ ...owner, organizationId: organization.id, role: "owner" })]]))
      return true
    },

    async getOrganization(id) {
      const found = organizations.get(id)
      return found ? copy(found) : null
    },

    async getOrganizationBySlug(slug) {
      const id = idBySlug.get(slug)
      return id === undefined ? null : copy(organizations.get(id)!)
    },

    async updateOrganization(id, patch) {
      const current = organizations.get(id)
      if (!current) return null
      if (patch.slug !== undefined && patch.slug !== current.slug) {
        if (idBySlug.has(patch.slug)) return "slug-taken"
        idBySlug.delete(current.slug)
        idBySlug.set(patch.slug, id)
      }
      const next: Organization = {
        ...current,
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.slug !== undefined && { slug: patch.slug }),
        ...(patch.metadata !== undefined && { metadata: copy(patch.metadata) }),
      }
      organizations.set(id, next)
      return copy(next)
    },

    async deleteOrganization(id) {
      const current = organizations.get(id)
      if (!current) return
      organizations.delete(id)
      idBySlug.delete(current.slug)
      members.delete(id)
      for (const [key, invitation] of invitations) if (invitation.organizationId === id) invitations.delete(key)
      for (const [key, mark] of active) if (mark.organizationId === id) active.delete(key)
    },

    async listOrganizations(userId) {
      const found: Array<{ organization: Organization; role: string; createdAt: Date }> = []
      for (const [organizationId, byUser] of members) {
        const membership = byUser.get(userId)
        if (membership) found.push({ organization: organizations.get(organizationId)!, role: membership.role, createdAt: membership.createdAt })
      }
      return found.sort(byCreatedThenId((entry) => entry.organization.id))
        .map(({ organization, role }) => ({ organization: copy(organization), role }))
    },

    async getMembership(organizationId, userId) {
      const found = members.get(organizationId)?.get(userId)
      return found ? copy(found) : null
    },

    async listMembers(organizationId) {
      return [...(members.get(organizationId)?.values() ?? [])].sort(byCreatedThenId((m) => m.userId)).map((m) => copy(m))
    },

    async addMember(membership, limit) {
      const byUser = members.get(membership.organizationId)
      if (!organizations.has(membership.organizationId) || !byUser) return "missing"
      if (byUser.has(membership.userId)) return "already-member"
      if (limit !== undefined && byUser.size >= limit) return "full"
      byUser.set(membership.userId, copy(membership))
      return "added"
    },

    async setRole(organizationId, userId, role, expectedRole) {
      const outcome = guard(organizationId, userId, role, expectedRole)
      if (outcome === "ok") members.get(organizationId)!.get(userId)!.role = role
      return outcome
    },

    async removeMember(organizationId, userId, expectedRole) {
      const outcome = guard(organizationId, userId, null, expectedRole)
      if (outcome === "ok") members.get(organizationId)!.delete(userId)
      return outcome
    },

    async createInvitation(invitation) {
      // As a foreign key does in SQL: an invitation never outlives, or predates, its organization.
      if (!organizations.has(invitation.organizationId)) throw new MissingOrganization(invitation.organizationId)
      invitations.set(invitation.id, copy({ ...invitation, acceptedBy: invitation.acceptedBy ?? null }))
    },

    async getInvitation(id) {
      const found = invitations.get(id)
      return found ? copy(found) : null
    },

    async listInvitations(organizationId, now) {
      return [...invitations.values()]
        .filter((i) => i.organizationId === organizationId && i.status === "pending" && i.expiresAt > now)
        .sort(byCreatedThenId((i) => i.id))
        .reverse()
        .map((i) => copy(i))
    },

    async revokeInvitation(organizationId, id) {
      const invitation = invitations.get(id)
      if (!invitation || invitation.organizationId !== organizationId || invitation.status !== "pending") return false
      invitation.status = "revoked"
      return true
    },

    async acceptInvitation(id, userId, now) {
      const invitation = invitations.get(id)
      if (!invitation) return "missing"
      if (invitation.status !== "pending" || invitation.expiresAt <= now) return "unavailable"
      invitation.status = "accepted"
      invitation.acceptedBy = userId
      const byUser = members.get(invitation.organizationId)!
      if (byUser.has(userId)) return "already-member"
      byUser.set(userId, { organizationId: invitation.organizationId, userId, role: invitation.role, createdAt: new Date(now) })
      return "accepted"
    },

    async getActiveOrganization(sessionKey) {
      const mark = active.get(sessionKey)
      if (!mark) return null
      if (mark.expires.getTime() <= Date.now()) {
        active.delete(sessionKey)
        return null
      }
      return mark.organizationId
    },

    async setActiveOrganization(sessionKey, organizationId, expires) {
      if (organizationId === null) {
        active.delete(sessionKey)
        return
      }
      if (!organizations.has(organizationId)) throw new MissingOrganization(organizationId)
      active.set(sessionKey, { organizationId, expires: new Date(expires) })
    },
  }
}
