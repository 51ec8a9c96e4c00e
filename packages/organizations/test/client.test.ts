/**
 * The browser client (`@portcullis/organizations/client`) against the real routes through
 * `Auth()`, with a browser's cookies: the CSRF header on changes, errors with the route's
 * code, and the cache the React hooks read (`watch`), reloaded after a change.
 */
import { describe, expect, it } from "vitest"
import { createElement } from "react"
import { renderToString } from "react-dom/server"
import { organizationsClient, OrganizationsClientError } from "@portcullis/organizations/client"
import { useActiveOrganization, useOrganization, useOrganizations } from "@portcullis/organizations/react"
import { team, testbed, type Actor } from "./support.js"

/** A client whose fetch goes through the person's browser (cookies kept, same origin). */
function clientOf(who: Actor) {
  return organizationsClient({ basePath: "/auth", fetch: (input, init) => who.browser.request(String(input), init as RequestInit) })
}

describe("the browser client", () => {
  it("lists, creates, switches and invites with the CSRF header", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const client = clientOf(ada)
    expect(await client.list()).toEqual({ organizations: [], active: null })
    const acme = await client.create({ name: "Acme" })
    const beta = await client.create({ name: "Beta" })
    expect((await client.list()).active).toBe(acme.id)
    expect((await client.switchActive(beta.id)).active).toMatchObject({ id: beta.id })
    expect(await client.active()).toEqual({ id: beta.id, name: "Beta", slug: "beta", role: "owner" })
    const invitation = await client.invite(acme.id, { email: "zoe@example.com", role: "admin" })
    expect((await client.invitations(acme.id)).map((i) => i.id)).toEqual([invitation.id])
    expect(await client.revokeInvitation(acme.id, invitation.id)).toEqual({ revoked: true })
    expect((await client.members(acme.id)).map((m) => m.role)).toEqual(["owner"])
  })

  it("accepts an invitation and changes roles", async () => {
    const bed = testbed()
    const { id, owner } = await team(bed)
    const zoe = await bed.person("zoe")
    await clientOf(owner).invite(id, { email: zoe.email })
    const { id: invitationId, token } = bed.invitationFor(zoe.email)
    expect((await clientOf(zoe).accept(invitationId, token)).organization.id).toBe(id)
    expect(await clientOf(owner).setRole(id, zoe.id, "admin")).toEqual({ userId: zoe.id, role: "admin" })
    expect(await clientOf(zoe).leave(id)).toEqual({ removed: true })
  })

  it("throws the route's refusal with its code and status", async () => {
    const bed = testbed()
    const { id, member } = await team(bed)
    const error = await clientOf(member).update(id, { name: "Mine" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OrganizationsClientError)
    expect(error).toMatchObject({ code: "forbidden", status: 403 })
  })

  it("fetches a new CSRF token once when the old one no longer matches the cookie", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const client = clientOf(ada)
    await client.create({ name: "One" })
    ada.browser.jar.delete("authjs.csrf-token")
    expect((await client.create({ name: "Two" })).name).toBe("Two")
  })

  it("keeps watched reads and loads them again after a change", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const client = clientOf(ada)
    const list = client.watch("list", () => client.list())
    let notified = 0
    const unsubscribe = list.subscribe(() => notified++)
    await list.refresh()
    expect(list.snapshot()).toMatchObject({ data: { organizations: [] }, loading: false })
    await client.create({ name: "Acme" })
    await expect.poll(() => list.snapshot().data?.organizations.length).toBe(1)
    expect(notified).toBeGreaterThan(0)
    unsubscribe()
  })
})

describe("the React hooks", () => {
  it("render without fetching on the server, as nothing loaded yet", () => {
    let fetched = 0
    const client = organizationsClient({ fetch: async () => (fetched++, new Response("{}")) })
    const seen: unknown[] = []
    function Probe() {
      seen.push(useOrganizations({ client }).data, useActiveOrganization({ client }).data, useOrganization("org-1", { client }).data, useOrganization(null, { client }).loading)
      return null
    }
    renderToString(createElement(Probe))
    expect(seen).toEqual([undefined, undefined, undefined, false])
    expect(fetched).toBe(0)
  })
})
