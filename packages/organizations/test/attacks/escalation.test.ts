/**
 * Attacks, class 2: privilege escalation. A member or an admin tries to end up above their
 * role — by a role change of themselves, by inviting above their role (app roles whose
 * permissions are no subset included), by demoting or removing an owner, by racing a role
 * change, or by leaving an organization without an owner.
 */
import { describe, expect, it, vi } from "vitest"
import { memoryOrganizationStore } from "@portcullis/organizations/memory"
import type { Membership, OrganizationStore } from "@portcullis/organizations"
import { team, testbed, type Testbed } from "../support.js"

const role = async (bed: Testbed, organizationId: string, userId: string) => (await bed.store.getMembership(organizationId, userId))?.role ?? null

describe("a member promoting themselves", () => {
  it("is refused by every route and server function, and the role stays", async () => {
    const bed = testbed()
    const { id, member, billing } = await team(bed)
    for (const who of [member, billing]) {
      for (const wanted of ["owner", "admin", "billing", "member"]) {
        const answer = await who.post(`${id}/members/${who.id}/role`, { role: wanted })
        expect(answer.status).toBe(403)
        await expect(who.server().setRole(id, who.id, wanted as "admin")).rejects.toMatchObject({ code: "forbidden" })
      }
      // Accepting an invitation of one's own making is out too: inviting needs member:invite.
      expect((await who.post(`${id}/invitations`, { email: `${who.id}-alt@example.com`, role: "owner" })).status).toBe(403)
    }
    expect(await role(bed, id, member.id)).toBe("member")
    expect(await role(bed, id, billing.id)).toBe("billing")
  })

  it("gets nothing from fields a role route does not read (userId, organizationId, permissions in the body)", async () => {
    const bed = testbed()
    const { id, admin, member } = await team(bed)
    const answer = await admin.post(`${id}/members/${member.id}/role`, { role: "member", userId: admin.id, permissions: ["organization:delete"], organizationId: id, owner: true })
    expect(answer.body).toEqual({ userId: member.id, role: "member" })
    expect(await role(bed, id, admin.id)).toBe("admin")
  })
})

describe("an admin reaching for owner", () => {
  it("can't make themselves or anyone owner, nor invite an owner, nor remove or demote an owner", async () => {
    const bed = testbed()
    const { id, owner, admin, member } = await team(bed)
    expect((await admin.post(`${id}/members/${admin.id}/role`, { role: "owner" })).status).toBe(403)
    expect((await admin.post(`${id}/members/${member.id}/role`, { role: "owner" })).status).toBe(403)
    expect((await admin.post(`${id}/invitations`, { email: "adam-alt@example.com", role: "owner" })).status).toBe(403)
    expect((await admin.post(`${id}/members/${owner.id}/role`, { role: "member" })).status).toBe(403)
    expect((await admin.post(`${id}/members/${owner.id}/remove`)).status).toBe(403)
    expect((await admin.post(`${id}/delete`)).status).toBe(403)
    expect(await role(bed, id, owner.id)).toBe("owner")
    expect(await role(bed, id, member.id)).toBe("member")
    expect(bed.events().filter((e) => e === "roleChanged/failure")).toHaveLength(3)
  })

  it("can't grant an app role whose permissions are no subset of admin's, nor manage its holder", async () => {
    const bed = testbed({ roles: { billing: ["invoice:pay"], auditor: ["audit:read", "organization:update"], admin: ["project:create"] } })
    const { id, admin, billing } = await team(bed)
    expect((await admin.post(`${id}/invitations`, { email: "x@example.com", role: "billing" })).body.error).toBe("forbidden")
    expect((await admin.post(`${id}/invitations`, { email: "y@example.com", role: "auditor" })).body.error).toBe("forbidden")
    expect((await admin.post(`${id}/members/${billing.id}/role`, { role: "member" })).status).toBe(403)
    expect((await admin.post(`${id}/members/${billing.id}/remove`)).status).toBe(403)
    expect(await role(bed, id, billing.id)).toBe("billing")
  })
})

describe("an app role with member management", () => {
  it("grants and manages only roles it covers, and can't lift itself", async () => {
    const bed = testbed({ roles: { lead: ["member:role", "member:invite", "member:remove", "invoice:read"], billing: ["invoice:pay", "invoice:read"] } })
    const { id, owner, admin, member, billing } = await team(bed)
    await owner.post(`${id}/members/${member.id}/role`, { role: "lead" })
    const lead = member
    expect((await lead.post(`${id}/members/${lead.id}/role`, { role: "admin" })).status).toBe(403)
    expect((await lead.post(`${id}/members/${lead.id}/role`, { role: "billing" })).status).toBe(403)
    expect((await lead.post(`${id}/members/${admin.id}/role`, { role: "member" })).status).toBe(403)
    expect((await lead.post(`${id}/members/${billing.id}/remove`)).status).toBe(403)
    expect((await lead.post(`${id}/invitations`, { email: "x@example.com", role: "lead" })).status).toBe(201)
    expect((await lead.post(`${id}/invitations`, { email: "y@example.com", role: "admin" })).status).toBe(403)
    expect(await role(bed, id, lead.id)).toBe("lead")
  })
})

/**
 * A store that runs `interleave` once, right after the extension read the membership of
 * `victim` — the moment between an admin's check of the target's role and the change — so a
 * race is played the same way every run, without timers.
 */
function racingStore() {
  const inner = memoryOrganizationStore()
  let pending: { organizationId: string; userId: string; run: () => Promise<void> } | undefined
  const store: OrganizationStore = {
    ...inner,
    async getMembership(organizationId: string, userId: string): Promise<Membership | null> {
      const found = await inner.getMembership(organizationId, userId)
      if (pending && pending.organizationId === organizationId && pending.userId === userId) {
        const { run } = pending
        pending = undefined
        await run()
      }
      return found
    },
  }
  return { store, inner, after: (organizationId: string, userId: string, run: () => Promise<void>) => void (pending = { organizationId, userId, run }) }
}

describe("a role change racing another", () => {
  it("can't let an admin demote someone who became owner after the admin's check", async () => {
    const racing = racingStore()
    const bed = testbed({ store: racing.store })
    const { id, admin, member } = await team(bed)
    // The owner promotes Mia while Adam's change of her is between its check and its write.
    racing.after(id, member.id, async () => void (await racing.inner.setRole(id, member.id, "owner")))
    const answer = await admin.post(`${id}/members/${member.id}/role`, { role: "admin" })
    expect(answer.status).toBe(409)
    expect(answer.body.error).toBe("member-changed")
    expect(await role(bed, id, member.id)).toBe("owner")
  })

  it("can't let an admin remove someone who became owner after the admin's check", async () => {
    const racing = racingStore()
    const bed = testbed({ store: racing.store })
    const { id, admin, member } = await team(bed)
    racing.after(id, member.id, async () => void (await racing.inner.setRole(id, member.id, "owner")))
    const answer = await admin.post(`${id}/members/${member.id}/remove`)
    expect([answer.status, answer.body.error]).toEqual([409, "member-changed"])
    expect(await role(bed, id, member.id)).toBe("owner")
  })

  it("applies the change when nothing raced it", async () => {
    const bed = testbed()
    const { id, admin, member } = await team(bed)
    expect((await admin.post(`${id}/members/${member.id}/role`, { role: "admin" })).status).toBe(200)
    expect((await admin.post(`${id}/members/${member.id}/remove`)).status).toBe(200)
    expect(await role(bed, id, member.id)).toBeNull()
  })

  it("leaves exactly one role after two concurrent changes of one member", async () => {
    const bed = testbed()
    const { id, owner, admin, member } = await team(bed)
    const answers = await Promise.all([owner.post(`${id}/members/${member.id}/role`, { role: "billing" }), admin.post(`${id}/members/${member.id}/role`, { role: "admin" })])
    expect(answers.some((a) => a.status === 200)).toBe(true)
    expect(["billing", "admin"]).toContain(await role(bed, id, member.id))
  })
})

describe("demoted while acting", () => {
  it("an admin demoted mid-way can't act again on the next call", async () => {
    const bed = testbed()
    const { id, owner, admin, member } = await team(bed)
    await owner.post(`${id}/members/${admin.id}/role`, { role: "member" })
    expect((await admin.post(`${id}/members/${member.id}/remove`)).status).toBe(403)
    expect((await admin.post(`${id}/invitations`, { email: "late@example.com" })).status).toBe(403)
    expect(await admin.server().can("member:invite", { organizationId: id })).toBe(false)
  })
})

describe("the last owner", () => {
  it("can't leave, be demoted or removed — by route or server function, alone or by two owners at once", async () => {
    const bed = testbed()
    const { id, owner, admin } = await team(bed)
    expect((await owner.post(`${id}/leave`)).body.error).toBe("last-owner")
    expect((await owner.post(`${id}/members/${owner.id}/role`, { role: "admin" })).body.error).toBe("last-owner")
    expect((await owner.post(`${id}/members/${owner.id}/remove`)).body.error).toBe("last-owner")
    await expect(owner.server().leave(id)).rejects.toMatchObject({ code: "last-owner" })
    // Two owners each leaving at once: one may go, one stays.
    await owner.post(`${id}/members/${admin.id}/role`, { role: "owner" })
    const both = await Promise.all([owner.post(`${id}/leave`), admin.post(`${id}/leave`)])
    expect(both.map((a) => a.status).sort()).toEqual([200, 409])
    expect((await bed.store.listMembers(id)).filter((m) => m.role === "owner")).toHaveLength(1)
    // Two owners removing each other at once: one remains.
    const [stayed] = (await bed.store.listMembers(id)).filter((m) => m.role === "owner")
    const remaining = stayed!.userId === owner.id ? owner : admin
    expect(await role(bed, id, remaining.id)).toBe("owner")
  })

  it("keeps an owner when two owners remove each other at once", async () => {
    const bed = testbed()
    const { id, owner, admin } = await team(bed)
    await owner.post(`${id}/members/${admin.id}/role`, { role: "owner" })
    await Promise.all([owner.post(`${id}/members/${admin.id}/remove`), admin.post(`${id}/members/${owner.id}/remove`)])
    expect((await bed.store.listMembers(id)).filter((m) => m.role === "owner")).toHaveLength(1)
  })
})

describe("ownership behind a recent re-authentication (a stolen session cookie)", () => {
  /** Moves the clock past the step-up window (Date only: sockets and timers run as usual). */
  async function later<T>(act: () => Promise<T>): Promise<T> {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 11 * 60_000 })
    try {
      return await act()
    } finally {
      vi.useRealTimers()
    }
  }

  it("cannot make someone owner, demote an owner or remove one; other role changes go on", async () => {
    const bed = testbed()
    const { id, owner, admin, member } = await team(bed)
    // A second owner, made while the owner's sign-in is fresh.
    expect((await owner.post(`${id}/members/${admin.id}/role`, { role: "owner" })).status).toBe(200)
    await later(async () => {
      const promote = await owner.post(`${id}/members/${member.id}/role`, { role: "owner" })
      expect(promote.status).toBe(403)
      expect(promote.body).toMatchObject({ error: "StepUpRequired" })
      expect((await owner.post(`${id}/members/${admin.id}/role`, { role: "member" })).body).toMatchObject({ error: "StepUpRequired" })
      expect((await owner.post(`${id}/members/${admin.id}/remove`)).body).toMatchObject({ error: "StepUpRequired" })
      // Not ownership: no re-authentication needed.
      expect((await owner.post(`${id}/members/${member.id}/role`, { role: "admin" })).status).toBe(200)
    })
    const roles = Object.fromEntries(((await owner.get(`${id}/members`)).body.members as { userId: string; role: string }[]).map((m) => [m.userId, m.role]))
    expect(roles[admin.id]).toBe("owner")
    expect(roles[member.id]).toBe("admin")
  })
})
