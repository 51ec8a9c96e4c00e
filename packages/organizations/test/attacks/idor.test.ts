/**
 * Attacks, class 1: cross-organization IDOR. Eve owns organization B and tries to reach
 * organization A (Olivia's team) through every route and every server function — A's id in
 * the path, A's invitation or member ids under B's path, B's ids under A's path — and
 * nothing of A may change or be read. A stranger (no organization at all) fares no better.
 */
import { describe, expect, it } from "vitest"
import { team, testbed, type Testbed } from "../support.js"

/** Olivia's team (A) with a pending invitation, and Eve, owner of her own organization B with one. */
async function twoOrganizations(bed: Testbed) {
  const a = await team(bed)
  const aInvitation = (await a.owner.post(`${a.id}/invitations`, { email: "zoe@example.com", role: "admin" })).body.invitation.id as string
  const eve = await bed.person("eve")
  const b = (await eve.post("", { name: "Evil", slug: "evil" })).body.organization.id as string
  const bInvitation = (await eve.post(`${b}/invitations`, { email: "x@example.com" })).body.invitation.id as string
  const mallory = await bed.person("mallory")
  const snapshot = async () => ({
    organization: await bed.store.getOrganization(a.id),
    members: await bed.store.listMembers(a.id),
    invitations: (await bed.store.listInvitations(a.id, new Date())).map((i) => `${i.id}:${i.status}`),
  })
  return { a, aInvitation, eve, b, bInvitation, mallory, before: await snapshot(), snapshot }
}

describe("another organization's id in the path", () => {
  it("answers 404 not-found on every route, and changes nothing of it", async () => {
    const bed = testbed()
    const { a, aInvitation, eve, mallory, before, snapshot } = await twoOrganizations(bed)
    const calls: Array<["GET" | "POST", string, Record<string, unknown>?]> = [
      ["GET", a.id],
      ["POST", a.id, { name: "Pwned", slug: "pwned", metadata: { owned: true } }],
      ["POST", `${a.id}/delete`],
      ["GET", `${a.id}/members`],
      ["POST", `${a.id}/members/${a.member.id}/role`, { role: "admin" }],
      ["POST", `${a.id}/members/${eve.id}/role`, { role: "owner" }],
      ["POST", `${a.id}/members/${a.owner.id}/remove`],
      ["POST", `${a.id}/leave`],
      ["GET", `${a.id}/invitations`],
      ["POST", `${a.id}/invitations`, { email: "eve2@example.com", role: "owner" }],
      ["POST", `${a.id}/invitations/${aInvitation}/revoke`],
    ]
    for (const attacker of [eve, mallory]) {
      for (const [method, path, body] of calls) {
        const answer = await attacker.call(method, path, body)
        // delete is a step-up route: a fresh sign-in passes it, then the membership check refuses.
        expect({ path, status: answer.status, error: answer.body.error }).toEqual({ path, status: 404, error: "not-found" })
        expect(JSON.stringify(answer.body)).not.toContain("Acme")
      }
    }
    expect(await snapshot()).toEqual(before)
    expect(bed.mail.sent.filter((m) => m.to === "eve2@example.com")).toEqual([])
  })

  it("answers the same for an organization that exists and one that doesn't, so ids can't be probed", async () => {
    const bed = testbed()
    const { a, eve } = await twoOrganizations(bed)
    const real = await eve.get(a.id)
    const made = await eve.get("00000000-0000-4000-8000-000000000000")
    expect([real.status, real.body]).toEqual([made.status, made.body])
  })
})

describe("another organization's ids under one's own organization", () => {
  it("can't revoke A's invitation through B's path", async () => {
    const bed = testbed()
    const { a, aInvitation, eve, b, before, snapshot } = await twoOrganizations(bed)
    const answer = await eve.post(`${b}/invitations/${aInvitation}/revoke`)
    expect([answer.status, answer.body.error]).toEqual([404, "invitation-not-found"])
    expect(await snapshot()).toEqual(before)
    expect((await a.owner.get(`${a.id}/invitations`)).body.invitations.map((i: { id: string }) => i.id)).toContain(aInvitation)
  })

  it("can't change the role of, or remove, a member of A through B's path", async () => {
    const bed = testbed()
    const { a, eve, b, before, snapshot } = await twoOrganizations(bed)
    for (const target of [a.member.id, a.admin.id, a.owner.id]) {
      const role = await eve.post(`${b}/members/${target}/role`, { role: "member" })
      expect([role.status, role.body.error]).toEqual([404, "member-not-found"])
      const removed = await eve.post(`${b}/members/${target}/remove`)
      expect([removed.status, removed.body.error]).toEqual([404, "member-not-found"])
    }
    expect(await snapshot()).toEqual(before)
  })

  it("can't revoke B's invitation through A's path, even as A's admin", async () => {
    const bed = testbed()
    const { a, eve, b, bInvitation } = await twoOrganizations(bed)
    const answer = await a.admin.post(`${a.id}/invitations/${bInvitation}/revoke`)
    expect(answer.status).toBe(404)
    expect((await eve.get(`${b}/invitations`)).body.invitations.map((i: { id: string }) => i.id)).toEqual([bInvitation])
  })

  it("can't accept A's invitation through a path, body or query naming B", async () => {
    const bed = testbed()
    const { a, eve, b } = await twoOrganizations(bed)
    const { id, token } = bed.invitationFor("zoe@example.com")
    // The accept route has no organization in its path; extra ids in the body or query change nothing.
    const answer = await eve.post(`invitations/${id}/accept?organizationId=${b}`, { token, organizationId: b, userId: eve.id, email: "zoe@example.com" })
    expect([answer.status, answer.body.error]).toEqual([403, "email-mismatch"])
    expect(await bed.store.getMembership(a.id, eve.id)).toBeNull()
    expect(await bed.store.getMembership(b, eve.id)).toMatchObject({ role: "owner" })
  })
})

describe("the active organization", () => {
  it("can't be switched to an organization one isn't in, by route or by server function", async () => {
    const bed = testbed()
    const { a, eve, b } = await twoOrganizations(bed)
    const answer = await eve.post("active", { organizationId: a.id })
    expect([answer.status, answer.body.error]).toEqual([404, "not-found"])
    await expect(eve.server().setActive(a.id)).rejects.toMatchObject({ code: "not-found", status: 404 })
    // Nor by a body that is not a string id (an array, an object) that a lax check might coerce.
    for (const organizationId of [[a.id], { id: a.id }, 1]) expect((await eve.post("active", { organizationId })).status).toBe(422)
    expect((await eve.session()).organizations.active).toMatchObject({ id: b })
    expect(await eve.server().can("organization:read", { organizationId: a.id })).toBe(false)
  })
})

describe("server functions given another organization's ids", () => {
  it("refuse every one with not-found (or member-not-found under one's own id), and change nothing", async () => {
    const bed = testbed()
    const { a, aInvitation, eve, b, before, snapshot } = await twoOrganizations(bed)
    const server = eve.server()
    const attempts: Array<[string, () => Promise<unknown>, string]> = [
      ["get", () => server.get(a.id), "not-found"],
      ["update", () => server.update(a.id, { name: "Pwned" }), "not-found"],
      ["members", () => server.members(a.id), "not-found"],
      ["setRole", () => server.setRole(a.id, eve.id, "owner"), "not-found"],
      ["removeMember", () => server.removeMember(a.id, a.owner.id), "not-found"],
      ["leave", () => server.leave(a.id), "not-found"],
      ["invitations", () => server.invitations(a.id), "not-found"],
      ["invite", () => server.invite(a.id, { email: "eve2@example.com", role: "owner" }), "not-found"],
      ["revokeInvitation", () => server.revokeInvitation(a.id, aInvitation), "not-found"],
      ["revokeInvitation under B", () => server.revokeInvitation(b, aInvitation), "invitation-not-found"],
      ["setRole under B", () => server.setRole(b, a.owner.id, "member"), "member-not-found"],
      ["removeMember under B", () => server.removeMember(b, a.owner.id), "member-not-found"],
      ["require", () => server.require("organization:read", { organizationId: a.id }), "forbidden"],
    ]
    for (const [name, attempt, code] of attempts) await expect(attempt(), name).rejects.toMatchObject({ code })
    expect(await server.can("member:invite", { organizationId: a.id })).toBe(false)
    expect(await snapshot()).toEqual(before)
  })

  it("take no ids other than strings: objects and arrays are refused, not coerced", async () => {
    const bed = testbed()
    const { a, eve } = await twoOrganizations(bed)
    const server = eve.server() as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
    for (const id of [[a.id], { toString: () => a.id }, { id: a.id }]) {
      await expect(server.get!(id)).rejects.toMatchObject({ code: "not-found" })
      expect(await server.can!("organization:read", { organizationId: id })).toBe(false)
    }
  })
})
