/**
 * The account center's sections, as a person uses them: each action by JSON (a component)
 * and by form (the page without JavaScript), with JWT sessions (a registry) and database
 * sessions — on whichever adapter the caller gives (the memory adapter in `routes.test.ts`,
 * SQLite and PostgreSQL in `routes-sql.test.ts`). What each asserts is the stored outcome, not only the answer.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import { totpCode } from "@portcullis/core/two-factor"
import { NEW_PASSWORD, PASSWORD, plantPasskey, testbed, type Actor } from "./support.js"
import { previousStepCode } from "../../core/test/two-factor/previous-step.js"


function secretOf(uri: string): string {
  return new URL(uri).searchParams.get("secret")!
}

/** Registers every section's specs on the adapter `adapterFor()` returns (a new one per test, or one shared). */
export function sectionSpecs(adapterFor: () => Adapter | undefined): void {
afterEach(() => vi.useRealTimers())

describe.each(["jwt", "database"] as const)("with %s sessions", (strategy) => {
  describe("the page", () => {
    it("shows every section to a signed-in person, and sends a signed-out one to sign in", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      const { status, html, response } = await ada.page()
      expect(status).toBe(200)
      for (const id of ["profile", "email", "accounts", "passkeys", "password", "two-factor", "sessions", "delete"]) expect(html).toContain(`id="${id}"`)
      expect(html).toContain("ada@example.com")
      expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
      const stranger = bed.browser()
      const away = await stranger.request("/auth/account", { headers: { accept: "text/html" } })
      expect(away.status).toBe(302)
      expect(away.headers.get("location")).toContain("/auth/signin")
    })

    it("speaks the request's language, right to left for Arabic", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      const de = await ada.page("", "de")
      expect(de.html).toContain('lang="de"')
      expect(de.html).toContain("Dein Konto")
      const ar = await ada.page("", "ar")
      expect(ar.html).toContain('dir="rtl"')
      expect(ar.html).toContain("حسابك")
      const ja = await ada.page("", "ja")
      expect(ja.html).toContain("アカウント")
    })

    it("shows a localized notice or problem after a form comes back", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      expect((await ada.page("?notice=saved", "fr")).html).toContain("Enregistré.")
      expect((await ada.page("?problem=last-way-in")).html).toContain("your only way to sign in")
      // An unknown code shows the general sentence, never the code itself.
      const odd = await ada.page("?problem=%3Cb%3Emarked%3C%2Fb%3E")
      expect(odd.html).not.toContain("<b>marked</b>")
      expect(odd.html).not.toContain("bmarkedb")
      expect(odd.html).toContain("That did not work")
    })
  })

  describe("profile", () => {
    it("changes the name and the image, by JSON and by form", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      const json = await ada.post("profile", { name: "Ada Lovelace", image: "https://example.com/ada.png" })
      expect(json.status).toBe(200)
      expect(json.body.user).toMatchObject({ name: "Ada Lovelace", image: "https://example.com/ada.png" })
      const form = await ada.form("profile", { name: "Countess", image: "" })
      expect(form.status).toBe(302)
      expect(form.location).toContain("notice=saved")
      expect(await bed.adapter.getUser!(ada.id)).toMatchObject({ name: "Countess", image: null })
      expect(bed.events()).toEqual(["profileUpdated/success", "profileUpdated/success"])
    })

    it("refuses an image that is not https, and a name too long, changing nothing", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      for (const image of ["javascript:alert(1)", "http://example.com/a.png", "https://user:pw@example.com/a.png", "data:image/png;base64,AAAA"]) {
        const answer = await ada.post("profile", { image })
        expect(answer.status).toBe(422)
        expect(answer.body.error).toBe("invalid-image")
      }
      expect((await ada.post("profile", { name: "x".repeat(101) })).status).toBe(422)
      expect((await ada.form("profile", { name: "x".repeat(101) })).location).toContain("problem=too-long")
      expect(await bed.adapter.getUser!(ada.id)).toMatchObject({ name: null, image: null })
    })
  })

  describe("email change", () => {
    it("mails a link to the new address; confirming it changes the address and tells the old one", async () => {
      const bed = testbed({ strategy, adapter: adapterFor(), notices: true })
      const ada = await bed.person("ada")
      const asked = await ada.form("email", { email: "countess@example.com" })
      expect(asked.location).toContain("notice=emailSent")
      expect(await bed.adapter.getUser!(ada.id)).toMatchObject({ email: "ada@example.com" })
      const link = bed.linkFor("countess@example.com")
      // The link opens a page with a button: a mail scanner's visit spends nothing.
      const page = await ada.browser.request(link.url, { headers: { accept: "text/html" } })
      expect(await page.text()).toContain('name="token"')
      const confirmed = await ada.form("email/confirm", { email: link.email, token: link.token })
      expect(confirmed.location).toContain("notice=emailChanged")
      expect(await bed.adapter.getUser!(ada.id)).toMatchObject({ email: "countess@example.com" })
      expect(bed.mail.sent.some((m) => m.to === "ada@example.com")).toBe(true)
      // Spent: the same link again changes nothing.
      const again = await ada.post("email/confirm", { email: link.email, token: link.token })
      expect(again.status).toBe(410)
      expect(bed.events()).toEqual(["emailChangeRequested/success", "emailChanged/success", "emailChanged/failure"])
    })

    it("answers an address already taken exactly as a free one, and mails the taken address instead", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      await bed.person("grace")
      const free = await ada.post("email", { email: "nobody@example.com" })
      const taken = await ada.post("email", { email: "grace@example.com" })
      expect(taken.status).toBe(free.status)
      expect(taken.body).toEqual(free.body)
      const toGrace = bed.mail.sent.filter((m) => m.to === "grace@example.com")
      expect(toGrace).toHaveLength(1)
      expect(toGrace[0]!.url).not.toContain("token=")
      expect(await bed.adapter.getUser!(ada.id)).toMatchObject({ email: "ada@example.com" })
    })

    it("refuses a token past its expiry", async () => {
      const bed = testbed({ strategy, adapter: adapterFor(), extension: { emailChangeMaxAge: 60 } })
      const ada = await bed.person("ada")
      await ada.post("email", { email: "late@example.com" })
      const link = bed.linkFor("late@example.com")
      const stored = await bed.adapter.useVerificationToken!({ identifier: `email-change:${ada.id}:late@example.com`, token: "x" })
      expect(stored).toBeNull()
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 61_000 })
      await ada.signIn()
      expect((await ada.post("email/confirm", link)).status).toBe(410)
      expect(await bed.adapter.getUser!(ada.id)).toMatchObject({ email: "ada@example.com" })
    })
  })

  describe("linked accounts", () => {
    it("lists each configured provider; unlinks one while another way in remains", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      await bed.adapter.linkAccount!({ userId: ada.id, type: "oauth", provider: "github", providerAccountId: "gh-1" })
      const state = await ada.get("state")
      expect(state.body.waysIn.links).toEqual([{ provider: "github", name: "GitHub", type: "oauth", linked: true }])
      expect(state.body.waysIn).toMatchObject({ password: true, count: 2 })
      const unlinked = await ada.form("accounts/github/unlink")
      expect(unlinked.location).toContain("notice=unlinked")
      expect(await bed.adapter.getAccountByUserId!(ada.id, "github")).toBeNull()
    })

    it("links by starting the provider's sign-in while signed in (the page's form, as posted)", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      const { html } = await ada.page()
      const form = /<form method="post" action="([^"]+\/signin\/github)">.*?name="callbackUrl" value="([^"]+)"/s.exec(html)
      expect(form?.[1]).toBe("http://localhost:3000/auth/signin/github")
      expect(form?.[2]).toBe("http://localhost:3000/auth/account")
      const started = await ada.browser.request("/auth/signin/github", { form: { csrfToken: await ada.browser.csrfToken(), callbackUrl: form![2]! } })
      expect(started.status).toBe(302)
      expect(started.headers.get("location")).toMatch(/^https:\/\/github\.com\/login\/oauth\/authorize\?/)
    })

    it("never unlinks the last way in", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      await bed.adapter.linkAccount!({ userId: ada.id, type: "oauth", provider: "github", providerAccountId: "gh-1" })
      await bed.adapter.setUserPassword!(ada.id, "")
      // Signed in still (the session stands); the password is gone, GitHub is the only way in.
      const refused = await ada.post("accounts/github/unlink")
      expect(refused.status).toBe(409)
      expect(refused.body.error).toBe("last-way-in")
      expect(await bed.adapter.getAccountByUserId!(ada.id, "github")).not.toBeNull()
    })
  })

  describe("passkeys", () => {
    it("lists, renames and removes a passkey (and its account row)", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      await plantPasskey(bed.adapter, ada.id, "cred-1")
      expect((await ada.get("state")).body.passkeys).toEqual([{ id: "cred-1", name: null, backedUp: true, deviceType: "multiDevice", transports: ["internal", "hybrid"] }])
      expect((await ada.form("passkeys/cred-1/rename", { name: "  Laptop  " })).location).toContain("notice=renamed")
      expect((await bed.adapter.getAuthenticator!("cred-1"))?.name).toBe("Laptop")
      expect((await ada.page()).html).toContain("Laptop")
      expect((await ada.post("passkeys/cred-1/remove")).status).toBe(200)
      expect(await bed.adapter.getAuthenticator!("cred-1")).toBeNull()
      expect(await bed.adapter.getAccount!("cred-1", "passkey")).toBeNull()
    })

    it("refuses removing the only way in, and a name too long", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      await plantPasskey(bed.adapter, ada.id, "cred-1")
      await bed.adapter.setUserPassword!(ada.id, "")
      expect((await ada.post("passkeys/cred-1/remove")).body.error).toBe("last-way-in")
      expect(await bed.adapter.getAuthenticator!("cred-1")).not.toBeNull()
      expect((await ada.post("passkeys/cred-1/rename", { name: "x".repeat(65) })).status).toBe(422)
    })
  })

  describe("password", () => {
    it("changes it with the current one; the other sessions end, this one stays", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      const phone = await ada.anotherSession()
      expect((await ada.form("password/change", { currentPassword: "wrong", password: NEW_PASSWORD })).location).toContain("problem=PasswordMismatch")
      expect((await ada.form("password/change", { currentPassword: PASSWORD, password: "short" })).location).toContain("problem=PasswordTooShort")
      const changed = await ada.form("password/change", { currentPassword: PASSWORD, password: NEW_PASSWORD })
      expect(changed.location).toContain("notice=passwordChanged")
      expect((await phone.get("state")).status).toBe(401)
      expect((await ada.get("state")).status).toBe(200)
      await ada.signIn(NEW_PASSWORD)
    })

    it("sets a first password for an account without one (stepped up)", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      await bed.adapter.setUserPassword!(ada.id, "")
      expect((await ada.get("state")).body.password).toEqual({ available: true, set: false })
      expect((await ada.post("password/set", { password: NEW_PASSWORD })).status).toBe(200)
      expect((await ada.get("state")).body.password).toEqual({ available: true, set: true })
      expect((await ada.post("password/set", { password: NEW_PASSWORD })).body.error).toBe("password-set")
    })
  })

  describe("two-factor", () => {
    it("keeps the QR code and the key through a wrong code, then shows the backup codes once", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      expect((await ada.form("two-factor/start")).location).toContain("#two-factor")
      const first = await ada.page()
      expect(first.html).toContain("data:image/svg+xml;base64,")
      const key = /<code class="code">([A-Z2-7 ]+)<\/code>/.exec(first.html)![1]!.replaceAll(" ", "")
      const wrong = await ada.form("two-factor/confirm", { code: "000000" })
      expect(wrong.location).toContain("problem=TwoFactorCodeInvalid")
      const after = await ada.page(new URL(wrong.location!).search)
      expect(after.html).toContain("data:image/svg+xml;base64,")
      expect(after.html).toContain("That code is not right")
      expect(/<code class="code">([A-Z2-7 ]+)<\/code>/.exec(after.html)![1]!.replaceAll(" ", "")).toBe(key)
      const confirmed = await ada.form("two-factor/confirm", { code: totpCode(key) })
      expect(confirmed.status).toBe(200)
      expect(confirmed.text.match(/<li><code>/g)).toHaveLength(10)
      const state = (await ada.get("state")).body.twoFactor
      expect(state).toMatchObject({ enabled: true, backupCodesLeft: 10, enrollment: null })
      expect((await ada.page()).html).not.toContain("data:image/svg+xml")
    })

    it("starts, confirms, regenerates and disables by JSON", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      const started = await ada.post("two-factor/start")
      expect(started.body).toMatchObject({ qrSvg: expect.stringContaining("<svg"), uri: expect.stringContaining("otpauth://totp/") })
      const secret = secretOf(started.body.uri)
      expect(started.body.manualKey.replaceAll(" ", "")).toBe(secret)
      const { backupCodes } = (await ada.post("two-factor/confirm", { code: await previousStepCode(secret) })).body
      expect(backupCodes).toHaveLength(10)
      const regenerated = await ada.post("two-factor/regenerate", { code: backupCodes[0] })
      expect(regenerated.body.backupCodes).toHaveLength(10)
      expect((await ada.post("two-factor/disable", { code: totpCode(secret) })).status).toBe(200)
      expect((await ada.get("state")).body.twoFactor).toMatchObject({ enabled: false, pending: false })
    })
  })

  describe("sessions", () => {
    it("lists each with its device and place; revokes one, then all others", async () => {
      const bed = testbed({ strategy, adapter: adapterFor(), extension: { locate: (ip) => (ip === "198.51.100.7" ? "Lisbon, Portugal" : null) } })
      const ada = await bed.person("ada")
      const phone = await ada.anotherSession("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1")
      const tablet = await ada.anotherSession("Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36")
      const { sessions } = (await ada.get("state")).body
      expect(sessions).toHaveLength(3)
      expect(sessions.map((s: any) => s.device.browser).sort()).toEqual(["Chrome", "Firefox", "Safari"])
      expect(sessions.find((s: any) => s.current)).toMatchObject({ place: "Lisbon, Portugal", device: { browser: "Firefox", os: "Windows" } })
      const page = (await ada.page()).html
      expect(page).toContain("Safari on iPhone")
      expect(page).toContain("near Lisbon, Portugal")
      expect(page).not.toContain("Mozilla/5.0")
      const phoneId = (await phone.get("state")).body.sessions.find((s: any) => s.current).id
      expect((await ada.form(`sessions/${phoneId}/revoke`)).location).toContain("notice=revoked")
      expect((await phone.get("state")).status).toBe(401)
      expect((await tablet.get("state")).status).toBe(200)
      const others = await ada.form("sessions/revoke-others")
      expect(others.location).toContain("count=1")
      expect((await tablet.get("state")).status).toBe(401)
      expect((await ada.get("state")).status).toBe(200)
    })
  })

  describe("delete account", () => {
    it("needs the word, then removes the user and every session", async () => {
      const bed = testbed({ strategy, adapter: adapterFor() })
      const ada = await bed.person("ada")
      const phone = await ada.anotherSession()
      expect((await ada.post("delete", { confirm: "nope" })).body.error).toBe("confirm-delete")
      expect(await bed.adapter.getUser!(ada.id)).not.toBeNull()
      const deleted = await ada.form("delete", { confirm: "DELETE" })
      expect(deleted.status).toBe(200)
      expect(deleted.text).toContain("Account deleted")
      expect(await bed.adapter.getUser!(ada.id)).toBeNull()
      expect((await phone.get("state")).status).toBe(401)
      expect(bed.events()).toContain("deleted/success")
    })
  })
})
}
