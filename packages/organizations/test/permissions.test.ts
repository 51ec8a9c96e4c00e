/**
 * Roles and permissions (docs/organizations.md, "Roles"): what each role may do on each
 * route, the rule that nobody grants a role above their own or manages someone above them,
 * the owner invariants, and that a stranger learns nothing about another's organization.
 */
import { describe, expect, it } from "vitest"
import { InvalidConfig } from "@portcullis/core/extension"
import { resolveRoles } from "@portcullis/organizations"
import { ROLES, team, testbed } from "./support.js"

describe("resolveRoles", () => {
  const roles = resolveRoles(ROLES)

  it("gives the owner every permission, the app's included", () => {
    for (const permission of ["organization:delete", "member:role", "invoice:pay", "project:create"]) expect(roles.has("owner", permission)).toBe(true)
  })

  it("adds the app's permissions to admin and member, and reading to every role", () => {
    expect(roles.has("admin", "project:create")).toBe(true)
    expect(roles.has("admin", "organization:delete")).toBe(false)
    expect(roles.has("admin", "invoice:pay")).toBe(false)
    expect([...roles.permissions("member")!]).toEqual(["organization:read"])
    expect([...roles.permissions("billing")!].sort()).toEqual(["invoice:pay", "invoice:read", "organization:read"])
    expect(roles.has("nobody", "organization:read")).toBe(false)
  })

  it("lets a role be granted only by one whose permissions cover it, and owner only by an owner", () => {
    expect(roles.mayGrant("owner", "owner")).toBe(true)
    expect(roles.mayGrant("admin", "owner")).toBe(false)
    expect(roles.mayGrant("admin", "admin")).toBe(true)
    expect(roles.mayGrant("admin", "member")).toBe(true)
    expect(roles.mayGrant("admin", "billing")).toBe(false)
    expect(roles.mayGrant("billing", "member")).toBe(true)
    expect(roles.mayGrant("member", "billing")).toBe(false)
    expect(roles.mayGrant("admin", "ghost")).toBe(false)
  })

  it("lets a member be managed only by one whose permissions cover theirs", () => {
    expect(roles.mayManage("admin", "owner")).toBe(false)
    expect(roles.mayManage("owner", "owner")).toBe(true)
    expect(roles.mayManage("admin", "admin")).toBe(true)
    expect(roles.mayManage("admin", "billing")).toBe(false)
    expect(roles.mayManage("admin", "member")).toBe(true)
  })

  it.each([
    [{ "Bad Role": ["x:y"] }, /role "Bad Role"/],
    [{ ok: ["Project:Create"] }, /permission "Project:Create"/],
    [{ ok: "project:create" }, /array/],
  ])("refuses %j as a configuration error", (definitions, message) => {
    expect(() => resolveRoles(definitions as never)).toThrow(InvalidConfig)
    expect(() => resolveRoles(definitions as never)).toThrow(message)
  })
})

describe("the permission matrix", () => {
  it("lets every member read, and keeps a stranger out with 404 on every route", async () => {
    const bed = testbed()
    const { id, owner, admin, member, billing } = await team(bed)
    const stranger = await bed.person("sam")
    for (const who of [owner, admin, member, billing]) {
      expect((await who.get(id)).status).toBe(200)
      expect((await who.get(`${id}/members`)).status).toBe(200)
    }
    const invitationId = (await owner.post(`${id}/invitations`, { email: "zoe@example.com" })).body.invitation.id
    const attempts = [
      await stranger.get(id),
      await stranger.post(id, { name: "Mine now" }),
      await stranger.post(`${id}/delete`),
      await stranger.get(`${id}/members`),
      await stranger.post(`${id}/members/${member.id}/role`, { role: "admin" }),
      await stranger.post(`${id}/members/${member.id}/remove`),
      await stranger.post(`${id}/leave`),
      await stranger.get(`${id}/invitations`),
      await stranger.post(`${id}/invitations`, { email: "sam2@example.com" }),
      await stranger.post(`${id}/invitations/${invitationId}/revoke`),
      await stranger.post("active", { organizationId: id }),
    ]
    for (const attempt of attempts) {
      expect(attempt.status).toBe(404)
      expect(attempt.body.error).toBe("not-found")
    }
    // Not even whether the organization exists: an unknown id answers the same.
    expect(await stranger.get("00000000-0000-4000-8000-000000000000")).toMatchObject({ status: 404, body: { error: "not-found" } })
    expect((await owner.get(id)).body.organization.name).toBe("Acme")
  })

  it("lets owner and admin change and invite; member and app role get 403 forbidden", async () => {
    const bed = testbed()
    const { id, owner, admin, member, billing } = await team(bed)
    for (const who of [owner, admin]) {
      expect((await who.post(id, { name: "Acme" })).status).toBe(200)
      expect((await who.get(`${id}/invitations`)).status).toBe(200)
      expect((await who.post(`${id}/invitations`, { email: `x-${who.id}@example.com` })).status).toBe(201)
    }
    for (const who of [member, billing]) {
      for (const refused of [await who.post(id, { name: "Mine" }), await who.get(`${id}/invitations`), await who.post(`${id}/invitations`, { email: "y@example.com" })]) {
        expect(refused.status).toBe(403)
        expect(refused.body.error).toBe("forbidden")
      }
    }
    expect(bed.audit.some((e) => e.type === "organizations.updated" && e.outcome === "failure" && e.reason === "forbidden")).toBe(true)
  })

  it("lets only the owner delete", async () => {
    const bed = testbed()
    const { id, owner, admin, member, billing } = await team(bed)
    for (const who of [admin, member, billing]) expect((await who.post(`${id}/delete`)).status).toBe(403)
    expect((await owner.post(`${id}/delete`)).status).toBe(200)
  })

  it("lets an app role with member:invite invite only roles it covers", async () => {
    const bed = testbed({ roles: { recruiter: ["member:invite"] } })
    const owner = await bed.person("olivia")
    const id = (await owner.post("", { name: "Acme" })).body.organization.id
    const rita = await bed.person("rita")
    await owner.post(`${id}/invitations`, { email: rita.email, role: "recruiter" })
    const { id: invitationId, token } = bed.invitationFor(rita.email)
    await rita.post(`invitations/${invitationId}/accept`, { token })
    expect((await rita.post(`${id}/invitations`, { email: "m@example.com", role: "member" })).status).toBe(201)
    expect((await rita.post(`${id}/invitations`, { email: "r@example.com", role: "recruiter" })).status).toBe(201)
    expect((await rita.post(`${id}/invitations`, { email: "a@example.com", role: "admin" })).status).toBe(403)
  })
})

describe("nobody grants a role above their own", () => {
  it("refuses an admin inviting an owner, or an app role with permissions the admin lacks", async () => {
    const bed = testbed()
    const { id, admin } = await team(bed)
    for (const role of ["owner", "billing"]) {
      const refused = await admin.post(`${id}/invitations`, { email: "zoe@example.com", role })
      expect(refused.status).toBe(403)
      expect(refused.body.error).toBe("forbidden")
    }
    expect((await admin.post(`${id}/invitations`, { email: "zoe@example.com", role: "admin" })).status).toBe(201)
    expect(bed.audit.filter((e) => e.type === "organizations.invitationCreated" && e.outcome === "failure").map((e) => e.reason)).toEqual(["escalation", "escalation"])
  })

  it("refuses a member promoting themselves, and an admin making themselves or anyone owner", async () => {
    const bed = testbed()
    const { id, admin, member } = await team(bed)
    expect((await member.post(`${id}/members/${member.id}/role`, { role: "owner" })).status).toBe(403)
    expect((await member.post(`${id}/members/${member.id}/role`, { role: "admin" })).status).toBe(403)
    expect((await admin.post(`${id}/members/${admin.id}/role`, { role: "owner" })).status).toBe(403)
    expect((await admin.post(`${id}/members/${member.id}/role`, { role: "owner" })).status).toBe(403)
    expect((await admin.post(`${id}/members/${member.id}/role`, { role: "billing" })).status).toBe(403)
    const roles = Object.fromEntries((await admin.get(`${id}/members`)).body.members.map((m: any) => [m.userId, m.role]))
    expect(roles[member.id]).toBe("member")
    expect(roles[admin.id]).toBe("admin")
    expect(bed.audit.some((e) => e.type === "organizations.roleChanged" && e.outcome === "failure" && e.reason === "escalation")).toBe(true)
  })

  it("refuses an admin changing or removing an owner, or a member with permissions the admin lacks", async () => {
    const bed = testbed()
    const { id, owner, admin, billing } = await team(bed)
    expect((await admin.post(`${id}/members/${owner.id}/role`, { role: "member" })).status).toBe(403)
    expect((await admin.post(`${id}/members/${owner.id}/remove`)).status).toBe(403)
    expect((await admin.post(`${id}/members/${billing.id}/remove`)).status).toBe(403)
    expect((await owner.post(`${id}/members/${billing.id}/remove`)).status).toBe(200)
  })

  it("refuses an unknown role with 422", async () => {
    const bed = testbed()
    const { id, owner, member } = await team(bed)
    const refused = await owner.post(`${id}/members/${member.id}/role`, { role: "emperor" })
    expect(refused.status).toBe(422)
    expect(refused.body.error).toBe("unknown-role")
  })
})

describe("the owner invariants", () => {
  it("keep the last owner from leaving, being demoted or removed", async () => {
    const bed = testbed()
    const { id, owner } = await team(bed)
    for (const refused of [
      await owner.post(`${id}/leave`),
      await owner.post(`${id}/members/${owner.id}/role`, { role: "admin" }),
      await owner.post(`${id}/members/${owner.id}/remove`),
    ]) {
      expect(refused.status).toBe(409)
      expect(refused.body.error).toBe("last-owner")
    }
    expect((await owner.get(id)).body.organization.role).toBe("owner")
  })

  it("let an owner leave once another member is owner", async () => {
    const bed = testbed()
    const { id, owner, admin } = await team(bed)
    expect((await owner.post(`${id}/members/${admin.id}/role`, { role: "owner" })).status).toBe(200)
    expect((await owner.post(`${id}/leave`)).status).toBe(200)
    expect((await admin.get(id)).body.organization.role).toBe("owner")
    expect((await owner.get(id)).status).toBe(404)
  })

  it("keep one owner when two owners demote each other at once", async () => {
    const bed = testbed()
    const { id, owner, admin } = await team(bed)
    await owner.post(`${id}/members/${admin.id}/role`, { role: "owner" })
    const [a, b] = await Promise.all([
      owner.post(`${id}/members/${admin.id}/role`, { role: "member" }),
      admin.post(`${id}/members/${owner.id}/role`, { role: "member" }),
    ])
    // One wins; the other is refused, as the last owner (409) or as no longer an owner (403).
    const statuses = [a.status, b.status].sort()
    expect(statuses[0]).toBe(200)
    expect([403, 409]).toContain(statuses[1])
    const owners = (await bed.store.listMembers(id)).filter((m) => m.role === "owner")
    expect(owners).toHaveLength(1)
  })
})

describe("across organizations", () => {
  it("refuses an admin of one organization acting on another's invitation or member through their own id", async () => {
    const bed = testbed()
    const a = await team(bed)
    const eve = await bed.person("eve")
    const other = (await eve.post("", { name: "Other" })).body.organization.id
    const invitation = (await eve.post(`${other}/invitations`, { email: "x@example.com" })).body.invitation.id
    const revoke = await a.owner.post(`${a.id}/invitations/${invitation}/revoke`)
    expect(revoke.status).toBe(404)
    expect((await eve.get(`${other}/invitations`)).body.invitations.map((i: any) => i.id)).toEqual([invitation])
    const remove = await a.owner.post(`${a.id}/members/${eve.id}/remove`)
    expect(remove.status).toBe(404)
    expect((await eve.get(other)).status).toBe(200)
  })
})
