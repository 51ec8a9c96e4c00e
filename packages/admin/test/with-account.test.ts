/**
 * The console next to the account center, as an app with both has them: the impersonation
 * banner atop the account center's page, a password reset mailed through the password
 * provider's own flow (the link resets the password), and a user's linked accounts.
 */
import { describe, expect, it } from "vitest"
import { admin } from "@portcullis/admin"
import { memoryBanStore, memoryImpersonationStore } from "@portcullis/admin/memory"
import { account } from "@portcullis/account"
import Password from "@portcullis/core/providers/password"
import Passkey from "@portcullis/core/providers/passkey"
import GitHub from "@portcullis/core/providers/github"
import { captureMailer } from "../../organizations/test/support.js"
import { LIGHT } from "../../core/test/password/support.js"
import { testbed } from "../../account/test/support.js"

function bed(strategy: "jwt" | "database") {
  const console = admin({ store: memoryBanStore(), isAdmin: (user) => user.email === "ada@example.com", impersonation: { store: memoryImpersonationStore(), landing: "/auth/account" } })
  const mail = captureMailer()
  const b = testbed({ strategy, config: { extensions: [account(), console], providers: [Password({ hashing: LIGHT, mailer: mail.mailer }), Passkey, GitHub({ clientId: "id", clientSecret: "secret" })] } })
  return { ...b, mail }
}

async function adminCall(browser: { request: (path: string, init?: any) => Promise<Response>; csrfToken(): Promise<string> }, path: string, form?: Record<string, string>) {
  const response = form
    ? await browser.request(`/auth/admin/${path}`, { form: { ...form, csrfToken: await browser.csrfToken() } })
    : await browser.request(`/auth/admin/${path}`, { json: {}, headers: { "x-csrf-token": await browser.csrfToken() } })
  const text = await response.text()
  return { status: response.status, location: response.headers.get("location"), body: text.startsWith("{") ? JSON.parse(text) : text }
}

for (const strategy of ["jwt", "database"] as const) {
  describe(`the impersonation banner on the account center (${strategy})`, () => {
    it("shows who is impersonated, by whom and until when, with an end button that works", async () => {
      const b = bed(strategy)
      const ada = await b.person("ada")
      const bob = await b.person("bob")
      const before = await ada.page()
      expect(before.html).not.toContain("pc-impersonation")
      const started = await adminCall(ada.browser, `users/${bob.id}/impersonate`, {})
      expect(started.status).toBe(302)
      expect(new URL(started.location!).pathname).toBe("/auth/account")
      const page = await ada.page()
      expect(page.status).toBe(200)
      expect(page.html).toContain('class="pc-impersonation" role="region"')
      expect(page.html).toContain("You are acting as bob@example.com: an impersonation by ada@example.com")
      // Bob's own page has no banner.
      expect((await bob.page()).html).not.toContain("pc-impersonation")
      const ended = await adminCall(ada.browser, "impersonation/end", {})
      expect(new URL(ended.location!).pathname).toBe(`/auth/admin/users/${bob.id}`)
      expect((await ada.page()).html).not.toContain("pc-impersonation")
      expect((await ada.browser.session()).user.email).toBe("ada@example.com")
    })
  })

  describe(`sending a password reset (${strategy})`, () => {
    it("mails the user the forgot-password link, audited with the admin as actor; the link sets a new password", async () => {
      const b = bed(strategy)
      const ada = await b.person("ada")
      const bob = await b.person("bob", { signedIn: false })
      const sent = await adminCall(ada.browser, `users/${bob.id}/send-password-reset`)
      expect(sent.status).toBe(200)
      const mail = b.mail.sent.find((m) => m.to === "bob@example.com")!
      expect(mail.url).toContain("/auth/password/reset?token=")
      expect(b.audit.find((e) => e.type === "admin.passwordResetSent")).toMatchObject({ outcome: "success", userId: bob.id, actor: ada.id })
      const link = new URL(mail.url)
      const browser = b.browser()
      const csrfToken = await browser.csrfToken()
      const reset = await browser.request(`/auth/password/reset`, { form: { token: link.searchParams.get("token")!, email: link.searchParams.get("email")!, password: "violet tractor sandwich orbit lantern", csrfToken } })
      expect(reset.status).toBe(302)
      expect(new URL(reset.headers.get("location")!).searchParams.get("error")).toBeNull()
    })

    it("answers 503 and audits a failure when the mailer fails", async () => {
      const b = bed(strategy)
      const ada = await b.person("ada")
      const bob = await b.person("bob", { signedIn: false })
      b.mail.mailer.sendVerificationRequest = async () => {
        throw new Error("smtp down")
      }
      const sent = await adminCall(ada.browser, `users/${bob.id}/send-password-reset`)
      expect(sent.status).toBeGreaterThanOrEqual(500)
      expect(JSON.stringify(sent.body)).not.toContain("token=")
      expect(b.audit.find((e) => e.type === "admin.passwordResetSent")).toMatchObject({ outcome: "failure", userId: bob.id })
    })
  })

  describe(`linked accounts on a user's page (${strategy})`, () => {
    it("lists each configured provider's linked account with its id, and the passkey count", async () => {
      const b = bed(strategy)
      const ada = await b.person("ada")
      const bob = await b.person("bob", { signedIn: false })
      await b.adapter.linkAccount!({ userId: bob.id, provider: "github", providerAccountId: "gh-4242", type: "oauth" } as never)
      const details = await ada.browser.request(`/auth/admin/api/users/${bob.id}`)
      const body = await details.json()
      expect(body.waysIn).toEqual({ accounts: [{ provider: "github", name: "GitHub", type: "oauth", providerAccountId: "gh-4242" }], passkeys: 0 })
      const page = await ada.browser.request(`/auth/admin/users/${bob.id}`, { headers: { accept: "text/html" } })
      const html = await page.text()
      expect(html).toContain("Linked accounts")
      expect(html).toContain("gh-4242")
      expect(html).toContain("send-password-reset")
    })
  })
}
