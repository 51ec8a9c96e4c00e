/**
 * The routes of organizations (docs/organizations.md, "Routes"): each one's happy path,
 * through `Auth()` with a signed-in browser, JSON in and out.
 */
import { describe, expect, it } from "vitest"
import { team, testbed } from "./support.js"

describe("creating and listing organizations", () => {
  it("makes the creator its owner, derives the slug, and makes it active when none was", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const created = await ada.post("", { name: "  Acme Café ", metadata: { plan: "pro" } })
    expect(created.status).toBe(201)
    expect(created.body.organization).toMatchObject({ name: "Acme Café", slug: "acme-cafe", role: "owner", metadata: { plan: "pro" } })
    const id = created.body.organization.id
    expect((await ada.get("")).body).toEqual({ organizations: [{ id, name: "Acme Café", slug: "acme-cafe", role: "owner" }], active: id })
    // A second one does not take over as active.
    const second = await ada.post("", { name: "Beta", slug: "beta" })
    expect(second.body.organization.slug).toBe("beta")
    expect((await ada.get("")).body.active).toBe(id)
    expect(bed.events()).toEqual(["created/success", "created/success"])
  })

  it("gives a derived slug that is taken a suffix, and refuses a chosen one that is taken", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await ada.post("", { name: "Acme" })
    const derived = await ada.post("", { name: "Acme" })
    expect(derived.body.organization.slug).toMatch(/^acme-[0-9a-f]{6}$/)
    const chosen = await ada.post("", { name: "Other", slug: "acme" })
    expect(chosen.status).toBe(409)
    expect(chosen.body.error).toBe("slug-taken")
  })

  it.each([
    ["an empty name", { name: "" }, "invalid-name"],
    ["a name over 100 characters", { name: "x".repeat(101) }, "invalid-name"],
    ["a name that is no string", { name: 5 }, "invalid-name"],
    ["a slug starting with -", { name: "Acme", slug: "-acme" }, "invalid-slug"],
    ["an uppercase slug", { name: "Acme", slug: "Acme" }, "invalid-slug"],
    ["a slug over 48 characters", { name: "Acme", slug: "a".repeat(49) }, "invalid-slug"],
    ["metadata that is an array", { name: "Acme", metadata: [1] }, "invalid-metadata"],
    ["metadata over 4 KiB", { name: "Acme", metadata: { blob: "x".repeat(4100) } }, "invalid-metadata"],
  ])("refuses %s with 422", async (_label, body, code) => {
    const ada = await testbed().person("ada")
    const refused = await ada.post("", body)
    expect(refused.status).toBe(422)
    expect(refused.body.error).toBe(code)
  })

  it("refuses beyond the per-user limit with organization-limit", async () => {
    const bed = testbed({ extension: { limits: { organizationsPerUser: 2 } } })
    const ada = await bed.person("ada")
    await ada.post("", { name: "One" })
    await ada.post("", { name: "Two" })
    const third = await ada.post("", { name: "Three" })
    expect(third.status).toBe(409)
    expect(third.body.error).toBe("organization-limit")
  })

  it("needs a session", async () => {
    const bed = testbed()
    const ada = await bed.person("ada", { signedIn: false })
    expect((await ada.get("")).status).toBe(401)
  })
})

describe("reading, changing and deleting an organization", () => {
  it("shows it to a member, changes it for an admin, deletes it for the owner", async () => {
    const bed = testbed()
    const { id, owner, admin, member } = await team(bed)
    expect((await member.get(id)).body.organization).toMatchObject({ id, name: "Acme", slug: "acme", role: "member" })
    const changed = await admin.post(id, { name: "Acme Inc", slug: "acme-inc", metadata: { seats: 9 } })
    expect(changed.status).toBe(200)
    expect(changed.body.organization).toMatchObject({ name: "Acme Inc", slug: "acme-inc", metadata: { seats: 9 }, role: "admin" })
    const deleted = await owner.post(`${id}/delete`)
    expect(deleted.status).toBe(200)
    expect(deleted.body).toEqual({ deleted: true })
    expect((await member.get(id)).status).toBe(404)
    expect((await owner.get("")).body.organizations).toEqual([])
    expect(bed.events()).toContain("updated/success")
    expect(bed.events()).toContain("deleted/success")
  })

  it("refuses a slug another organization has", async () => {
    const bed = testbed()
    const { id, owner } = await team(bed)
    await owner.post("", { name: "Taken" })
    const refused = await owner.post(id, { slug: "taken" })
    expect(refused.status).toBe(409)
    expect(refused.body.error).toBe("slug-taken")
  })
})

describe("members", () => {
  it("lists them with name and email, to any member", async () => {
    const bed = testbed()
    const { id, member } = await team(bed)
    const listed = await member.get(`${id}/members`)
    expect(listed.status).toBe(200)
    expect(listed.body.members.map((m: any) => [m.email, m.role, m.name])).toEqual([
      ["olivia@example.com", "owner", "Olivia"],
      ["adam@example.com", "admin", "Adam"],
      ["mia@example.com", "member", "Mia"],
      ["bill@example.com", "billing", "Bill"],
    ])
  })

  it("changes a role and removes a member for an admin, and lets a member leave", async () => {
    const bed = testbed()
    const { id, admin, member, billing } = await team(bed)
    const changed = await admin.post(`${id}/members/${member.id}/role`, { role: "admin" })
    expect(changed.status).toBe(200)
    expect(changed.body).toEqual({ userId: member.id, role: "admin" })
    expect((await admin.post(`${id}/members/${member.id}/remove`)).body).toEqual({ removed: true })
    expect((await billing.post(`${id}/leave`)).body).toEqual({ removed: true })
    const left = (await admin.get(`${id}/members`)).body.members.map((m: any) => m.userId)
    expect(left).not.toContain(member.id)
    expect(left).not.toContain(billing.id)
    expect(bed.events()).toEqual(expect.arrayContaining(["roleChanged/success", "memberRemoved/success"]))
  })

  it("answers 404 for a user who is not a member", async () => {
    const bed = testbed()
    const { id, owner } = await team(bed)
    const refused = await owner.post(`${id}/members/user-nobody/role`, { role: "member" })
    expect(refused.status).toBe(404)
    expect(refused.body.error).toBe("member-not-found")
  })
})

describe("invitations", () => {
  it("creates one, mails the link in the inviter's language, lists it, revokes it", async () => {
    const bed = testbed()
    const { id, owner } = await team(bed)
    const invited = await owner.browser.request(`/auth/organizations/${id}/invitations`, {
      json: { email: "  Zoe@Example.COM ", role: "member" },
      headers: { "x-csrf-token": await owner.browser.csrfToken(), "accept-language": "de" },
    })
    expect(invited.status).toBe(201)
    const { invitation } = (await invited.json()) as any
    expect(invitation).toMatchObject({ organizationId: id, email: "zoe@example.com", role: "member", status: "pending" })
    expect(JSON.stringify(invitation)).not.toMatch(/token/i)
    const mail = bed.mail.sent.at(-1)!
    expect(mail.to).toBe("zoe@example.com")
    expect(mail.url).toMatch(new RegExp(`^http://localhost:3000/auth/organizations/invitations/${invitation.id}\\?token=[A-Za-z0-9_-]{43}$`))
    expect(mail.messages.subject).toBe("Olivia hat Sie zu Acme eingeladen")
    expect(mail.locale).toBe("de")
    // Only the hash is stored.
    const stored = await bed.store.getInvitation(invitation.id)
    expect(stored!.tokenHash).toMatch(/^[0-9a-f]{64}$/)
    expect(stored!.tokenHash).not.toContain(bed.invitationFor("zoe@example.com").token)

    const listed = await owner.get(`${id}/invitations`)
    expect(listed.body.invitations.map((i: any) => i.id)).toContain(invitation.id)
    expect((await owner.post(`${id}/invitations/${invitation.id}/revoke`)).body).toEqual({ revoked: true })
    expect((await owner.get(`${id}/invitations`)).body.invitations.map((i: any) => i.id)).not.toContain(invitation.id)
    expect((await owner.post(`${id}/invitations/${invitation.id}/revoke`)).status).toBe(404)
    expect(bed.events()).toEqual(expect.arrayContaining(["invitationCreated/success", "invitationRevoked/success"]))
    // The address is in the creation's details; the token nowhere in the trail.
    const trail = JSON.stringify(bed.audit)
    expect(trail).not.toContain(bed.invitationFor("zoe@example.com").token)
  })

  it("accepts one as JSON, making the organization active, with memberAdded in the trail", async () => {
    const bed = testbed()
    const { id, owner } = await team(bed)
    const zoe = await bed.person("zoe")
    await owner.post(`${id}/invitations`, { email: zoe.email, role: "billing" })
    const { id: invitationId, token } = bed.invitationFor(zoe.email)
    const accepted = await zoe.post(`invitations/${invitationId}/accept`, { token })
    expect(accepted.status).toBe(200)
    expect(accepted.body).toEqual({ organization: { id, name: "Acme", slug: "acme", role: "billing" } })
    expect((await zoe.get("")).body.active).toBe(id)
    expect(bed.events()).toEqual(expect.arrayContaining(["invitationAccepted/success", "memberAdded/success"]))
  })

  it("accepts one from the page's form with a redirect to the callback on the site", async () => {
    const bed = testbed()
    const { id, owner } = await team(bed)
    const zoe = await bed.person("zoe")
    await owner.post(`${id}/invitations`, { email: zoe.email })
    const { id: invitationId, token } = bed.invitationFor(zoe.email)
    const csrfToken = await zoe.browser.csrfToken()
    const posted = await zoe.browser.request(`/auth/organizations/invitations/${invitationId}/accept`, { form: { csrfToken, token, callbackUrl: "/team" } })
    expect(posted.status).toBe(302)
    expect(posted.headers.get("location")).toBe("http://localhost:3000/team")
  })

  it("never redirects a form's accept off the site", async () => {
    const bed = testbed()
    const { id, owner } = await team(bed)
    const zoe = await bed.person("zoe")
    await owner.post(`${id}/invitations`, { email: zoe.email })
    const { id: invitationId, token } = bed.invitationFor(zoe.email)
    const csrfToken = await zoe.browser.csrfToken()
    const posted = await zoe.browser.request(`/auth/organizations/invitations/${invitationId}/accept`, { form: { csrfToken, token, callbackUrl: "https://evil.example/x" } })
    expect(posted.headers.get("location")).toBe("http://localhost:3000/")
  })
})

describe("the active organization", () => {
  it("switches to one the user belongs to, and clears with null", async () => {
    const bed = testbed()
    const { id, member } = await team(bed)
    const own = (await member.post("", { name: "Mine" })).body.organization.id
    expect((await member.get("")).body.active).toBe(id)
    const switched = await member.post("active", { organizationId: own })
    expect(switched.body.active).toMatchObject({ id: own, role: "owner" })
    expect((await member.session()).organizations).toEqual({ userId: member.id, active: { id: own, name: "Mine", slug: "mine", role: "owner" } })
    expect((await member.post("active", { organizationId: null })).body).toEqual({ active: null })
    expect((await member.session()).organizations.active).toBeNull()
    expect(bed.events()).toContain("activeChanged/success")
  })

  it("refuses an organizationId that is not an id, rather than clearing", async () => {
    const bed = testbed()
    const { id, member } = await team(bed)
    const refused = await member.post("active", { organizationId: 5 })
    expect(refused.status).toBe(422)
    expect((await member.get("")).body.active).toBe(id)
  })

  it("refuses one the user does not belong to, as not found", async () => {
    const bed = testbed()
    const { id } = await team(bed)
    const stranger = await bed.person("sam")
    const refused = await stranger.post("active", { organizationId: id })
    expect(refused.status).toBe(404)
    expect(refused.body.error).toBe("not-found")
  })
})
