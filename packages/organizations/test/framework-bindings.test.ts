/**
 * The React hooks' equivalents for Svelte (stores) and Solid (signals), over the real routes
 * through `Auth()`: each sees the signed-in user's organizations, and a change made through
 * the same client (a switch, a create) reaches every subscriber.
 */
import { describe, expect, it } from "vitest"
import { createRoot } from "solid-js"
import { organizationsClient } from "@portcullis/organizations/client"
import { activeOrganizationStore, organizationsStore, organizationStore } from "@portcullis/organizations/svelte"
import { createActiveOrganization, createOrganizations } from "@portcullis/organizations/solid"
import { testbed, type Actor } from "./support.js"

function clientOf(who: Actor) {
  return organizationsClient({ basePath: "/auth", fetch: (input, init) => who.browser.request(String(input), init as RequestInit) })
}

/** Resolves with the first value `subscribe` delivers that `done` accepts. */
function until<T>(subscribe: (run: (value: T) => void) => () => void, done: (value: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    let stop: (() => void) | undefined
    let finished = false
    stop = subscribe((value) => {
      if (finished || !done(value)) return
      finished = true
      // The first call may come before `subscribe` returned the unsubscriber.
      queueMicrotask(() => stop?.())
      resolve(value)
    })
  })
}

describe("Svelte stores", () => {
  it("follow the store contract: the current value at once, then each change", async () => {
    const ada = await testbed().person("ada")
    const client = clientOf(ada)
    const store = organizationsStore({ client })
    const seen: unknown[] = []
    const stop = store.subscribe((value) => seen.push(value))
    // Called synchronously with the snapshot as it is (loading or not), as Svelte requires.
    expect(seen.length).toBeGreaterThanOrEqual(1)
    const empty = await until(store.subscribe, (s) => s.data !== undefined)
    expect(empty.data).toEqual({ organizations: [], active: null })
    const acme = await store.create({ name: "Acme" })
    const listed = await until(store.subscribe, (s) => (s.data?.organizations.length ?? 0) === 1)
    expect(listed.data).toEqual({ organizations: [{ id: acme.id, name: "Acme", slug: "acme", role: "owner" }], active: acme.id })
    stop()
  })

  it("show the active organization and one organization's members", async () => {
    const ada = await testbed().person("ada")
    const client = clientOf(ada)
    const acme = await client.create({ name: "Acme" })
    const active = activeOrganizationStore({ client })
    expect((await until(active.subscribe, (s) => s.data !== undefined)).data).toMatchObject({ id: acme.id, role: "owner" })
    const one = organizationStore(acme.id, { client })
    const loaded = await until(one.subscribe, (s) => s.data !== undefined)
    expect(loaded.data?.members.map((m) => m.role)).toEqual(["owner"])
  })
})

describe("Solid signals", () => {
  it("hold the snapshot and follow the client's changes, disposed with their owner", async () => {
    const ada = await testbed().person("ada")
    const client = clientOf(ada)
    await createRoot(async (dispose) => {
      const organizations = createOrganizations({ client })
      const active = createActiveOrganization({ client })
      await organizations.refresh()
      expect(organizations.state()?.data).toEqual({ organizations: [], active: null })
      const acme = await organizations.create({ name: "Acme" })
      await organizations.refresh()
      await active.refresh()
      expect(organizations.state()?.data?.active).toBe(acme.id)
      expect(active.state()?.data).toMatchObject({ id: acme.id })
      dispose()
    })
  })
})
