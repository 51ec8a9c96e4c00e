/**
 * The organization store on Redis (standalone or Cluster) through ioredis.
 *
 * Every rule of the contract is kept by one Lua script on one organization's keys (one
 * slot): single-use accepts, the last-owner guard, membership changes. The three indexes in
 * other slots are written in an order that makes a cut-off sequence harmless, and every
 * read through an index checks what it finds against the organization's own keys:
 *
 * - Slug (`slug:<slug>` → `{ id, at }`): claimed with SET NX *before* the organization is
 *   written, released after it is deleted or renamed. The claim, not the record, decides
 *   uniqueness. A lookup by slug answers only if the organization still has that slug. A
 *   claim left by a cut-off sequence (its organization missing, or named otherwise) is taken
 *   over by a compare-and-set once it is older than {@link STALE_CLAIM_MS}; until then, that
 *   slug is refused to others (never given twice).
 * - A user's organizations (`user-orgs:<user>`): added to *before* a membership can begin,
 *   removed from *after* it ended; `listOrganizations` keeps only the entries where the
 *   user is a member. A leftover entry is filtered out, a missing one cannot arise from a
 *   cut-off sequence. (One race remains: a member removed and re-invited at the same instant
 *   can lose the entry; removal re-adds it when it sees the membership back.)
 * - An invitation's organization (`invitation-org:<id>`): written before the invitation,
 *   never changed; the invitation itself is the authority.
 * @module
 */
import type { Cluster, Redis } from "ioredis"
import { MissingOrganization } from "../store/errors.js"
import type { AcceptOutcome, AddMemberOutcome, Invitation, InvitationStatus, Membership, Organization, OrganizationStore, OwnerGuarded } from "../store/types.js"
import { organizationRedisKeys } from "./keys.js"
import { ACCEPT, ADD_MEMBER, CHANGE_MEMBER, CREATE, DELETE, INVITE, RELEASE_SLUG, REVOKE, run, TAKE_OVER_SLUG, UPDATE } from "./scripts.js"

/** Options of {@link redisOrganizationStore}. */
export interface RedisOrganizationStoreOptions {
  /** Prefix of every key. Default `portcullis:organizations:`. */
  prefix?: string
}

/**
 * How old a slug claim without its organization must be before another organization may
 * take it over: far longer than the two commands between a claim and the organization's
 * creation, so a creation in flight is never mistaken for a leftover.
 */
export const STALE_CLAIM_MS = 60_000

type Hash = Record<string, string>

function organizationFromHash(hash: Hash): Organization | null {
  if (hash.id === undefined) return null
  return {
    id: hash.id,
    name: hash.name ?? "",
    slug: hash.slug ?? "",
    metadata: JSON.parse(hash.metadata ?? "null") as Record<string, unknown> | null,
    createdAt: new Date(Number(hash.createdAt)),
  }
}

function invitationFromHash(hash: Hash): Invitation | null {
  if (hash.id === undefined) return null
  return {
    id: hash.id,
    organizationId: hash.organizationId ?? "",
    email: hash.email ?? "",
    role: hash.role ?? "",
    invitedBy: hash.invitedBy ?? "",
    tokenHash: hash.tokenHash ?? "",
    status: hash.status as InvitationStatus,
    expiresAt: new Date(Number(hash.expiresAt)),
    createdAt: new Date(Number(hash.createdAt)),
    acceptedBy: hash.acceptedBy ? hash.acceptedBy : null,
  }
}

const oldestFirst = <T>(createdAt: (value: T) => number, id: (value: T) => string) => (a: T, b: T) =>
  createdAt(a) - createdAt(b) || (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0)

/**
 * Creates the organization store on an ioredis client or Cluster.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { redisOrganizationStore } from "@portcullis/organizations/redis"
 *
 * const redis = new Redis(process.env.REDIS_URL!)
 * const store = redisOrganizationStore(redis, { prefix: "myapp:orgs:" })
 * ```
 */
export function redisOrganizationStore(client: Redis | Cluster, options: RedisOrganizationStoreOptions = {}): OrganizationStore {
  const k = organizationRedisKeys(options.prefix ?? "portcullis:organizations:")

  async function readOrganization(id: string): Promise<Organization | null> {
    return organizationFromHash(await client.hgetall(k.organization(id).info))
  }

  /**
   * Claims `slug` for organization `id`: true when it is now (or already was) this
   * organization's. A claim whose organization is gone, or has another slug now, is taken
   * over once it is stale, by compare-and-set, so two takers cannot both win.
   */
  async function claimSlug(slug: string, id: string): Promise<boolean> {
    const key = k.slug(slug)
    const claim = JSON.stringify({ id, at: Date.now() })
    for (let attempt = 0; attempt < 3; attempt++) {
      if ((await client.set(key, claim, "NX")) === "OK") return true
      const held = await client.get(key)
      if (held === null) continue // released meanwhile: try again
      const { id: holder, at } = JSON.parse(held) as { id: string; at: number }
      if (holder === id) return true
      if ((await client.hget(k.organization(holder).info, "slug")) === slug) return false
      if (Date.now() - at < STALE_CLAIM_MS) return false
      return (await run(client, TAKE_OVER_SLUG, [key], [held, claim])) === 1
    }
    return false
  }

  const releaseSlug = (slug: string, id: string) => run(client, RELEASE_SLUG, [k.slug(slug)], [id])

  async function changeMember(organizationId: string, userId: string, nextRole: string | null, expectedRole: string | undefined): Promise<OwnerGuarded> {
    const o = k.organization(organizationId)
    const outcome = (await run(client, CHANGE_MEMBER, [o.roles, o.since, o.owners], [userId, nextRole === null ? "1" : "0", nextRole ?? "", expectedRole ?? ""])) as OwnerGuarded
    if (outcome === "ok" && nextRole === null) {
      // After the membership ended; re-added if an accept made them a member again meanwhile.
      await client.srem(k.userOrganizations(userId), organizationId)
      if ((await client.hexists(o.roles, userId)) === 1) await client.sadd(k.userOrganizations(userId), organizationId)
    }
    return outcome
  }

  return {
    async createOrganization(organization, owner) {
      if (!(await claimSlug(organization.slug, organization.id))) return false
      const o = k.organization(organization.id)
      // The index entry goes first: a membership never exists without it.
      await client.sadd(k.userOrganizations(owner.userId), organization.id)
      // No release of the claim when this fails: a script whose answer was lost (a timeout, a
      // dropped connection) may still run, and an organization without its claim would let
      // another take the slug. A claim left without its organization goes stale instead.
      const created = await run(client, CREATE, [o.info, o.roles, o.since, o.owners], [
        organization.id, organization.name, organization.slug, JSON.stringify(organization.metadata),
        organization.createdAt.getTime(), owner.userId, owner.createdAt.getTime(),
      ])
      if (created !== 1) throw new Error(`an organization with id ${JSON.stringify(organization.id)} exists already`)
      return true
    },

    getOrganization: readOrganization,

    async getOrganizationBySlug(slug) {
      const held = await client.get(k.slug(slug))
      if (held === null) return null
      const organization = await readOrganization((JSON.parse(held) as { id: string }).id)
      // A claim outlives its organization's rename or deletion until it is released.
      return organization?.slug === slug ? organization : null
    },

    async updateOrganization(id, patch) {
      let claimed: string | undefined
      if (patch.slug !== undefined) {
        const current = await readOrganization(id)
        if (!current) return null
        if (current.slug !== patch.slug) {
          if (!(await claimSlug(patch.slug, id))) return "slug-taken"
          claimed = patch.slug
        }
      }
      const flag = (value: unknown) => (value === undefined ? "0" : "1")
      const previous = (await run(client, UPDATE, [k.organization(id).info], [
        flag(patch.name), patch.name ?? "",
        flag(patch.slug), patch.slug ?? "",
        flag(patch.metadata), patch.metadata === undefined ? "" : JSON.stringify(patch.metadata),
      ])) as string | null
      if (previous === null) {
        if (claimed !== undefined) await releaseSlug(claimed, id)
        return null
      }
      // The slug this change replaced, as the script saw it: right also when renames overlap.
      if (patch.slug !== undefined && previous !== patch.slug) await releaseSlug(previous, id)
      return readOrganization(id)
    },

    async deleteOrganization(id) {
      const o = k.organization(id)
      const deleted = (await run(client, DELETE, [o.info, o.roles, o.since, o.owners, o.invitations], [o.invitationPrefix])) as [string, string[], string[]] | null
      if (!deleted) return
      const [slug, users, invitations] = deleted
      // The organization is gone; what follows only tidies indexes every read checks anyway.
      await releaseSlug(slug, id)
      await Promise.all(users.map((userId) => client.srem(k.userOrganizations(userId), id)))
      if (invitations.length > 0) await Promise.all(invitations.map((invitationId) => client.del(k.invitationOrganization(invitationId))))
    },

    async listOrganizations(userId) {
      const ids = await client.smembers(k.userOrganizations(userId))
      const found = await Promise.all(ids.map(async (id) => {
        const o = k.organization(id)
        // One slot: one MULTI reads the record and the membership as of one instant.
        const replies = (await client.multi().hgetall(o.info).hget(o.roles, userId).hget(o.since, userId).exec()) ?? []
        const [[, info], [, role], [, since]] = replies as Array<[Error | null, unknown]>
        const organization = organizationFromHash((info ?? {}) as Hash)
        return organization && typeof role === "string" ? { organization, role, since: Number(since) } : null
      }))
      return found.filter((entry) => entry !== null)
        .sort(oldestFirst((e) => e.since, (e) => e.organization.id))
        .map(({ organization, role }) => ({ organization, role }))
    },

    async getMembership(organizationId, userId) {
      const o = k.organization(organizationId)
      const replies = (await client.multi().hget(o.roles, userId).hget(o.since, userId).exec()) ?? []
      const [[, role], [, since]] = replies as Array<[Error | null, unknown]>
      return typeof role === "string" ? { organizationId, userId, role, createdAt: new Date(Number(since)) } : null
    },

    async listMembers(organizationId) {
      const o = k.organization(organizationId)
      const replies = (await client.multi().hgetall(o.roles).hgetall(o.since).exec()) ?? []
      const [[, roles], [, since]] = replies as Array<[Error | null, Hash]>
      return Object.entries(roles ?? {})
        .map(([userId, role]): Membership => ({ organizationId, userId, role, createdAt: new Date(Number(since?.[userId])) }))
        .sort(oldestFirst((m) => m.createdAt.getTime(), (m) => m.userId))
    },

    async addMember(membership, limit) {
      const o = k.organization(membership.organizationId)
      // Before the membership can begin (see the module's notes); harmless if the add is refused.
      await client.sadd(k.userOrganizations(membership.userId), membership.organizationId)
      return (await run(client, ADD_MEMBER, [o.info, o.roles, o.since, o.owners], [
        membership.userId, membership.role, membership.createdAt.getTime(), limit ?? "",
      ])) as AddMemberOutcome
    },

    setRole: (organizationId, userId, role, expectedRole) => changeMember(organizationId, userId, role, expectedRole),
    removeMember: (organizationId, userId, expectedRole) => changeMember(organizationId, userId, null, expectedRole),

    async createInvitation(invitation) {
      const o = k.organization(invitation.organizationId)
      // The pointer first: an invitation is never there without the way to find it.
      await client.set(k.invitationOrganization(invitation.id), invitation.organizationId)
      const created = await run(client, INVITE, [o.info, o.invitations, o.invitation(invitation.id)], [
        invitation.id, invitation.organizationId, invitation.email, invitation.role, invitation.invitedBy,
        invitation.tokenHash, invitation.status, invitation.expiresAt.getTime(), invitation.createdAt.getTime(), invitation.acceptedBy ?? "",
      ])
      if (created !== 1) {
        await client.del(k.invitationOrganization(invitation.id))
        throw new MissingOrganization(invitation.organizationId)
      }
    },

    async getInvitation(id) {
      const organizationId = await client.get(k.invitationOrganization(id))
      if (organizationId === null) return null
      return invitationFromHash(await client.hgetall(k.organization(organizationId).invitation(id)))
    },

    async listInvitations(organizationId, now) {
      const o = k.organization(organizationId)
      const ids = await client.smembers(o.invitations)
      if (ids.length === 0) return []
      const pipeline = client.pipeline()
      for (const id of ids) pipeline.hgetall(o.invitation(id))
      const replies = (await pipeline.exec()) ?? []
      return replies.map(([, hash]) => invitationFromHash((hash ?? {}) as Hash))
        .filter((i): i is Invitation => i !== null && i.status === "pending" && i.expiresAt > now)
        .sort(oldestFirst((i) => i.createdAt.getTime(), (i) => i.id))
        .reverse()
    },

    async revokeInvitation(organizationId, id) {
      return (await run(client, REVOKE, [k.organization(organizationId).invitation(id)], [])) === 1
    },

    async acceptInvitation(id, userId, now) {
      const organizationId = await client.get(k.invitationOrganization(id))
      if (organizationId === null) return "missing"
      const o = k.organization(organizationId)
      // Before the membership can begin (see the module's notes); harmless if the accept fails.
      await client.sadd(k.userOrganizations(userId), organizationId)
      return (await run(client, ACCEPT, [o.invitation(id), o.roles, o.since, o.owners], [userId, now.getTime()])) as AcceptOutcome
    },

    async getActiveOrganization(sessionKey) {
      const organizationId = await client.get(k.active(sessionKey))
      if (organizationId === null) return null
      // A mark is not removed with its organization (it is in another slot); it is ignored.
      return (await client.exists(k.organization(organizationId).info)) === 1 ? organizationId : null
    },

    async setActiveOrganization(sessionKey, organizationId, expires) {
      const ttl = expires.getTime() - Date.now()
      if (organizationId === null || ttl <= 0) {
        await client.del(k.active(sessionKey))
        return
      }
      if ((await client.exists(k.organization(organizationId).info)) !== 1) throw new MissingOrganization(organizationId)
      await client.set(k.active(sessionKey), organizationId, "PX", ttl)
    },
  }
}
