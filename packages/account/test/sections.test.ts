/**
 * Sections other extensions add to the account page (`Extension.accountSection`, issue 34's
 * "remembered grants, revocable in the account center"): shown after the account's own,
 * each under its own landmark, its form posting to the extension's route with the CSRF
 * token and acting there; a forged post changes nothing; the extension's store down shows
 * a localized line instead of the section, never a 503 of the page.
 */
import { describe, expect, it } from "vitest"
import { account } from "@portcullis/account"
import { grantsExtension } from "./fixtures/grants.js"
import { testbed, type Actor } from "./support.js"

function setup() {
  const grants = grantsExtension()
  const bed = testbed({ config: { extensions: [account(), grants.extension] } })
  return { bed, grants }
}

/** The forms inside the section `id`, as the browser would submit them. */
function formsIn(page: string, id: string): { action: string; fields: Record<string, string> }[] {
  const start = page.indexOf(`<section id="${id}"`)
  if (start < 0) return []
  const part = page.slice(start, page.indexOf("</section>", start))
  return [...part.matchAll(/<form method="post" action="([^"]+)">(.*?)<\/form>/gs)].map(([, action, inner]) => ({
    action: action!.replaceAll("&amp;", "&"),
    fields: Object.fromEntries([...inner!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(([, n, v]) => [n!, v!])),
  }))
}

async function submit(actor: Actor, form: { action: string; fields: Record<string, string> }) {
  return actor.browser.request(new URL(form.action).pathname, { form: form.fields, headers: { accept: "text/html" } })
}

describe("an extension's section on the account page", () => {
  it("shows after the account's own sections and before deletion, under its own landmark and heading, in the request's language", async () => {
    const { bed, grants } = setup()
    const ada = await bed.person("ada")
    grants.grant(ada.id, "cli-app")
    const { status, html: page } = await ada.page()
    expect(status).toBe(200)
    expect(page).toContain('<section id="ext-grants" aria-labelledby="ext-grants-heading"><h2 id="ext-grants-heading">Apps you allowed</h2>')
    expect(page.indexOf('id="sessions"')).toBeLessThan(page.indexOf('id="ext-grants"'))
    expect(page.indexOf('id="ext-grants"')).toBeLessThan(page.indexOf('id="delete"'))
    expect(page).toContain("Revoke cli-app")
    const de = await ada.page("", "de")
    expect(de.html).toContain(">Erlaubte Apps</h2>")
    expect(de.html).toContain("cli-app widerrufen")
  })

  it("shows each person only their own grants", async () => {
    const { bed, grants } = setup()
    const ada = await bed.person("ada")
    const grace = await bed.person("grace")
    grants.grant(ada.id, "ada-app")
    const { html: page } = await grace.page()
    expect(page).not.toContain("ada-app")
    expect(page).toContain("No apps.")
  })
})

describe("a form in an extension's section", () => {
  it("posts to the extension's route with the CSRF token, and acts there", async () => {
    const { bed, grants } = setup()
    const ada = await bed.person("ada")
    grants.grant(ada.id, "cli-app")
    grants.grant(ada.id, "tv-app")
    const forms = formsIn((await ada.page()).html, "ext-grants")
    expect(forms.map((f) => new URL(f.action).pathname)).toEqual(["/auth/grants/revoke/cli-app", "/auth/grants/revoke/tv-app"])
    expect(forms[0]!.fields.csrfToken).toBe(await ada.browser.csrfToken())
    const revoked = await submit(ada, forms[0]!)
    expect(revoked.status).toBe(302)
    expect(revoked.headers.get("location")).toBe("http://localhost:3000/auth/account#ext-grants")
    expect(grants.granted(ada.id)).toEqual(["tv-app"])
    const after = await ada.page()
    expect(after.html).not.toContain("Revoke cli-app")
    expect(after.html).toContain("Revoke tv-app")
  })

  it("changes nothing when posted without the token, with a forged one, or from another site", async () => {
    const { bed, grants } = setup()
    const ada = await bed.person("ada")
    grants.grant(ada.id, "cli-app")
    const [form] = formsIn((await ada.page()).html, "ext-grants")
    const path = new URL(form!.action).pathname
    expect((await ada.browser.request(path, { form: {} })).status).toBe(403)
    expect((await ada.browser.request(path, { form: { csrfToken: "forged" } })).status).toBe(403)
    expect((await ada.browser.request(path, { form: form!.fields, headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" } })).status).toBe(403)
    // Signed out with a token of its own: no session, nothing revoked.
    const stranger = bed.browser()
    const strangerToken = await stranger.csrfToken()
    expect((await stranger.request(path, { form: { csrfToken: strangerToken } })).status).toBe(401)
    // Another person, signed in, aiming at Ada's grant: the route acts on its caller's grants only.
    const grace = await bed.person("grace")
    expect((await grace.browser.request(path, { form: { csrfToken: await grace.browser.csrfToken() } })).status).toBe(404)
    expect(grants.granted(ada.id)).toEqual(["cli-app"])
  })
})

describe("the extension's store down", () => {
  it("shows the page with a localized line in place of the section, never the store's words", async () => {
    const { bed, grants } = setup()
    const ada = await bed.person("ada")
    grants.grant(ada.id, "cli-app")
    grants.state.down = true
    const page = await ada.page()
    expect(page.status).toBe(200)
    expect(page.html).not.toContain('id="ext-grants"')
    expect(page.html).toContain('id="ext-unavailable"')
    expect(page.html).toContain("Some settings could not be shown right now.")
    expect(page.html).not.toContain("ECONNREFUSED")
    for (const id of ["profile", "sessions", "delete"]) expect(page.html).toContain(`id="${id}"`)
    expect((await ada.page("", "ja")).html).toContain("一部の設定を現在表示できません")
    // Back up: the section returns.
    grants.state.down = false
    expect((await ada.page()).html).toContain('id="ext-grants"')
  })
})

describe("an account page without such extensions", () => {
  it("shows no extension section and no unavailable line", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { html: page } = await ada.page()
    expect(page).not.toContain('id="ext-')
  })
})
