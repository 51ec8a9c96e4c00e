/**
 * The attacker's suite: a non-admin (or nobody) on every route and server function gets
 * 401/403 and changes nothing; forms need the CSRF token and pages refuse framing; ids that
 * are unknown, malformed or another's answer the same 404; hostile search, filter and
 * cursor input is a 4xx, never a 500; a banned user's refusal holds while their ban does.
 */
import { describe, expect, it, vi } from "vitest"
import { testbed } from "./support.js"

const POSTS = ["users/user-bob/ban", "users/user-bob/unban", "users/user-bob/revoke", "users/user-bob/reset-two-factor"]
const GETS = ["", "charts", "open?id=user-bob", "users/user-bob", "api/users", "api/users/user-bob", "api/stats"]

describe("a non-admin on every admin route", () => {
  it("is refused 403 (JSON) and gets the error card (pages), and nothing changes", async () => {
    const bed = testbed()
    await bed.person("ada")
    const bob = await bed.person("bob")
    const mallory = await bed.person("mallory")
    for (const path of GETS) {
      const answer = await mallory.get(path)
      expect(answer.status, path).toBe(403)
      if (path.startsWith("api")) expect(answer.body.error, path).toBe("not-admin")
      else expect(answer.body, path).toContain("Only administrators may use the admin console.")
    }
    for (const path of ["", "charts", "users/user-bob"]) {
      const page = await mallory.page(path)
      expect(page.status, path).toBe(403)
      expect(page.body).toContain("Only administrators may use the admin console.")
      expect(page.body).not.toContain("bob@example.com")
    }
    for (const path of POSTS) {
      expect((await mallory.post(path, { reason: "x" })).status, path).toBe(403)
      expect((await mallory.form(path, { reason: "x" })).status, path).toBe(403)
    }
    expect(await bed.store.get("user-bob")).toBeNull()
    expect((await bob.session())?.user?.email).toBe("bob@example.com")
    expect(bed.events()).toEqual([])
  })

  it("is refused by every server function but isAdmin", async () => {
    const bed = testbed()
    await bed.person("bob")
    const mallory = await bed.person("mallory")
    const server = mallory.server()
    expect(await server.isAdmin()).toBe(false)
    const calls: Array<() => Promise<unknown>> = [
      () => server.listUsers(),
      () => server.user("user-bob"),
      () => server.ban("user-bob", { reason: "x" }),
      () => server.unban("user-bob"),
      () => server.revokeSessions("user-bob"),
      () => server.resetTwoFactor("user-bob", "x"),
      () => server.stats(),
    ]
    for (const call of calls) await expect(call()).rejects.toMatchObject({ type: "ExtensionRequestError", code: "not-admin", status: 403 })
    expect(await bed.store.get("user-bob")).toBeNull()
  })

  it("signed out: 401 for JSON and the functions, a redirect to sign in for pages", async () => {
    const bed = testbed()
    await bed.person("ada")
    const nobody = await bed.person("nobody", { signedIn: false })
    for (const path of GETS.filter((p) => p.startsWith("api"))) expect((await nobody.get(path)).status).toBe(401)
    const page = await nobody.page("")
    expect(page.status).toBe(302)
    expect(page.response.headers.get("location")).toContain("/auth/signin")
    await expect(nobody.server().listUsers()).rejects.toMatchObject({ type: "NotSignedIn" })
    expect(await nobody.server().isAdmin()).toBe(false)
  })

  it("loses the console as soon as the admin role is taken away (checked per request, not from the token)", async () => {
    const bed = testbed()
    const root = await bed.person("root", { role: "admin" })
    expect((await root.get("api/users")).status).toBe(200)
    await bed.adapter.updateUser!({ id: "user-root", role: "member" } as never)
    expect((await root.get("api/users")).status).toBe(403)
  })
})

describe("forgery and framing", () => {
  it("refuses every form post without the CSRF token, or from another site", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await bed.person("bob")
    for (const path of POSTS) {
      const bare = await ada.browser.request(`/auth/admin/${path}`, { form: { reason: "x" } })
      expect(bare.status, path).toBe(403)
      const forged = await ada.browser.request(`/auth/admin/${path}`, { form: { reason: "x", csrfToken: "forged" } })
      expect(forged.status, path).toBe(403)
      const crossSite = await ada.browser.request(`/auth/admin/${path}`, { form: { reason: "x", csrfToken: await ada.browser.csrfToken() }, headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" } })
      expect(crossSite.status, path).toBe(403)
    }
    expect(await bed.store.get("user-bob")).toBeNull()
  })

  it("refuses cross-site server-function calls", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await bed.person("bob")
    const { extensionFunctions } = await import("@portcullis/core/integration")
    const functions = (await extensionFunctions({ origin: ada.browser.origin, method: "POST", headers: new Headers({ cookie: ada.browser.cookieHeader(), origin: "https://evil.example" }) }, bed.config)) as any
    // Refused when the functions are first touched, before any runs.
    await expect(async () => functions.admin.ban("user-bob", { reason: "x" })).rejects.toMatchObject({ type: "MissingCSRF" })
    expect(await bed.store.get("user-bob")).toBeNull()
  })

  it("sends every page with frame-ancestors 'none' and X-Frame-Options DENY", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await bed.person("bob")
    for (const path of ["", "charts", "users/user-bob"]) {
      const { response } = await ada.page(path)
      expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
      expect(response.headers.get("x-frame-options")).toBe("DENY")
    }
  })
})

describe("ids that are not the admin's to guess", () => {
  it("answers the same 404 for unknown, malformed and hostile ids, with nothing of anyone in it", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await bed.person("bob")
    for (const id of ["user-nobody", "%00", "..%2F..%2Fsession", "a".repeat(256), "' OR 1=1 --"]) {
      const found = await ada.get(`api/users/${encodeURIComponent(id)}`)
      expect(found.status, id).toBe(404)
      expect(found.body, id).toEqual({ error: "not-found", message: "No such user" })
      const banned = await ada.post(`users/${encodeURIComponent(id)}/ban`, { reason: "x" })
      expect(banned.status, id).toBe(404)
    }
    expect(bed.events()).toEqual([])
  })
})

describe("hostile search, filter and cursor input", () => {
  it("answers 4xx, never 500", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const queries = [
      `q=${"x".repeat(201)}`,
      "q=%00",
      "verified=maybe",
      "banned=1",
      "limit=-1",
      "limit=abc",
      "limit=100000",
      `cursor=${"c".repeat(300)}`,
      "cursor=%01",
    ]
    for (const query of queries) {
      const answer = await ada.get(`api/users?${query}`)
      expect(answer.status, query).toBeGreaterThanOrEqual(400)
      expect(answer.status, query).toBeLessThan(500)
    }
    for (const query of ["days=0", "days=91", "days=x"]) expect((await ada.get(`api/stats?${query}`)).status, query).toBe(400)
    for (const body of [{ reason: 1 }, { reason: "x".repeat(501) }, { reason: "x", duration: -5 }, { reason: "x", duration: "1e9" }, { reason: "x", expires: "yesterday" }, { reason: "x", expires: "2001-01-01" }]) {
      await bed.person(`t${Math.random().toString(36).slice(2, 8)}`, { signedIn: false })
      const answer = await ada.post("users/user-ada/ban", body)
      expect(answer.status, JSON.stringify(body)).toBe(400)
    }
    // Search terms are matched as text, never as patterns.
    expect((await ada.get("api/users?q=%25")).body.users).toEqual([])
    expect((await ada.get("api/users?q=.*")).body.users).toEqual([])
  })
})

describe("a stolen admin cookie without a recent sign-in", () => {
  it("cannot ban, end sessions or reset a second factor: 403 StepUpRequired (JSON) or the re-authentication page (form), nothing changed", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const bob = await bed.person("bob")
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 2 * 3600_000 })
    try {
      for (const path of ["users/user-bob/ban", "users/user-bob/revoke", "users/user-bob/reset-two-factor"]) {
        const json = await ada.post(path, { reason: "x" })
        expect(json.status, path).toBe(403)
        expect(json.body.error, path).toBe("StepUpRequired")
        const form = await ada.form(path, { reason: "x" })
        expect(form.status, path).toBe(302)
        expect(form.response.headers.get("location"), path).toContain("/auth/reauthenticate?callbackUrl=")
      }
      await expect(ada.server().ban("user-bob", { reason: "x" })).rejects.toMatchObject({ type: "StepUpRequired" })
      // Reading stays open to the admin: only the changes need a recent proof.
      expect((await ada.get("api/users/user-bob")).status).toBe(200)
    } finally {
      vi.useRealTimers()
    }
    expect(await bed.store.get("user-bob")).toBeNull()
    expect((await bob.session())?.user?.email).toBe("bob@example.com")
  })
})
