/**
 * Attacks, class 4: removal, then an old session. A member removed (or demoted) keeps the
 * cookie they had — a JWT or a database session token, in more than one browser — and tries
 * every way back in. Nothing in a cookie may vouch for a membership: the next check reads
 * the store.
 */
import { describe, expect, it } from "vitest"
import { team, testbed } from "../support.js"

describe.each(["jwt", "database"] as const)("a removed member's old %s session", (strategy) => {
  it("has no active organization, can is false and every route and function refuses, at once", async () => {
    const bed = testbed({ strategy })
    const { id, owner, admin, member } = await team(bed)
    const second = await admin.anotherSession()
    await admin.post("active", { organizationId: id })
    await second.post("active", { organizationId: id })
    expect((await admin.session()).organizations.active).toMatchObject({ id, role: "admin" })

    expect((await owner.post(`${id}/members/${admin.id}/remove`)).status).toBe(200)

    for (const session of [admin, second]) {
      // The very cookie held before the removal: no refresh, no sign-in since.
      expect((await session.session()).organizations.active).toBeNull()
      expect(await session.server().can("organization:read", { organizationId: id })).toBe(false)
      expect(await session.server().can("member:invite")).toBe(false)
      expect(await session.server().active()).toBeNull()
      for (const [method, path, body] of [
        ["GET", id],
        ["GET", `${id}/members`],
        ["GET", `${id}/invitations`],
        ["POST", `${id}/invitations`, { email: "back@example.com", role: "admin" }],
        ["POST", `${id}/members/${member.id}/remove`],
        ["POST", `${id}/members/${session.id}/role`, { role: "admin" }],
        ["POST", id, { name: "Mine now" }],
        ["POST", "active", { organizationId: id }],
      ] as const) {
        const answer = await session.call(method, path, body as Record<string, unknown> | undefined)
        expect({ path, status: answer.status }).toEqual({ path, status: 404 })
      }
      expect((await session.get("")).body).toEqual({ organizations: [], active: null })
    }
    expect(await bed.store.getMembership(id, admin.id)).toBeNull()
    expect(await bed.store.getMembership(id, member.id)).not.toBeNull()
    expect(bed.mail.sent.filter((m) => m.to === "back@example.com")).toEqual([])
  })

  it("shows a demotion at the next check: an ex-admin's old session invites nobody", async () => {
    const bed = testbed({ strategy })
    const { id, owner, admin } = await team(bed)
    expect(await admin.server().can("member:invite", { organizationId: id })).toBe(true)
    await owner.post(`${id}/members/${admin.id}/role`, { role: "member" })
    expect(await admin.server().can("member:invite", { organizationId: id })).toBe(false)
    expect((await admin.post(`${id}/invitations`, { email: "x@example.com" })).status).toBe(403)
    expect((await admin.session()).organizations.active).toMatchObject({ id, role: "member" })
  })

  it("re-invited after removal, gets the new invitation's role — not the old one — and the old link stays dead", async () => {
    const bed = testbed({ strategy })
    const { id, owner, admin } = await team(bed)
    const oldLink = bed.invitationFor(admin.email)
    await owner.post(`${id}/members/${admin.id}/remove`)
    expect((await admin.post(`invitations/${oldLink.id}/accept`, { token: oldLink.token })).status).toBe(410)
    await owner.post(`${id}/invitations`, { email: admin.email, role: "member" })
    const fresh = bed.invitationFor(admin.email)
    expect((await admin.post(`invitations/${fresh.id}/accept`, { token: fresh.token })).status).toBe(200)
    expect((await bed.store.getMembership(id, admin.id))?.role).toBe("member")
    expect((await admin.session()).organizations.active).toMatchObject({ id, role: "member" })
    expect(await admin.server().can("member:invite", { organizationId: id })).toBe(false)
  })
})

describe("a signed-out database session's cookie, replayed", () => {
  it("is no session for organizations: routes answer 401, can is false, active is null", async () => {
    const bed = testbed({ strategy: "database" })
    const { id, admin } = await team(bed)
    const stolen = admin.browser.cookieHeader()
    await admin.browser.signOut()
    const replay = await admin.browser.request(`/auth/organizations/${id}`, { headers: { cookie: stolen } })
    expect(replay.status).toBe(401)
    admin.browser.jar.clear()
    for (const pair of stolen.split("; ")) {
      const [name, value] = pair.split("=")
      admin.browser.jar.set(name!, { value: decodeURIComponent(value!), attributes: {} })
    }
    expect(await admin.server().can("organization:read", { organizationId: id })).toBe(false)
    expect(await admin.server().active()).toBeNull()
    await expect(admin.server().members(id)).rejects.toMatchObject({ type: "NotSignedIn" })
  })
})
