/**
 * The active organization in the session (docs/organizations.md, "Session"), on JWT and
 * database sessions alike: `session.organizations`, the switch, and a removal that shows at
 * the next check — in the session answer and in `can` — without signing out.
 */
import { describe, expect, it } from "vitest"
import type { OrganizationStore } from "@portcullis/organizations"
import { memoryOrganizationStore } from "@portcullis/organizations/memory"
import { team, testbed } from "./support.js"

describe.each(["jwt", "database"] as const)("the active organization with %s sessions", (strategy) => {
  it("is in the session answer, and switches", async () => {
    const bed = testbed({ strategy })
    const { id, member } = await team(bed)
    expect((await member.session()).organizations).toEqual({ userId: member.id, active: { id, name: "Acme", slug: "acme", role: "member" } })
    const own = (await member.post("", { name: "Own" })).body.organization.id
    await member.post("active", { organizationId: own })
    expect((await member.session()).organizations.active).toMatchObject({ id: own, role: "owner" })
  })

  it("is null, and can is false, at once after the member is removed — on the old session", async () => {
    const bed = testbed({ strategy })
    const { id, owner, member } = await team(bed)
    const server = member.server("GET")
    expect(await server.can("organization:read")).toBe(true)
    await owner.post(`${id}/members/${member.id}/remove`)
    expect((await member.session()).organizations).toEqual({ userId: member.id, active: null })
    expect(await member.server("GET").can("organization:read")).toBe(false)
    expect(await member.server("GET").can("organization:read", { organizationId: id })).toBe(false)
    expect((await member.get(id)).status).toBe(404)
  })

  it("shows a role change at the next check", async () => {
    const bed = testbed({ strategy })
    const { id, owner, member } = await team(bed)
    expect(await member.server("GET").can("member:invite")).toBe(false)
    await owner.post(`${id}/members/${member.id}/role`, { role: "admin" })
    expect(await member.server("GET").can("member:invite")).toBe(true)
    expect((await member.session()).organizations.active.role).toBe("admin")
  })

  it("is kept per session: another session of the same user has its own", async () => {
    const bed = testbed({ strategy })
    const { id, member } = await team(bed)
    const own = (await member.post("", { name: "Own" })).body.organization.id
    const second = await member.anotherSession()
    await member.post("active", { organizationId: own })
    expect((await member.session()).organizations.active.id).toBe(own)
    // The second session never chose one: none is active there.
    expect((await second.session()).organizations.active).toBeNull()
    expect(id).not.toBe(own)
  })
})

describe("the session field", () => {
  it("reads the store at most twice per check", async () => {
    const inner = memoryOrganizationStore()
    const reads: string[] = []
    const counting = new Proxy(inner, {
      get(target, name: keyof OrganizationStore) {
        const value = target[name]
        return typeof value === "function" ? (...args: unknown[]) => (reads.push(String(name)), (value as (...a: unknown[]) => unknown).apply(target, args)) : value
      },
    })
    const bed = testbed({ store: counting })
    const { member } = await team(bed)
    reads.length = 0
    const session = await member.session()
    expect(session.organizations.active.name).toBe("Acme")
    expect(reads.length).toBeLessThanOrEqual(2)
  })

  it("answers 503, not a signed-out session, when the store is down", async () => {
    let down = false
    const inner = memoryOrganizationStore()
    const flaky = new Proxy(inner, {
      get(target, name: keyof OrganizationStore) {
        const value = target[name]
        return typeof value === "function" ? (...args: unknown[]) => (down ? Promise.reject(new Error("store gone")) : (value as (...a: unknown[]) => unknown).apply(target, args)) : value
      },
    })
    const bed = testbed({ store: flaky })
    const { member } = await team(bed)
    down = true
    const response = await member.browser.request("/auth/session")
    expect(response.status).toBe(503)
  })
})
