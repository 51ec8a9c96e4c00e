/**
 * The components and the store over real state: React's `<AccountCenter/>` rendered on the
 * server from a state the routes answered (every section, in the catalog's language, device
 * names not raw User-Agents), and the Svelte store loading, acting and reporting a refusal.
 */
import { createElement } from "react"
import { renderToString } from "react-dom/server"
import { afterEach, describe, expect, it, vi } from "vitest"
import { accountClient } from "@portcullis/account/client"
import { AccountCenter, SessionsSection } from "@portcullis/account/react"
import { accountStore, type AccountSnapshot } from "@portcullis/account/svelte"
import { later, plantPasskey, testbed, type Actor } from "./support.js"

afterEach(() => vi.useRealTimers())

const clientOf = (actor: Actor) =>
  accountClient({ basePath: "/auth", fetch: ((input: RequestInfo | URL, init?: RequestInit) => actor.browser.request(String(input), init ?? {})) as typeof fetch, returnTo: () => "/settings" })

describe("React: <AccountCenter/>", () => {
  it("renders every section from the routes' state, in the language asked", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await plantPasskey(bed.adapter, ada.id, "k1", "Laptop")
    const state = await clientOf(ada).state()
    const en = renderToString(createElement(AccountCenter, { initialState: state, client: clientOf(ada) }))
    for (const id of ["profile", "email", "accounts", "passkeys", "password", "two-factor", "sessions", "delete"]) expect(en).toContain(`id="${id}"`)
    expect(en).toContain("Laptop")
    expect(en).toContain("Firefox on Windows")
    expect(en).not.toContain("Mozilla/5.0")
    // Every input has its label.
    for (const [, id] of en.matchAll(/<input[^>]*id="([^"]+)"/g)) expect(en).toContain(`for="${id}"`)
    const ja = renderToString(createElement(SessionsSection, { initialState: state, client: clientOf(ada), locale: "ja" }))
    expect(ja).toContain("セッション")
    expect(ja).toContain("Windows の Firefox")
  })
})

describe("Svelte: accountStore", () => {
  it("loads on the first subscriber, acts, and turns a refusal into a localized problem", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await ada.anotherSession()
    const store = accountStore({ client: clientOf(ada), locale: "de" })
    let seen: AccountSnapshot | undefined
    const stop = store.subscribe((value) => (seen = value))
    await vi.waitFor(() => expect(seen?.data?.sessions).toHaveLength(2))
    expect(store.deviceName(seen!.data!.sessions![0]!.userAgent)).toBe("Firefox auf Windows")
    await store.run(() => store.client.updateProfile({ name: "Ada" }), "notice.saved")
    expect(seen).toMatchObject({ notice: "Gespeichert.", data: { user: { name: "Ada" } } })
    later(11 * 60_000)
    await store.run(() => store.client.revokeOtherSessions())
    expect(seen?.reauthenticateUrl).toContain("/auth/reauthenticate?callbackUrl=")
    expect(seen?.problem).toBe("Bestätige zuerst, dass du es bist, um dies zu ändern.")
    expect(seen?.data?.sessions).toHaveLength(2)
    stop()
  })
})
