/**
 * The console's routes and server functions, as an admin uses them: the users list (search,
 * filters, pages), a user's page, ban and unban (the sessions end, sign-in is refused with
 * AccountSuspended, an expired ban lapses), ending sessions, resetting a second factor, and
 * the charts — on JWT sessions with a registry and on database sessions.
 */
import { describe, expect, it, vi } from "vitest"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { redirectOf, testbed } from "./support.js"

for (const strategy of ["jwt", "database"] as const) {
  describe(`the users list (${strategy})`, () => {
    it("lists users a page at a time, searches email and name, filters by verified and banned", async () => {
      const bed = testbed({ strategy })
      const ada = await bed.person("ada")
      for (const name of ["bob", "carol", "dave"]) await bed.person(name, { signedIn: false, verified: name !== "dave" })
      const first = await ada.get("api/users?limit=2")
      expect(first.status).toBe(200)
      expect(first.body.users.map((u: any) => u.email)).toEqual(["ada@example.com", "bob@example.com"])
      const second = await ada.get(`api/users?limit=2&cursor=${first.body.next}`)
      expect(second.body.users.map((u: any) => u.email)).toEqual(["carol@example.com", "dave@example.com"])
      expect(second.body.next).toBeNull()
      expect((await ada.get("api/users?q=CAR")).body.users.map((u: any) => u.id)).toEqual(["user-carol"])
      expect((await ada.get("api/users?verified=no")).body.users.map((u: any) => u.id)).toEqual(["user-dave"])
      await ada.post("users/user-bob/ban", { reason: "spam" })
      expect((await ada.get("api/users?banned=yes")).body.users.map((u: any) => u.id)).toEqual(["user-bob"])
    })

    it("shows the list as a page, and says so when the adapter cannot list users", async () => {
      const bed = testbed({ strategy })
      const ada = await bed.person("ada")
      const page = await ada.page("")
      expect(page.status).toBe(200)
      expect(page.body).toContain("ada@example.com")
      const { listUsers: _, ...withoutList } = MemoryAdapter()
      const bare = testbed({ strategy, adapter: withoutList })
      const admin = await bare.person("ada")
      const refused = await admin.page("")
      expect(refused.status).toBe(200)
      expect(refused.body).toContain("cannot list users")
      expect((await admin.get("api/users")).body).toEqual({ supported: false, users: [], next: null })
    })
  })

  describe(`a user's page (${strategy})`, () => {
    it("shows the user's details, sessions and audit events", async () => {
      const bed = testbed({ strategy })
      const ada = await bed.person("ada")
      await bed.person("bob")
      const details = await ada.get("api/users/user-bob")
      expect(details.status).toBe(200)
      expect(details.body).toMatchObject({ user: { id: "user-bob", email: "bob@example.com" }, ban: null, isAdmin: false, twoFactor: false })
      expect(details.body.sessions).toHaveLength(1)
      const page = await ada.page("users/user-bob")
      expect(page.body).toContain("bob@example.com")
      expect(page.body).toContain('name="csrfToken"')
    })
  })

  describe(`banning (${strategy})`, () => {
    it("ends the user's sessions, refuses their next sign-in with AccountSuspended, and audits it with the admin as actor", async () => {
      const bed = testbed({ strategy })
      const ada = await bed.person("ada")
      const bob = await bed.person("bob")
      expect((await bob.session())?.user?.email).toBe("bob@example.com")
      const banned = await ada.post("users/user-bob/ban", { reason: "spam", duration: 3600 })
      expect(banned.status).toBe(200)
      expect(banned.body.sessionsRevoked).toBe(1)
      expect(await bob.session()).toBeNull()
      const again = await bob.signIn()
      expect(redirectOf(again)).toEqual({ path: "/auth/signin", error: "AccountSuspended" })
      const page = await bob.browser.request(new URL(again.headers.get("location")!).pathname + new URL(again.headers.get("location")!).search)
      expect(await page.text()).toContain("This account is suspended")
      expect(bed.audit.find((e) => e.type === "admin.userBanned")).toMatchObject({ userId: "user-bob", actor: "user-ada", reason: "spam", outcome: "success" })
    })

    it("lifts with unban, and lapses by itself at its expiry", async () => {
      const bed = testbed({ strategy })
      const ada = await bed.person("ada")
      const bob = await bed.person("bob")
      await ada.post("users/user-bob/ban", { reason: "cool down", duration: 60 })
      expect(redirectOf(await bob.signIn()).error).toBe("AccountSuspended")
      expect((await ada.post("users/user-bob/unban")).body).toEqual({ lifted: true })
      expect(redirectOf(await bob.signIn()).error).toBeNull()
      await ada.post("users/user-bob/ban", { reason: "again", duration: 60 })
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 61_000 })
      try {
        expect(redirectOf(await bob.signIn()).error).toBeNull()
      } finally {
        vi.useRealTimers()
      }
    })

    it("works from the page's form: a redirect back with a notice, and a notice for a missing reason", async () => {
      const bed = testbed({ strategy })
      const ada = await bed.person("ada")
      await bed.person("bob")
      const empty = await ada.form("users/user-bob/ban", { reason: "" })
      expect(empty.status).toBe(302)
      expect(empty.response.headers.get("location")).toContain("error=invalid-reason")
      const done = await ada.form("users/user-bob/ban", { reason: "spam", duration: "86400" })
      expect(done.response.headers.get("location")).toContain("done=banned")
      const page = await ada.page("users/user-bob?done=banned")
      expect(page.body).toContain("The user is banned")
      expect(page.body).toContain("Reason: spam")
    })

    it("refuses banning oneself or another admin", async () => {
      const bed = testbed({ strategy })
      const ada = await bed.person("ada")
      await bed.person("root", { role: "admin" })
      expect((await ada.post("users/user-ada/ban", { reason: "x" })).body.error).toBe("cannot-ban-self")
      expect((await ada.post("users/user-root/ban", { reason: "x" })).body.error).toBe("target-is-admin")
      expect(await bed.store.get("user-root")).toBeNull()
    })
  })

  describe(`server functions (${strategy})`, () => {
    it("offers every action to an app's own UI", async () => {
      const bed = testbed({ strategy })
      const ada = await bed.person("ada")
      const bob = await bed.person("bob")
      const server = ada.server()
      expect(await server.isAdmin()).toBe(true)
      expect((await server.listUsers({ search: "bob" })).users.map((u) => u.id)).toEqual(["user-bob"])
      expect((await server.user("user-bob")).user.email).toBe("bob@example.com")
      expect(await server.ban("user-bob", { reason: "spam" })).toMatchObject({ ban: { reason: "spam", expires: null }, sessionsRevoked: 1 })
      expect(await server.unban("user-bob")).toEqual({ lifted: true })
      await bob.signIn()
      expect((await server.revokeSessions("user-bob")).revoked).toBe(1)
      expect(await bob.session()).toBeNull()
      expect((await server.stats({ days: 7 })).supported).toBe(true)
    })
  })
}

describe("sign-in charts", () => {
  it("counts sign-ins by method and outcome per day, and draws them as SVG with a title, a description and a table", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await bed.person("bob")
    await ada.browser.signIn({ email: "nobody@example.com" })
    const stats = await ada.get("api/stats?days=3")
    expect(stats.body.days).toHaveLength(3)
    const today = stats.body.days.at(-1)
    expect(today.success.credentials).toBe(2)
    expect(today.failure.credentials).toBe(1)
    const page = await ada.page("charts")
    expect(page.body).toMatch(/<svg[^>]*role="img"[^>]*aria-labelledby="chart-success-title chart-success-desc"/)
    expect(page.body).toContain("<desc id=\"chart-success-desc\">Total: 2. credentials: 2</desc>")
    expect(page.body).toContain("<caption>Successful sign-ins by method, per day</caption>")
  })
})

describe("the console in other languages", () => {
  it("speaks German and Arabic (right to left)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const de = await ada.browser.request("/auth/admin", { headers: { accept: "text/html", "accept-language": "de" } })
    expect(await de.text()).toContain("Benutzer")
    const ar = await ada.browser.request("/auth/admin", { headers: { accept: "text/html", "accept-language": "ar" } })
    const html = await ar.text()
    expect(html).toContain('dir="rtl"')
    expect(html).toContain("المستخدمون")
  })
})

describe("a user's organizations", () => {
  it("come from the app's source (organizations' public store), and a failing source is a 503, not a 500", async () => {
    const { memoryOrganizationStore } = await import("@portcullis/organizations/memory")
    const orgs = memoryOrganizationStore()
    let failing = false
    const bed = testbed({
      extension: {
        organizationsOf: async (userId) => {
          if (failing) throw new Error("connect ECONNREFUSED")
          return (await orgs.listOrganizations(userId)).map(({ organization, role }) => ({ id: organization.id, name: organization.name, role }))
        },
      },
    })
    const ada = await bed.person("ada")
    await bed.person("bob")
    await orgs.createOrganization({ id: "org-1", name: "Acme", slug: "acme", metadata: null, createdAt: new Date() }, { organizationId: "org-1", userId: "user-bob", role: "owner", createdAt: new Date() })
    expect((await ada.get("api/users/user-bob")).body.organizations).toEqual([{ id: "org-1", name: "Acme", role: "owner" }])
    expect((await ada.page("users/user-bob")).body).toContain("<th scope=\"row\">Acme</th>")
    failing = true
    expect((await ada.get("api/users/user-bob")).status).toBe(503)
  })
})
