/**
 * Impersonation as the spec has it: an admin acts as a user (re-authenticated, audited, a
 * banner in the session), never as another admin nor a banned user, nor from an
 * impersonated session; the session ends at its limit however active; one click ends it and
 * gives back exactly the admin's own session — on JWT (with a registry) and database sessions.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { adminRoutes } from "@portcullis/admin/routes"
import { MemoryImpersonationStore, memoryImpersonationStore } from "@portcullis/admin/memory"
import { redirectOf, testbed, type TestbedOptions } from "./support.js"

const IMPERSONATOR = /impersonator/

function bedWith(strategy: "jwt" | "database", options: TestbedOptions = {}) {
  return testbed({ strategy, ...options, extension: { impersonation: { store: memoryImpersonationStore(), landing: "/account" }, ...options.extension } })
}

afterEach(() => {
  vi.useRealTimers()
})

for (const strategy of ["jwt", "database"] as const) {
  describe(`starting and ending an impersonation (${strategy})`, () => {
    it("makes the session the user's with session.admin naming the admin, and the end restores the admin's own", async () => {
      const bed = bedWith(strategy)
      const ada = await bed.person("ada")
      const bob = await bed.person("bob")
      const adaToken = [...ada.browser.jar].filter(([name]) => name.includes("session-token"))
      const started = await ada.post("users/user-bob/impersonate")
      expect(started.status).toBe(200)
      expect(Object.keys(started.body)).toEqual(["until"])
      const session = await ada.session()
      expect(session.user.email).toBe("bob@example.com")
      expect(session.admin).toMatchObject({ impersonatedBy: { id: "user-ada", email: "ada@example.com" } })
      expect(new Date(session.admin.until).getTime() - Date.now()).toBeGreaterThan(29 * 60_000)
      expect(new Date(session.admin.until).getTime() - Date.now()).toBeLessThanOrEqual(30 * 60_000)
      // Bob's own session is untouched, and has no banner.
      expect((await bob.session()).admin).toBeUndefined()

      const ended = await ada.post("impersonation/end")
      expect(ended.body).toEqual({ userId: "user-bob", restored: true })
      const back = await ada.session()
      expect(back.user.email).toBe("ada@example.com")
      expect(back.admin).toBeUndefined()
      // Exactly the admin's session: the same token as before, and no impersonator cookie left.
      expect([...ada.browser.jar].filter(([name]) => name.includes("session-token")).map(([n, c]) => [n, c.value])).toEqual(adaToken.map(([n, c]) => [n, c.value]))
      expect([...ada.browser.jar.keys()].some((n) => IMPERSONATOR.test(n))).toBe(false)
      expect((await bob.session()).user.email).toBe("bob@example.com")
      expect(bed.events()).toEqual(["impersonationStarted/success", "impersonationEnded/success"])
      expect(bed.audit.find((e) => e.type === "admin.impersonationStarted")).toMatchObject({ userId: "user-bob", actor: "user-ada" })
      expect(bed.audit.find((e) => e.type === "admin.impersonationEnded")).toMatchObject({ userId: "user-bob", actor: "user-ada" })
    })

    it("leaves no way back into the ended session: a copy of its cookie is refused", async () => {
      const bed = bedWith(strategy)
      const ada = await bed.person("ada")
      await bed.person("bob")
      await ada.post("users/user-bob/impersonate")
      const copy = await ada.anotherBrowserUnsigned()
      for (const [name, cookie] of ada.browser.jar) copy.browser.jar.set(name, cookie)
      await ada.post("impersonation/end")
      expect(await copy.session()).toBeNull()
    })

    it("from the console's forms: lands on the app, shows the banner on extension pages, ends back on the user's page", async () => {
      const bed = bedWith(strategy)
      const ada = await bed.person("ada")
      await bed.person("bob")
      const userPage = await ada.page("users/user-bob")
      expect(userPage.body).toContain("/admin/users/user-bob/impersonate")
      const started = await ada.form("users/user-bob/impersonate")
      expect(started.status).toBe(302)
      expect(new URL(started.response.headers.get("location")!).pathname).toBe("/account")
      const refused = await ada.page("users/user-bob")
      expect(refused.status).toBe(403)
      expect(refused.body).toContain('class="pc-impersonation"')
      expect(refused.body).toContain("You are acting as bob@example.com: an impersonation by ada@example.com")
      expect(refused.body).toContain("/auth/admin/impersonation/end")
      const ended = await ada.form("impersonation/end")
      expect(redirectOf(ended.response).path).toBe("/auth/admin/users/user-bob")
      expect((await ada.page("users/user-bob")).status).toBe(200)
    })

    it("lists linked accounts and passkeys on the user's page", async () => {
      const bed = bedWith(strategy)
      const ada = await bed.person("ada")
      await bed.person("bob", { signedIn: false })
      const details = await ada.get("api/users/user-bob")
      expect(details.body.waysIn).toEqual({ accounts: [], passkeys: null })
      expect(details.body.canImpersonate).toBe(true)
    })
  })

  describe(`the hard limit (${strategy})`, () => {
    it("ends the impersonated session at its limit however active it is, audits the expiry, and the end still restores the admin", async () => {
      const bed = bedWith(strategy, { extension: { impersonation: { store: memoryImpersonationStore(), maxAge: 60 } } })
      const ada = await bed.person("ada")
      await bed.person("bob")
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })
      await ada.post("users/user-bob/impersonate")
      for (let i = 0; i < 5; i++) {
        vi.setSystemTime(Date.now() + 10_000)
        expect((await ada.session()).user.email).toBe("bob@example.com")
      }
      vi.setSystemTime(Date.now() + 11_000)
      expect(await ada.session()).toBeNull()
      // Nor on an extension's route (the account center, the console).
      expect((await ada.get("api/users")).status).toBe(401)
      expect(bed.events()).toContain("impersonationExpired/success")
      const ended = await ada.post("impersonation/end")
      expect(ended.body).toEqual({ userId: null, restored: true })
      expect((await ada.session()).user.email).toBe("ada@example.com")
    })
  })

  describe(`who may not be impersonated, and by whom (${strategy})`, () => {
    it("refuses another admin (403), a banned user (409), oneself (409), and a non-admin caller (403) — changing nothing", async () => {
      const bed = bedWith(strategy)
      const ada = await bed.person("ada")
      await bed.person("root", { role: "admin", signedIn: false })
      const bob = await bed.person("bob")
      await bed.person("carol", { signedIn: false })
      await ada.post("users/user-carol/ban", { reason: "spam" })
      expect((await ada.post("users/user-root/impersonate")).body.error).toBe("target-is-admin")
      expect((await ada.post("users/user-root/impersonate")).status).toBe(403)
      expect((await ada.post("users/user-carol/impersonate")).body.error).toBe("target-banned")
      expect((await ada.post("users/user-ada/impersonate")).body.error).toBe("cannot-impersonate-self")
      const byBob = await bob.post("users/user-carol/impersonate")
      expect(byBob.status).toBe(403)
      expect(byBob.body.error).toBe("not-admin")
      expect((await ada.session()).user.email).toBe("ada@example.com")
      expect((await bob.session()).user.email).toBe("bob@example.com")
      expect(bed.events().filter((e) => e.startsWith("impersonation"))).toEqual([])
    })

    it("needs a recent re-authentication", async () => {
      const bed = bedWith(strategy)
      const ada = await bed.person("ada")
      await bed.person("bob")
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 2 * 3600_000 })
      const refused = await ada.post("users/user-bob/impersonate")
      expect(refused.status).toBe(403)
      expect(refused.body.error).toBe("StepUpRequired")
      expect((await ada.session()).user.email).toBe("ada@example.com")
    })

    it("refuses a start or an end without the CSRF token", async () => {
      const bed = bedWith(strategy)
      const ada = await bed.person("ada")
      await bed.person("bob")
      const start = await ada.browser.request("/auth/admin/users/user-bob/impersonate", { json: {} })
      expect(start.status).toBe(403)
      expect((await ada.session()).user.email).toBe("ada@example.com")
      await ada.post("users/user-bob/impersonate")
      const end = await ada.browser.request("/auth/admin/impersonation/end", { json: {} })
      expect(end.status).toBe(403)
      expect((await ada.session()).user.email).toBe("bob@example.com")
    })

    it("gives an impersonated session no admin route — even once its user is made an admin — and no chain", async () => {
      const bed = bedWith(strategy)
      const ada = await bed.person("ada")
      await bed.person("bob")
      await bed.person("carol", { signedIn: false })
      await ada.post("users/user-bob/impersonate")
      await bed.adapter.updateUser!({ id: "user-bob", role: "admin" } as never)
      for (const route of adminRoutes) {
        if (route.path === "impersonation/end") continue
        const path = route.path.replace(":userId", "user-carol")
        const answer = route.method === "GET" ? await ada.get(path) : await ada.post(path, { reason: "x" })
        expect(answer.status, `${route.method} ${route.path}`).toBe(403)
        // The console's pages answer a page with the banner and its end button; the rest JSON.
        if (route.answers === "page") expect(answer.body, route.path).toContain('class="pc-impersonation"')
        else expect(answer.body.error, `${route.method} ${route.path}`).toBe("impersonating")
      }
      await expect(ada.server().listUsers()).rejects.toMatchObject({ code: "impersonating" })
      await expect(ada.server().impersonate("user-carol")).rejects.toMatchObject({ code: "impersonating" })
      expect((await ada.session()).user.email).toBe("bob@example.com")
    })

    it("ignores a tampered impersonator cookie, and one of another impersonation: the end restores nobody's session", async () => {
      const bed = bedWith(strategy)
      const ada = await bed.person("ada")
      const root = await bed.person("root", { role: "admin" })
      await bed.person("bob")
      await bed.person("carol")
      await ada.post("users/user-bob/impersonate")
      await root.post("users/user-carol/impersonate")
      const name = [...ada.browser.jar.keys()].find((n) => IMPERSONATOR.test(n))!
      // Root's browser holds ada's impersonator cookie: it names another session, so it is not used.
      root.browser.jar.set(name, ada.browser.jar.get(name)!)
      const swapped = await root.post("impersonation/end")
      expect(swapped.body).toEqual({ userId: "user-carol", restored: false })
      expect(await root.session()).toBeNull()
      // A tampered one does not open.
      const cookie = ada.browser.jar.get(name)!
      ada.browser.jar.set(name, { ...cookie, value: cookie.value.slice(0, -4) + (cookie.value.endsWith("AAAA") ? "BBBB" : "AAAA") })
      const tampered = await ada.post("impersonation/end")
      expect(tampered.body).toEqual({ userId: "user-bob", restored: false })
      expect(await ada.session()).toBeNull()
    })
  })

  describe(`concurrency (${strategy})`, () => {
    it("50 concurrent starts by one admin: each answered, each audited, the browser ends as one impersonation that ends back to the admin", async () => {
      const bed = bedWith(strategy)
      const ada = await bed.person("ada")
      await bed.person("bob")
      const csrf = await ada.browser.csrfToken()
      const cookie = ada.browser.cookieHeader()
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => ada.browser.request("/auth/admin/users/user-bob/impersonate", { json: {}, headers: { "x-csrf-token": csrf, cookie } })),
      )
      const statuses = answers.map((a) => a.status)
      expect(statuses.every((s) => s === 200)).toBe(true)
      expect(bed.events().filter((e) => e === "impersonationStarted/success")).toHaveLength(50)
      const session = await ada.session()
      expect(session.user.email).toBe("bob@example.com")
      expect(session.admin.impersonatedBy.id).toBe("user-ada")
      expect((await ada.post("impersonation/end")).body).toEqual({ userId: "user-bob", restored: true })
      expect((await ada.session()).user.email).toBe("ada@example.com")
    })
  })
}

describe("sending a password reset", () => {
  it("is refused without a password provider (409 unsupported) and for another admin (403)", async () => {
    const bed = bedWith("jwt")
    const ada = await bed.person("ada")
    await bed.person("bob", { signedIn: false })
    await bed.person("root", { role: "admin", signedIn: false })
    expect((await ada.post("users/user-bob/send-password-reset")).body.error).toBe("unsupported")
    expect((await ada.post("users/user-root/send-password-reset")).body.error).toBe("target-is-admin")
    expect(bed.events()).toEqual(["passwordResetSent/failure"])
  })
})

class FlakyImpersonations extends MemoryImpersonationStore {
  mode: "ok" | "down" | "slow" = "ok"
  async #trouble() {
    if (this.mode === "down") throw new Error("connect ECONNREFUSED 10.0.0.9:6379 (impersonations)")
    if (this.mode === "slow") await new Promise((resolve) => setTimeout(resolve, 300))
  }
  override async put(...args: Parameters<MemoryImpersonationStore["put"]>) {
    await this.#trouble()
    return super.put(...args)
  }
  override async get(...args: Parameters<MemoryImpersonationStore["get"]>) {
    await this.#trouble()
    return super.get(...args)
  }
}

for (const strategy of ["jwt", "database"] as const) {
  describe(`the impersonation store down or slow (${strategy})`, () => {
    it("refuses to start (503, no driver message), leaving the admin's session as it was", async () => {
      const store = new FlakyImpersonations()
      const bed = bedWith(strategy, { extension: { impersonation: { store } } })
      const ada = await bed.person("ada")
      await bed.person("bob")
      const jar = [...ada.browser.jar].map(([n, c]) => [n, c.value])
      store.mode = "down"
      const refused = await ada.post("users/user-bob/impersonate")
      expect(refused.status).toBe(503)
      expect(JSON.stringify(refused.body)).not.toContain("ECONNREFUSED")
      expect([...ada.browser.jar].map(([n, c]) => [n, c.value])).toEqual(jar)
      store.mode = "ok"
      expect((await ada.session()).user.email).toBe("ada@example.com")
    })

    it("answers an impersonated session's check with 503 while the store is down — never a plain session of the user", async () => {
      const store = new FlakyImpersonations()
      const bed = bedWith(strategy, { extension: { impersonation: { store } } })
      const ada = await bed.person("ada")
      await bed.person("bob")
      await ada.post("users/user-bob/impersonate")
      store.mode = "down"
      const check = await ada.browser.request("/auth/session")
      expect(check.status).toBe(503)
      expect((await ada.get("api/users")).status).toBe(503)
      store.mode = "slow"
      expect((await ada.session()).admin.impersonatedBy.id).toBe("user-ada")
    })
  })
}
