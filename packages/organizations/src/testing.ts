/**
 * `@portcullis/organizations/testing`: the conformance suite every organization store runs
 * on its real backend, and the in-memory store for tests. Each `describe` is one behaviour
 * of the contract in `store/types.ts`, including what must hold under concurrency.
 *
 * @example
 * ```ts
 * import { memoryOrganizationStore, runOrganizationStoreTests } from "@portcullis/organizations/testing"
 *
 * runOrganizationStoreTests("memory", async () => ({ store: memoryOrganizationStore(), close: async () => {} }))
 * ```
 * @module
 */
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Invitation, Membership, Organization, OrganizationStore } from "./store/types.js"

export { memoryOrganizationStore } from "./store/memory.js"

/** What the suite is given: a store on a backend, and how to close it after the last spec. */
export interface OrganizationStoreHarness {
  store: OrganizationStore
  close(): Promise<void>
}

const HOUR = 3_600_000

/**
 * An instant with millisecond precision, in the past so that creation orders are distinct
 * and clear of "now": every backend stores milliseconds (MySQL's `datetime(3)`).
 */
let clock = Date.now() - 24 * HOUR
const tick = () => new Date((clock += 1_000))

/** A fresh organization; the slug is random so specs sharing a store never collide. */
export function makeOrganization(overrides: Partial<Organization> = {}): Organization {
  return { id: randomUUID(), name: "Acme", slug: `acme-${randomUUID().slice(0, 8)}`, metadata: { plan: "pro", seats: 5 }, createdAt: tick(), ...overrides }
}

function ownerOf(organization: Organization, userId = randomUUID()): Membership {
  return { organizationId: organization.id, userId, role: "owner", createdAt: tick() }
}

/** A pending invitation to `organization`, valid for an hour from now. */
export function makeInvitation(organization: Organization, overrides: Partial<Invitation> = {}): Invitation {
  return {
    id: randomUUID(),
    organizationId: organization.id,
    email: `${randomUUID().slice(0, 8)}@example.com`,
    role: "member",
    invitedBy: randomUUID(),
    tokenHash: "a".repeat(64),
    status: "pending",
    expiresAt: new Date(Date.now() + HOUR),
    createdAt: tick(),
    acceptedBy: null,
    ...overrides,
  }
}

/**
 * Registers the conformance suite for one store. `make` is called once, before the first
 * spec; every spec creates its own organizations, so specs share the store freely.
 *
 * @example
 * ```ts
 * runOrganizationStoreTests("Redis", async () => {
 *   const redis = new Redis(url)
 *   return { store: redisOrganizationStore(redis, { prefix }), close: async () => void redis.quit() }
 * })
 * ```
 */
export function runOrganizationStoreTests(name: string, make: () => Promise<OrganizationStoreHarness>): void {
  describe(`${name}: organization store conformance`, () => {
    let harness: OrganizationStoreHarness | undefined
    beforeAll(async () => {
      harness = await make()
    })
    afterAll(() => harness?.close())
    const store = () => {
      if (!harness) throw new Error("the store's harness did not open")
      return harness.store
    }

    /** Creates an organization with a fresh owner; returns both. */
    async function created(overrides: Partial<Organization> = {}) {
      const organization = makeOrganization(overrides)
      const owner = ownerOf(organization)
      expect(await store().createOrganization(organization, owner)).toBe(true)
      return { organization, owner }
    }

    /** Adds `userId` with `role` through an accepted invitation, as the extension does. */
    async function join(organization: Organization, role: string, userId = randomUUID()) {
      const invitation = makeInvitation(organization, { role })
      await store().createInvitation(invitation)
      // A distinct, increasing instant per join, so "oldest first" has one answer.
      expect(await store().acceptInvitation(invitation.id, userId, tick())).toBe("accepted")
      return userId
    }

    describe("creating and reading an organization", () => {
      it("stores it with its owner and reads it by id and by slug", async () => {
        const { organization, owner } = await created()
        expect(await store().getOrganization(organization.id)).toEqual(organization)
        expect(await store().getOrganizationBySlug(organization.slug)).toEqual(organization)
        expect(await store().getMembership(organization.id, owner.userId)).toEqual(owner)
        expect(await store().listMembers(organization.id)).toEqual([owner])
      })

      it("makes the first member an owner, whatever role it was given", async () => {
        const organization = makeOrganization()
        const first = { ...ownerOf(organization), role: "member" }
        expect(await store().createOrganization(organization, first)).toBe(true)
        expect((await store().getMembership(organization.id, first.userId))?.role).toBe("owner")
      })

      it("keeps null metadata and nested metadata as given", async () => {
        const { organization: none } = await created({ metadata: null })
        expect((await store().getOrganization(none.id))?.metadata).toBeNull()
        const nested = { tier: { name: "gold", limits: [1, 2.5, "x"] }, flag: true, empty: [] as unknown[] }
        const { organization } = await created({ metadata: nested })
        expect((await store().getOrganization(organization.id))?.metadata).toEqual(nested)
      })

      it("answers null for an unknown id or slug", async () => {
        expect(await store().getOrganization(randomUUID())).toBeNull()
        expect(await store().getOrganizationBySlug(`none-${randomUUID().slice(0, 8)}`)).toBeNull()
      })

      it("returns copies: changing a returned organization changes nothing stored", async () => {
        const { organization } = await created()
        const read = (await store().getOrganization(organization.id))!
        read.name = "Changed"
        ;(read.metadata as Record<string, unknown>).plan = "free"
        expect(await store().getOrganization(organization.id)).toEqual(organization)
      })
    })

    describe("slugs are unique", () => {
      it("refuses a second organization with a taken slug and writes nothing of it", async () => {
        const { organization } = await created()
        const second = makeOrganization({ slug: organization.slug })
        const secondOwner = ownerOf(second)
        expect(await store().createOrganization(second, secondOwner)).toBe(false)
        expect(await store().getOrganization(second.id)).toBeNull()
        expect(await store().getMembership(second.id, secondOwner.userId)).toBeNull()
        expect(await store().listOrganizations(secondOwner.userId)).toEqual([])
        expect((await store().getOrganizationBySlug(organization.slug))?.id).toBe(organization.id)
      })

      it("refuses to rename a slug to another organization's, and changes nothing", async () => {
        const { organization: a } = await created()
        const { organization: b } = await created()
        expect(await store().updateOrganization(b.id, { name: "B2", slug: a.slug })).toBe("slug-taken")
        expect(await store().getOrganization(b.id)).toEqual(b)
        expect((await store().getOrganizationBySlug(a.slug))?.id).toBe(a.id)
      })

      it("frees the old slug on a rename, for lookups and for other organizations", async () => {
        const { organization } = await created()
        const slug = `renamed-${randomUUID().slice(0, 8)}`
        expect(await store().updateOrganization(organization.id, { slug })).toEqual({ ...organization, slug })
        expect(await store().getOrganizationBySlug(organization.slug)).toBeNull()
        expect((await store().getOrganizationBySlug(slug))?.id).toBe(organization.id)
        await created({ slug: organization.slug })
      })

      it("lets an organization keep its own slug in an update", async () => {
        const { organization } = await created()
        expect(await store().updateOrganization(organization.id, { slug: organization.slug, name: "Same slug" }))
          .toEqual({ ...organization, name: "Same slug" })
      })
    })

    describe("updating an organization", () => {
      it("changes only the fields given and returns the organization as changed", async () => {
        const { organization } = await created()
        const named = await store().updateOrganization(organization.id, { name: "Renamed" })
        expect(named).toEqual({ ...organization, name: "Renamed" })
        const cleared = await store().updateOrganization(organization.id, { metadata: null })
        expect(cleared).toEqual({ ...organization, name: "Renamed", metadata: null })
        expect(await store().getOrganization(organization.id)).toEqual(cleared)
        expect(await store().updateOrganization(organization.id, {})).toEqual(cleared)
      })

      it("answers null for an unknown organization, also with a new slug, and takes no slug", async () => {
        const slug = `ghost-${randomUUID().slice(0, 8)}`
        expect(await store().updateOrganization(randomUUID(), { name: "x", slug })).toBeNull()
        await created({ slug })
      })
    })

    describe("a user's organizations", () => {
      it("lists each with the user's role, oldest membership first", async () => {
        const userId = randomUUID()
        const { organization: first } = await created()
        const { organization: second } = await created()
        const { organization: mine } = await created()
        await join(first, "admin", userId)
        await join(second, "member", userId)
        expect(await store().listOrganizations(userId)).toEqual([
          { organization: first, role: "admin" },
          { organization: second, role: "member" },
        ])
        expect(await store().listOrganizations(randomUUID())).toEqual([])
        expect((await store().listOrganizations((await store().listMembers(mine.id))[0]!.userId)).map((e) => e.organization.id)).toEqual([mine.id])
      })
    })

    describe("members", () => {
      it("lists an organization's members oldest first, and reads one", async () => {
        const { organization, owner } = await created()
        const admin = await join(organization, "admin")
        const member = await join(organization, "member")
        const listed = await store().listMembers(organization.id)
        expect(listed.map((m) => [m.userId, m.role])).toEqual([[owner.userId, "owner"], [admin, "admin"], [member, "member"]])
        expect(listed.every((m) => m.organizationId === organization.id && m.createdAt instanceof Date)).toBe(true)
        expect(await store().getMembership(organization.id, admin)).toMatchObject({ organizationId: organization.id, userId: admin, role: "admin" })
        expect(await store().getMembership(organization.id, randomUUID())).toBeNull()
        expect(await store().listMembers(randomUUID())).toEqual([])
      })
    })

    describe("changing a role keeps an owner", () => {
      it("changes a member's role, to and from app roles", async () => {
        const { organization } = await created()
        const userId = await join(organization, "member")
        expect(await store().setRole(organization.id, userId, "billing")).toBe("ok")
        expect((await store().getMembership(organization.id, userId))?.role).toBe("billing")
        expect(await store().setRole(organization.id, userId, "admin")).toBe("ok")
        expect((await store().listOrganizations(userId))[0]?.role).toBe("admin")
      })

      it("answers missing for a user who is not a member, or an unknown organization", async () => {
        const { organization } = await created()
        expect(await store().setRole(organization.id, randomUUID(), "admin")).toBe("missing")
        expect(await store().setRole(randomUUID(), randomUUID(), "admin")).toBe("missing")
      })

      it("refuses to demote the only owner, and keeps the role", async () => {
        const { organization, owner } = await created()
        await join(organization, "admin")
        expect(await store().setRole(organization.id, owner.userId, "admin")).toBe("last-owner")
        expect((await store().getMembership(organization.id, owner.userId))?.role).toBe("owner")
        // Re-stating the role is no demotion.
        expect(await store().setRole(organization.id, owner.userId, "owner")).toBe("ok")
      })

      it("demotes an owner once a second owner exists; then the other is the last", async () => {
        const { organization, owner } = await created()
        const second = await join(organization, "member")
        expect(await store().setRole(organization.id, second, "owner")).toBe("ok")
        expect(await store().setRole(organization.id, owner.userId, "member")).toBe("ok")
        expect(await store().setRole(organization.id, second, "member")).toBe("last-owner")
        expect((await store().listMembers(organization.id)).filter((m) => m.role === "owner").map((m) => m.userId)).toEqual([second])
      })
    })

    describe("removing a member keeps an owner", () => {
      it("removes a member, who then no longer lists the organization", async () => {
        const { organization } = await created()
        const userId = await join(organization, "member")
        expect(await store().removeMember(organization.id, userId)).toBe("ok")
        expect(await store().getMembership(organization.id, userId)).toBeNull()
        expect(await store().listOrganizations(userId)).toEqual([])
        expect(await store().removeMember(organization.id, userId)).toBe("missing")
      })

      it("refuses to remove the only owner, and removes an owner when another remains", async () => {
        const { organization, owner } = await created()
        expect(await store().removeMember(organization.id, owner.userId)).toBe("last-owner")
        expect(await store().getMembership(organization.id, owner.userId)).not.toBeNull()
        const second = await join(organization, "owner")
        expect(await store().removeMember(organization.id, owner.userId)).toBe("ok")
        expect(await store().removeMember(organization.id, second)).toBe("last-owner")
      })
    })

    describe("a change conditional on the role the caller checked", () => {
      it("changes or removes the member while the role is the expected one, and answers changed (touching nothing) once it is not", async () => {
        const { organization } = await created()
        const userId = await join(organization, "member")
        // Promoted to owner after a caller checked "member": that caller's change must not land.
        expect(await store().setRole(organization.id, userId, "owner", "member")).toBe("ok")
        expect(await store().setRole(organization.id, userId, "admin", "member")).toBe("changed")
        expect(await store().removeMember(organization.id, userId, "member")).toBe("changed")
        expect((await store().getMembership(organization.id, userId))?.role).toBe("owner")
        expect(await store().setRole(organization.id, userId, "admin", "owner")).toBe("ok")
        expect(await store().removeMember(organization.id, userId, "admin")).toBe("ok")
        expect(await store().getMembership(organization.id, userId)).toBeNull()
        expect(await store().removeMember(organization.id, userId, "admin")).toBe("missing")
      })
    })

    describe("invitations", () => {
      it("stores an invitation and reads it back by id", async () => {
        const { organization } = await created()
        const invitation = makeInvitation(organization, { role: "admin" })
        await store().createInvitation(invitation)
        expect(await store().getInvitation(invitation.id)).toEqual(invitation)
        expect(await store().getInvitation(randomUUID())).toBeNull()
      })

      it("refuses an invitation to an organization that does not exist", async () => {
        await expect(store().createInvitation(makeInvitation(makeOrganization()))).rejects.toThrow()
      })

      it("lists the pending, unexpired invitations of an organization, newest first", async () => {
        const { organization } = await created()
        const { organization: other } = await created()
        const older = makeInvitation(organization)
        const newer = makeInvitation(organization)
        const expired = makeInvitation(organization, { expiresAt: new Date(Date.now() - 1_000) })
        const revoked = makeInvitation(organization)
        const accepted = makeInvitation(organization)
        for (const invitation of [older, newer, expired, revoked, accepted, makeInvitation(other)]) await store().createInvitation(invitation)
        expect(await store().revokeInvitation(organization.id, revoked.id)).toBe(true)
        expect(await store().acceptInvitation(accepted.id, randomUUID(), new Date())).toBe("accepted")
        expect(await store().listInvitations(organization.id, new Date())).toEqual([newer, older])
        // What is pending depends on the `now` given, not the store's clock.
        expect((await store().listInvitations(organization.id, new Date(Date.now() + 2 * HOUR)))).toEqual([])
      })

      it("revokes a pending invitation once, and only through its own organization", async () => {
        const { organization } = await created()
        const { organization: other } = await created()
        const invitation = makeInvitation(organization)
        await store().createInvitation(invitation)
        expect(await store().revokeInvitation(other.id, invitation.id)).toBe(false)
        expect((await store().getInvitation(invitation.id))?.status).toBe("pending")
        expect(await store().revokeInvitation(organization.id, invitation.id)).toBe(true)
        expect(await store().revokeInvitation(organization.id, invitation.id)).toBe(false)
        expect((await store().getInvitation(invitation.id))?.status).toBe("revoked")
        expect(await store().revokeInvitation(organization.id, randomUUID())).toBe(false)
      })
    })

    describe("accepting an invitation", () => {
      it("makes the user a member with the invitation's role and marks it accepted by them", async () => {
        const { organization } = await created()
        const invitation = makeInvitation(organization, { role: "admin" })
        await store().createInvitation(invitation)
        const userId = randomUUID()
        const now = new Date()
        expect(await store().acceptInvitation(invitation.id, userId, now)).toBe("accepted")
        expect(await store().getMembership(organization.id, userId)).toEqual({ organizationId: organization.id, userId, role: "admin", createdAt: now })
        expect(await store().getInvitation(invitation.id)).toEqual({ ...invitation, status: "accepted", acceptedBy: userId })
        expect(await store().listOrganizations(userId)).toEqual([{ organization, role: "admin" }])
      })

      it("is single-use: a second accept, by anyone, is unavailable", async () => {
        const { organization } = await created()
        const invitation = makeInvitation(organization)
        await store().createInvitation(invitation)
        const first = randomUUID()
        const second = randomUUID()
        expect(await store().acceptInvitation(invitation.id, first, new Date())).toBe("accepted")
        expect(await store().acceptInvitation(invitation.id, first, new Date())).toBe("unavailable")
        expect(await store().acceptInvitation(invitation.id, second, new Date())).toBe("unavailable")
        expect(await store().getMembership(organization.id, second)).toBeNull()
      })

      it("refuses an expired or revoked invitation and changes nothing", async () => {
        const { organization } = await created()
        const expired = makeInvitation(organization, { expiresAt: new Date(Date.now() + 60_000) })
        const revoked = makeInvitation(organization)
        await store().createInvitation(expired)
        await store().createInvitation(revoked)
        await store().revokeInvitation(organization.id, revoked.id)
        const userId = randomUUID()
        // Expiry is judged against the `now` given: at the instant of expiry it is over.
        expect(await store().acceptInvitation(expired.id, userId, expired.expiresAt)).toBe("unavailable")
        expect(await store().acceptInvitation(revoked.id, userId, new Date())).toBe("unavailable")
        expect(await store().getMembership(organization.id, userId)).toBeNull()
        expect((await store().getInvitation(expired.id))?.status).toBe("pending")
        expect((await store().getInvitation(revoked.id))?.status).toBe("revoked")
      })

      it("answers missing for an unknown invitation", async () => {
        expect(await store().acceptInvitation(randomUUID(), randomUUID(), new Date())).toBe("missing")
      })

      it("uses up the invitation of a user who is a member already and keeps their role", async () => {
        const { organization, owner } = await created()
        const invitation = makeInvitation(organization, { role: "member" })
        await store().createInvitation(invitation)
        expect(await store().acceptInvitation(invitation.id, owner.userId, new Date())).toBe("already-member")
        expect(await store().getMembership(organization.id, owner.userId)).toEqual(owner)
        expect(await store().getInvitation(invitation.id)).toMatchObject({ status: "accepted", acceptedBy: owner.userId })
      })
    })

    describe("deleting an organization", () => {
      it("deletes its memberships, invitations and active marks, and frees its slug", async () => {
        const { organization, owner } = await created()
        const member = await join(organization, "member")
        const pending = makeInvitation(organization)
        await store().createInvitation(pending)
        const sessionKey = randomUUID()
        await store().setActiveOrganization(sessionKey, organization.id, new Date(Date.now() + HOUR))
        const { organization: kept } = await created()

        await store().deleteOrganization(organization.id)
        expect(await store().getOrganization(organization.id)).toBeNull()
        expect(await store().getOrganizationBySlug(organization.slug)).toBeNull()
        expect(await store().listMembers(organization.id)).toEqual([])
        expect(await store().getMembership(organization.id, member)).toBeNull()
        expect(await store().listOrganizations(owner.userId)).toEqual([])
        expect(await store().listOrganizations(member)).toEqual([])
        expect(await store().getInvitation(pending.id)).toBeNull()
        expect(await store().acceptInvitation(pending.id, randomUUID(), new Date())).toBe("missing")
        expect(await store().listInvitations(organization.id, new Date())).toEqual([])
        expect(await store().getActiveOrganization(sessionKey)).toBeNull()
        expect(await store().getOrganization(kept.id)).toEqual(kept)
        await created({ slug: organization.slug })
        // Deleting again, or an unknown id, is no error.
        await store().deleteOrganization(organization.id)
      })
    })

    describe("the active organization of a session", () => {
      it("is set, replaced and cleared per session key", async () => {
        const { organization: a } = await created()
        const { organization: b } = await created()
        const sessionKey = randomUUID()
        const expires = new Date(Date.now() + HOUR)
        expect(await store().getActiveOrganization(sessionKey)).toBeNull()
        await store().setActiveOrganization(sessionKey, a.id, expires)
        expect(await store().getActiveOrganization(sessionKey)).toBe(a.id)
        expect(await store().getActiveOrganization(randomUUID())).toBeNull()
        await store().setActiveOrganization(sessionKey, b.id, expires)
        expect(await store().getActiveOrganization(sessionKey)).toBe(b.id)
        await store().setActiveOrganization(sessionKey, null, expires)
        expect(await store().getActiveOrganization(sessionKey)).toBeNull()
      })

      it("is gone once it expired", async () => {
        const { organization } = await created()
        const sessionKey = randomUUID()
        await store().setActiveOrganization(sessionKey, organization.id, new Date(Date.now() - 1_000))
        expect(await store().getActiveOrganization(sessionKey)).toBeNull()
      })

      it("survives the deletion of another organization it was once set to", async () => {
        const { organization: old } = await created()
        const { organization: current } = await created()
        const sessionKey = randomUUID()
        await store().setActiveOrganization(sessionKey, old.id, new Date(Date.now() + HOUR))
        await store().setActiveOrganization(sessionKey, current.id, new Date(Date.now() + HOUR))
        await store().deleteOrganization(old.id)
        expect(await store().getActiveOrganization(sessionKey)).toBe(current.id)
      })
    })

    describe("adding a member directly", () => {
      it("adds the user with the given role, once; a second add keeps the first role", async () => {
        const { organization } = await created()
        const membership: Membership = { organizationId: organization.id, userId: randomUUID(), role: "admin", createdAt: tick() }
        expect(await store().addMember(membership)).toBe("added")
        expect(await store().getMembership(organization.id, membership.userId)).toEqual(membership)
        expect(await store().listOrganizations(membership.userId)).toEqual([{ organization, role: "admin" }])
        expect(await store().addMember({ ...membership, role: "member", createdAt: tick() })).toBe("already-member")
        expect(await store().getMembership(organization.id, membership.userId)).toEqual(membership)
      })

      it("answers missing for an organization that does not exist, and writes nothing", async () => {
        const membership: Membership = { organizationId: randomUUID(), userId: randomUUID(), role: "member", createdAt: tick() }
        expect(await store().addMember(membership)).toBe("missing")
        expect(await store().getMembership(membership.organizationId, membership.userId)).toBeNull()
        expect(await store().listOrganizations(membership.userId)).toEqual([])
      })

      it("counts every member, owners included, against the limit; a member already in answers already-member even when full", async () => {
        const { organization, owner } = await created()
        const add = (userId: string = randomUUID()) => store().addMember({ organizationId: organization.id, userId, role: "member", createdAt: tick() }, 2)
        expect(await add()).toBe("added")
        const refused = randomUUID()
        expect(await add(refused)).toBe("full")
        expect(await store().getMembership(organization.id, refused)).toBeNull()
        expect(await add(owner.userId)).toBe("already-member")
        expect(await store().addMember({ organizationId: organization.id, userId: randomUUID(), role: "member", createdAt: tick() }, 0)).toBe("full")
      })

      it("adds an owner who then counts for the last-owner guard", async () => {
        const { organization, owner } = await created()
        const second = randomUUID()
        expect(await store().addMember({ organizationId: organization.id, userId: second, role: "owner", createdAt: tick() })).toBe("added")
        expect(await store().setRole(organization.id, owner.userId, "member")).toBe("ok")
        expect(await store().setRole(organization.id, second, "member")).toBe("last-owner")
      })

      it("of 50 concurrent adds of different users with a limit of 10, exactly 9 join the owner", async () => {
        const { organization } = await created()
        const users = Array.from({ length: 50 }, () => randomUUID())
        const outcomes = await Promise.all(users.map((userId) => store().addMember({ organizationId: organization.id, userId, role: "member", createdAt: tick() }, 10)))
        expect(outcomes.filter((o) => o === "added")).toHaveLength(9)
        expect(outcomes.filter((o) => o === "full")).toHaveLength(41)
        expect(await store().listMembers(organization.id)).toHaveLength(10)
      })

      it("of 50 concurrent adds of one user, exactly one adds and one membership exists", async () => {
        const { organization } = await created()
        const userId = randomUUID()
        const outcomes = await Promise.all(Array.from({ length: 50 }, () => store().addMember({ organizationId: organization.id, userId, role: "member", createdAt: tick() })))
        expect(outcomes.filter((o) => o === "added")).toHaveLength(1)
        expect(outcomes.filter((o) => o === "already-member")).toHaveLength(49)
        expect((await store().listMembers(organization.id)).filter((m) => m.userId === userId)).toHaveLength(1)
      })
    })

    describe("under concurrency", () => {
      it("of 50 concurrent accepts of one invitation by 50 users, exactly one joins", async () => {
        const { organization } = await created()
        const invitation = makeInvitation(organization)
        await store().createInvitation(invitation)
        const users = Array.from({ length: 50 }, () => randomUUID())
        const outcomes = await Promise.all(users.map((userId) => store().acceptInvitation(invitation.id, userId, new Date())))
        expect(outcomes.filter((o) => o === "accepted")).toHaveLength(1)
        expect(outcomes.filter((o) => o === "unavailable")).toHaveLength(49)
        const winner = users[outcomes.indexOf("accepted")]!
        expect((await store().listMembers(organization.id)).map((m) => m.userId).sort()).toEqual([(await store().listMembers(organization.id)).find((m) => m.role === "owner")!.userId, winner].sort())
        expect((await store().getInvitation(invitation.id))?.acceptedBy).toBe(winner)
      })

      it("of 50 concurrent accepts of one invitation by one user, one succeeds and one membership exists", async () => {
        const { organization } = await created()
        const invitation = makeInvitation(organization, { role: "admin" })
        await store().createInvitation(invitation)
        const userId = randomUUID()
        const outcomes = await Promise.all(Array.from({ length: 50 }, () => store().acceptInvitation(invitation.id, userId, new Date())))
        expect(outcomes.filter((o) => o === "accepted")).toHaveLength(1)
        expect(outcomes.filter((o) => o === "unavailable")).toHaveLength(49)
        expect((await store().listMembers(organization.id)).filter((m) => m.userId === userId)).toHaveLength(1)
        expect(await store().listOrganizations(userId)).toEqual([{ organization, role: "admin" }])
      })

      it("two owners demoting each other at once leave at least one owner, every time", async () => {
        for (let round = 0; round < 10; round++) {
          const { organization, owner } = await created()
          const second = await join(organization, "owner")
          const outcomes = await Promise.all([
            store().setRole(organization.id, owner.userId, "member"),
            store().setRole(organization.id, second, "member"),
          ])
          expect(outcomes.sort()).toEqual(["last-owner", "ok"])
          expect((await store().listMembers(organization.id)).filter((m) => m.role === "owner")).toHaveLength(1)
        }
      })

      it("two owners removing each other (or themselves) at once leave at least one owner, every time", async () => {
        for (let round = 0; round < 10; round++) {
          const { organization, owner } = await created()
          const second = await join(organization, "owner")
          const outcomes = await Promise.all([
            store().removeMember(organization.id, owner.userId),
            round % 2 ? store().removeMember(organization.id, second) : store().setRole(organization.id, second, "admin"),
          ])
          expect(outcomes.sort()).toEqual(["last-owner", "ok"])
          expect((await store().listMembers(organization.id)).filter((m) => m.role === "owner")).toHaveLength(1)
        }
      })

      it("of 20 concurrent creations with one slug, exactly one wins and only it is stored", async () => {
        const slug = `race-${randomUUID().slice(0, 8)}`
        const candidates = Array.from({ length: 20 }, () => makeOrganization({ slug }))
        const results = await Promise.all(candidates.map((organization) => store().createOrganization(organization, ownerOf(organization))))
        expect(results.filter(Boolean)).toHaveLength(1)
        const winner = candidates[results.indexOf(true)]!
        expect(await store().getOrganizationBySlug(slug)).toEqual(winner)
        const stored = await Promise.all(candidates.map((organization) => store().getOrganization(organization.id)))
        expect(stored.filter((organization) => organization !== null)).toEqual([winner])
      })

      it("of 20 concurrent renames to one slug, exactly one wins", async () => {
        const slug = `rename-race-${randomUUID().slice(0, 8)}`
        const organizations = await Promise.all(Array.from({ length: 20 }, () => created().then((c) => c.organization)))
        const results = await Promise.all(organizations.map((organization) => store().updateOrganization(organization.id, { slug })))
        expect(results.filter((r) => r !== "slug-taken")).toHaveLength(1)
        const winner = results.find((r) => r !== "slug-taken") as Organization
        expect(await store().getOrganizationBySlug(slug)).toEqual(winner)
        const slugs = await Promise.all(organizations.map(async (organization) => (await store().getOrganization(organization.id))!.slug))
        expect(slugs.filter((s) => s === slug)).toHaveLength(1)
      })
    })
  })
}
