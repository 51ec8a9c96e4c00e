/**
 * The server functions (`extensions.organizations.…` in every integration): the same
 * operations the routes run, so the same rules and the same refusals, bound to the
 * request's session.
 */
import { describe, expect, it } from "vitest"
import { ExtensionRequestError, NotSignedIn } from "@portcullis/core/extension"
import { team, testbed } from "./support.js"

const code = (promise: Promise<unknown>) =>
  promise.then(
    () => "ok",
    (error: unknown) => (error instanceof ExtensionRequestError ? `${error.status} ${error.code}` : error instanceof Error ? error.name : String(error)),
  )

describe("the server functions", () => {
  it("create, read, change and list as the routes do", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const orgs = ada.server()
    const created = await orgs.create({ name: "Acme", metadata: { plan: "pro" } })
    expect(created).toMatchObject({ name: "Acme", slug: "acme", role: "owner", metadata: { plan: "pro" } })
    expect(await orgs.get(created.id)).toEqual(created)
    expect((await orgs.update(created.id, { name: "Acme 2" })).name).toBe("Acme 2")
    expect(await orgs.list()).toEqual({ organizations: [{ id: created.id, name: "Acme 2", slug: "acme", role: "owner" }], active: created.id })
    expect(await orgs.active()).toEqual({ id: created.id, name: "Acme 2", slug: "acme", role: "owner" })
    expect((await orgs.members(created.id)).map((m) => m.email)).toEqual(["ada@example.com"])
    expect(bed.events()).toEqual(["created/success", "updated/success"])
  })

  it("invite, list, revoke and accept as the routes do", async () => {
    const bed = testbed()
    const { id, owner } = await team(bed)
    const zoe = await bed.person("zoe")
    const invitation = await owner.server().invite(id, { email: "zoe@example.com", role: "billing" })
    expect((await owner.server().invitations(id)).map((i) => i.id)).toEqual([invitation.id])
    const { token } = bed.invitationFor("zoe@example.com")
    expect(await zoe.server().accept(invitation.id, token)).toEqual({ organization: { id, name: "Acme", slug: "acme", role: "billing" } })
    expect(await zoe.server("GET").can("invoice:pay")).toBe(true)
    const second = await owner.server().invite(id, { email: "yan@example.com" })
    expect(await owner.server().revokeInvitation(id, second.id)).toEqual({ revoked: true })
  })

  it("refuse what the routes refuse, with the same codes", async () => {
    const bed = testbed()
    const { id, owner, admin, member } = await team(bed)
    const stranger = await bed.person("sam")
    expect(await code(stranger.server().get(id))).toBe("404 not-found")
    expect(await code(member.server().update(id, { name: "x" }))).toBe("403 forbidden")
    expect(await code(admin.server().setRole(id, admin.id, "owner"))).toBe("403 forbidden")
    expect(await code(admin.server().removeMember(id, owner.id))).toBe("403 forbidden")
    expect(await code(admin.server().invite(id, { email: "x@example.com", role: "owner" }))).toBe("403 forbidden")
    expect(await code(owner.server().leave(id))).toBe("409 last-owner")
    expect(await code(admin.server().remove(id))).toBe("403 forbidden")
    expect(await code(member.server().setActive("00000000-0000-4000-8000-000000000000"))).toBe("404 not-found")
  })

  it("change roles, remove members, switch and delete", async () => {
    const bed = testbed()
    const { id, owner, member, billing } = await team(bed)
    expect(await owner.server().setRole(id, member.id, "admin")).toEqual({ userId: member.id, role: "admin" })
    expect(await owner.server().removeMember(id, billing.id)).toEqual({ removed: true })
    expect(await billing.server("GET").can("organization:read", { organizationId: id })).toBe(false)
    expect(await member.server().setActive(null)).toEqual({ active: null })
    expect(await member.server().active()).toBeNull()
    expect(await owner.server().remove(id)).toEqual({ deleted: true })
    expect(await owner.server().list()).toEqual({ organizations: [], active: null })
  })

  it("answer can with the active organization by default, and require throws forbidden", async () => {
    const bed = testbed()
    const { id, admin, member } = await team(bed)
    expect(await admin.server("GET").can("project:create")).toBe(true)
    expect(await member.server("GET").can("project:create")).toBe(false)
    expect(await member.server("GET").can("project:create", { organizationId: id })).toBe(false)
    await expect(admin.server("GET").require("project:create")).resolves.toBeUndefined()
    expect(await code(member.server("GET").require("project:create"))).toBe("403 forbidden")
    expect(bed.audit.some((e) => e.type === "organizations.forbidden" && e.outcome === "failure")).toBe(true)
  })

  it("answer false when signed out, and require throws NotSignedIn", async () => {
    const bed = testbed()
    await team(bed)
    const visitor = await bed.person("visitor", { signedIn: false })
    expect(await visitor.server("GET").can("organization:read")).toBe(false)
    expect(await visitor.server("GET").active()).toBeNull()
    await expect(visitor.server("GET").require("organization:read")).rejects.toBeInstanceOf(NotSignedIn)
    await expect(visitor.server().list()).rejects.toBeInstanceOf(NotSignedIn)
  })

  it("need a recent sign-in to delete", async () => {
    const bed = testbed({ config: { stepUp: { maxAge: 1 } } })
    const { id, owner } = await team(bed)
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect(await code(owner.server().remove(id))).toBe("StepUpRequired")
    expect((await owner.post(`${id}/delete`)).status).toBe(403)
    expect((await owner.get(id)).status).toBe(200)
  })
})
