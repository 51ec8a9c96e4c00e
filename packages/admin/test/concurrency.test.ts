/**
 * A ban racing 50 sign-ins of the same user: once the ban has completed, none of them holds
 * a live session — those that made a session before the ban was stored were ended by the
 * revocation, those after were refused by the gate (asked again once the session existed).
 */
import { describe, expect, it } from "vitest"
import { Browser, direct } from "../../core/test/helpers.js"
import { testbed } from "./support.js"

for (const strategy of ["jwt", "database"] as const) {
  describe(`a ban racing 50 sign-ins (${strategy})`, () => {
    it("leaves no live session once the ban completed", async () => {
      const bed = testbed({ strategy })
      const ada = await bed.person("ada")
      await bed.person("bob", { signedIn: false })
      const browsers = Array.from({ length: 50 }, () => new Browser(direct(bed.config)))
      // Each browser has its CSRF cookie first, so the race is the sign-ins themselves.
      const tokens = await Promise.all(browsers.map((b) => b.csrfToken()))
      const csrf = await ada.browser.csrfToken()
      const signIns = browsers.map((b, i) => b.request("/auth/callback/credentials", { form: { email: "bob@example.com", csrfToken: tokens[i]! } }))
      const banned = ada.browser.request("/auth/admin/users/user-bob/ban", { json: { reason: "race" }, headers: { "x-csrf-token": csrf } })
      const [ban] = await Promise.all([banned, ...signIns])
      expect(ban.status).toBe(200)
      const sessions = await Promise.all(browsers.map((b) => b.session()))
      expect(sessions.filter((s) => s !== null)).toEqual([])
      expect((await ada.get("api/users/user-bob")).body.sessions).toEqual([])
    })
  })
}

describe("50 bans of one user at once", () => {
  it("all answer, and one ban is in force", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await bed.person("bob")
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => ada.post("users/user-bob/ban", { reason: `r${i}` })))
    expect(answers.every((a) => a.status === 200)).toBe(true)
    expect((await bed.store.get("user-bob"))?.reason).toMatch(/^r\d+$/)
  })
})
