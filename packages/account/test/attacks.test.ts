/**
 * The account center attacked: forged cross-site forms, framing, other people's ids, the
 * last way in, a stolen cookie whose owner's re-authentication is long over, spent and
 * borrowed email-change tokens, and hostile input sizes. Each asserts the refusal AND that
 * nothing changed.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { actionRoutes } from "../src/routes.js"
import { later, plantPasskey, testbed } from "./support.js"

afterEach(() => vi.useRealTimers())

const MINUTE = 60_000
/** Every action, with a body that would succeed were the checks absent. */
const POSTS = actionRoutes.map((r) => r.path.replace(":provider", "github").replace(":id", "x"))

describe("CSRF on every form", () => {
  it.each(POSTS)("POST %s without a token, with a wrong one, or from another site is refused before anything runs", async (path) => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const before = JSON.stringify(await bed.adapter.getUser!(ada.id))
    const none = await ada.browser.request(`/auth/account/${path}`, { form: { name: "Mallory", confirm: "DELETE" } })
    expect(none.status).toBe(403)
    const wrong = await ada.browser.request(`/auth/account/${path}`, { form: { name: "Mallory", confirm: "DELETE", csrfToken: "forged|forged" } })
    expect(wrong.status).toBe(403)
    const token = await ada.browser.csrfToken()
    const crossSite = await ada.browser.request(`/auth/account/${path}`, { form: { name: "Mallory", confirm: "DELETE", csrfToken: token }, headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" } })
    expect(crossSite.status).toBe(403)
    expect(JSON.stringify(await bed.adapter.getUser!(ada.id))).toBe(before)
    expect(bed.events()).toEqual([])
  })
})

describe("clickjacking", () => {
  it("the page and the email-confirm page may not be framed", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    for (const path of ["", "?notice=saved"]) {
      const { response } = await ada.page(path)
      expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
      expect(response.headers.get("x-frame-options")).toBe("DENY")
    }
    const confirm = await ada.browser.request("/auth/account/email/confirm?email=a%40b.c&token=x", { headers: { accept: "text/html" } })
    expect(confirm.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
  })
})

describe("other people's ids", () => {
  it("a session id of another user's revokes nothing", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const mallory = await bed.person("mallory")
    const adaId = (await ada.get("state")).body.sessions[0].id
    const answer = await mallory.post(`sessions/${adaId}/revoke`)
    expect(answer.status).toBe(404)
    expect((await ada.get("state")).status).toBe(200)
  })

  it("another user's passkey is neither renamed nor removed (the same answer as an unknown id)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const mallory = await bed.person("mallory")
    await plantPasskey(bed.adapter, ada.id, "ada-key", "Ada's phone")
    const rename = await mallory.post("passkeys/ada-key/rename", { name: "pwned" })
    const remove = await mallory.post("passkeys/ada-key/remove")
    const unknown = await mallory.post("passkeys/no-such-key/remove")
    expect([rename.status, remove.status]).toEqual([404, 404])
    expect(remove.body).toEqual(unknown.body)
    expect(await bed.adapter.getAuthenticator!("ada-key")).toMatchObject({ userId: ada.id, name: "Ada's phone" })
    expect(await bed.adapter.getAccount!("ada-key", "passkey")).not.toBeNull()
  })

  it("another user's linked account is not unlinked through a provider id", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const mallory = await bed.person("mallory")
    await bed.adapter.linkAccount!({ userId: ada.id, type: "oauth", provider: "github", providerAccountId: "gh-ada" })
    expect((await mallory.post("accounts/github/unlink")).status).toBe(404)
    expect((await mallory.post("accounts/passkey/unlink")).status).toBe(404)
    expect(await bed.adapter.getAccountByUserId!(ada.id, "github")).toMatchObject({ providerAccountId: "gh-ada" })
  })
})

describe("the last way in", () => {
  it("is kept whichever way removes it: unlink or passkey", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await bed.adapter.linkAccount!({ userId: ada.id, type: "oauth", provider: "github", providerAccountId: "gh-ada" })
    await plantPasskey(bed.adapter, ada.id, "k1")
    await bed.adapter.setUserPassword!(ada.id, "")
    expect((await ada.post("accounts/github/unlink")).status).toBe(200)
    expect((await ada.post("passkeys/k1/remove")).body.error).toBe("last-way-in")
    expect((await ada.get("state")).body.waysIn.count).toBe(1)
  })
})

describe("a stolen cookie, the owner's re-authentication long over", () => {
  const sensitive = actionRoutes.filter((r) => r.stepUp).map((r) => r.path.replace(":provider", "github").replace(":id", "k1"))

  it.each(sensitive)("POST %s is refused with StepUpRequired and changes nothing", async (path) => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await bed.adapter.linkAccount!({ userId: ada.id, type: "oauth", provider: "github", providerAccountId: "gh-ada" })
    await plantPasskey(bed.adapter, ada.id, "k1")
    later(11 * MINUTE)
    const thief = ada.stolen()
    const answer = await thief.post(path, { email: "thief@example.com", confirm: "DELETE", password: "thief's own passphrase here", code: "123456" })
    expect(answer).toMatchObject({ status: 403, body: { error: "StepUpRequired" } })
    expect(await bed.adapter.getUser!(ada.id)).toMatchObject({ email: "ada@example.com" })
    expect(await bed.adapter.getAuthenticator!("k1")).not.toBeNull()
    expect(await bed.adapter.getAccountByUserId!(ada.id, "github")).not.toBeNull()
    expect(bed.mail.sent).toEqual([])
  })

  it("the page hides the sensitive forms and links to re-authentication instead", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    later(11 * MINUTE)
    const { html } = await ada.page()
    expect(html).toContain("/auth/reauthenticate?callbackUrl=")
    expect(html).not.toContain('action="http://localhost:3000/auth/account/delete"')
    expect(html).toContain('action="http://localhost:3000/auth/account/profile"')
  })

  it("another session's fresh re-authentication does not open this one", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    later(11 * MINUTE)
    const phone = await ada.anotherSession()
    // The phone just signed in (stepped up); the laptop's mark is stale.
    expect((await ada.post("delete", { confirm: "DELETE" })).status).toBe(403)
    expect(await bed.adapter.getUser!(ada.id)).not.toBeNull()
    expect((await phone.post("sessions/revoke-others")).status).toBe(200)
  })
})

describe("email-change tokens", () => {
  it("are single-use, bound to their user and to their address", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const mallory = await bed.person("mallory")
    await ada.post("email", { email: "countess@example.com" })
    const link = bed.linkFor("countess@example.com")
    // Mallory has the link (she read the mail): with her session, it is no token of hers.
    expect((await mallory.post("email/confirm", link)).status).toBe(410)
    expect(await bed.adapter.getUser!(mallory.id)).toMatchObject({ email: "mallory@example.com" })
    // Ada's token for another address than it was mailed for.
    expect((await ada.post("email/confirm", { ...link, email: "mallory2@example.com" })).status).toBe(410)
    // Still good for what it was made for, once.
    expect((await ada.post("email/confirm", link)).status).toBe(200)
    expect((await ada.post("email/confirm", link)).status).toBe(410)
    expect(await bed.adapter.getUser!(ada.id)).toMatchObject({ email: "countess@example.com" })
  })

  it("are never a magic link: the email callback refuses the row's identifier", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await ada.post("email", { email: "countess@example.com" })
    const { token } = bed.linkFor("countess@example.com")
    const signIn = await bed.browser().request(`/auth/callback/email?email=${encodeURIComponent(`email-change:${ada.id}:countess@example.com`)}&token=${token}`)
    expect([302, 400, 404]).toContain(signIn.status)
    expect(signIn.headers.get("location") ?? "").not.toMatch(/^http:\/\/localhost:3000\/?$/)
  })

  it("an address taken after the link was mailed stays with its owner", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await ada.post("email", { email: "later@example.com" })
    const link = bed.linkFor("later@example.com")
    await bed.person("later")
    expect((await ada.post("email/confirm", link)).status).toBe(410)
    expect(await bed.adapter.getUser!(ada.id)).toMatchObject({ email: "ada@example.com" })
  })
})

describe("hostile input sizes", () => {
  it("answers 4xx, never 500, and stores nothing", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const huge = "x".repeat(200_000)
    const answers = await Promise.all([
      ada.post("profile", { name: huge }),
      ada.post("profile", { image: `https://example.com/${huge}` }),
      ada.post("profile", { name: { nested: true } }),
      ada.post("email", { email: `${huge}@example.com` }),
      ada.post("email/confirm", { email: "a@b.c", token: huge }),
      ada.post("password/change", { currentPassword: huge, password: huge }),
      ada.post("two-factor/confirm", { code: huge }),
      ada.post(`passkeys/${"k".repeat(250)}/rename`, { name: huge }),
      ada.post(`sessions/${"s".repeat(250)}/revoke`),
      ada.post("delete", { confirm: huge }),
    ])
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.body).slice(0, 200)).toBeGreaterThanOrEqual(400)
      expect(answer.status).toBeLessThan(500)
    }
    expect(await bed.adapter.getUser!(ada.id)).toMatchObject({ name: null, email: "ada@example.com" })
    expect(bed.log.lines.join("\n")).not.toContain(huge.slice(0, 1000))
  })
})

describe("mail bombing through email change", () => {
  it("is capped at five requests an hour per user and address", async () => {
    const bed = testbed({ config: { rateLimit: {} } })
    const ada = await bed.person("ada")
    const answers = []
    for (let i = 0; i < 7; i++) answers.push((await ada.post("email", { email: `victim${i}@example.com` })).status)
    expect(answers).toEqual([200, 200, 200, 200, 200, 429, 429])
    expect(bed.mail.sent.filter((m) => m.to.startsWith("victim"))).toHaveLength(5)
  })
})
