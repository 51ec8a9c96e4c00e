/**
 * Issue 32's "active sessions" in the console's charts: the number of sessions that have not
 * expired (counted by the session store: the adapter's `countSessions`, the registry's
 * `count`), "not available" when the store cannot count (never a 500), and active users
 * per day (distinct users signing in, from the audit trail) as SVG with its table.
 */
import { describe, expect, it } from "vitest"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import type { SessionRegistry } from "@portcullis/core"
import { testbed } from "./support.js"

const svgCount = (body: string) => body.match(/<svg\b/g)?.length ?? 0

describe("active users per day", () => {
  it("counts each user once a day however often they sign in, and not failed sign-ins", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const bob = await bed.person("bob")
    await ada.anotherBrowser()
    await bob.anotherBrowser()
    await ada.browser.signIn({ email: "nobody@example.com" })
    const stats = await ada.get("api/stats?days=2")
    expect(stats.status).toBe(200)
    expect(stats.body.days.map((d: { activeUsers: number }) => d.activeUsers)).toEqual([0, 2])
    expect(stats.body.days.at(-1).success.credentials).toBe(4)
  })

  it("is drawn as a fourth SVG with its title, description and data table", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await bed.person("bob")
    const page = await ada.page("charts")
    expect(page.status).toBe(200)
    expect(svgCount(page.body)).toBe(4)
    expect(page.body).toMatch(/<svg[^>]*role="img"[^>]*aria-labelledby="chart-active-users-title chart-active-users-desc"/)
    expect(page.body).toContain('<desc id="chart-active-users-desc">Total: 2</desc>')
    expect(page.body).toContain("<caption>Active users per day (distinct users signing in)</caption>")
  })
})

describe("active sessions", () => {
  it("JWT with a registry: the registry's count of live sessions, which drops when sessions end", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await bed.person("bob")
    await ada.anotherBrowser()
    expect((await ada.get("api/stats?days=1")).body.activeSessions).toBe(3)
    expect((await ada.page("charts")).body).toContain('<p id="active-sessions">Sessions that have not expired, right now: 3</p>')
    await ada.server().revokeSessions("user-bob")
    expect((await ada.get("api/stats?days=1")).body.activeSessions).toBe(2)
  })

  it("database sessions: the adapter's countSessions", async () => {
    const bed = testbed({ strategy: "database" })
    const ada = await bed.person("ada")
    await bed.person("bob")
    // An expired row is no active session.
    await bed.adapter.createSession!({ sessionToken: "expired-row", userId: "user-bob", expires: new Date(Date.now() - 1000) })
    expect((await ada.get("api/stats?days=1")).body.activeSessions).toBe(2)
  })

  it("a registry that cannot count: the page says not available, in the reader's language, never a 500", async () => {
    // The memory registry's methods without `count`, as a registry without the capability.
    const inner = new MemorySessionRegistry()
    const registry: SessionRegistry = {
      add: (r) => inner.add(r),
      touch: (...a) => inner.touch(...a),
      list: (u) => inner.list(u),
      remove: (u, ids) => inner.remove(u, ids),
      removeAll: (u) => inner.removeAll(u),
    }
    const bed = testbed({ config: { session: { strategy: "jwt", registry } } })
    const ada = await bed.person("ada")
    expect((await ada.get("api/stats?days=1")).body.activeSessions).toBeNull()
    const page = await ada.page("charts")
    expect(page.status).toBe(200)
    expect(page.body).toContain("Not available: the session store cannot count sessions.")
    const de = await ada.browser.request("/auth/admin/charts", { headers: { accept: "text/html", "accept-language": "de" } })
    expect(await de.text()).toContain("Nicht verfügbar")
  })

  it("JWT sessions without a registry: not available, never a 500", async () => {
    const bed = testbed({ config: { session: { strategy: "jwt" } } })
    const ada = await bed.person("ada")
    expect((await ada.get("api/stats?days=1")).body.activeSessions).toBeNull()
    const page = await ada.page("charts")
    expect(page.status).toBe(200)
    expect(page.body).toContain('<p id="active-sessions">Not available: the session store cannot count sessions.</p>')
  })

  it("an adapter without countSessions (database sessions): not available, and the other charts stay", async () => {
    const { countSessions: _, ...adapter } = MemoryAdapter()
    const bed = testbed({ strategy: "database", adapter })
    const ada = await bed.person("ada")
    const page = await ada.page("charts")
    expect(page.status).toBe(200)
    expect(page.body).toContain("Not available")
    expect(svgCount(page.body)).toBe(4)
  })

  it("the store down: the count fails as an outage (503), not a 500, and no stack reaches the page", async () => {
    const memory = MemoryAdapter()
    let down = false
    const adapter = { ...memory, countSessions: async () => (down ? Promise.reject(new Error("connect ECONNREFUSED 10.0.0.5:5432")) : memory.countSessions!()) }
    const bed = testbed({ strategy: "database", adapter })
    const ada = await bed.person("ada")
    down = true
    const page = await ada.page("charts")
    expect(page.status).toBe(503)
    expect(page.body).not.toContain("ECONNREFUSED")
    down = false
    expect((await ada.page("charts")).status).toBe(200)
  })

  it("50 admins' pages at once all see the same count", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await bed.person("bob")
    const answers = await Promise.all(Array.from({ length: 50 }, () => ada.get("api/stats?days=1")))
    expect(new Set(answers.map((a) => `${a.status}:${a.body.activeSessions}`))).toEqual(new Set(["200:2"]))
  })
})
