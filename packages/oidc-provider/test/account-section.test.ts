/**
 * The provider's section of the account center: the apps a user allowed, each removable
 * from there; the removal acts only on the caller's own consents.
 */
import { account } from "@portcullis/account"
import { oidcProvider } from "@portcullis/oidc-provider"
import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import { describe, expect, it } from "vitest"
import { CLIENTS, codeFor, testbed, type Person } from "./support.js"

function setup() {
  const store = memoryOidcProviderStore()
  const provider = oidcProvider({ store, clients: CLIENTS, scopes: ["read"], resources: ["https://api.example/mcp"] })
  return testbed({ store, config: { extensions: [account(), provider] } })
}

const accountPage = async (who: Person, language = "en") =>
  (await who.browser.request("/auth/account", { headers: { accept: "text/html", "accept-language": language } })).text()

function formsIn(page: string): Record<string, string>[] {
  const start = page.indexOf('<section id="ext-oidc"')
  if (start < 0) return []
  const part = page.slice(start, page.indexOf("</section>", start))
  return [...part.matchAll(/<form method="post" action="([^"]+)">(.*?)<\/form>/gs)].map(([, action, inner]) => ({
    action: action!.replaceAll("&amp;", "&"),
    ...Object.fromEntries([...inner!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(([, n, v]) => [n!, v!])),
  }))
}

describe("the apps a user allowed, on the account page", () => {
  it("lists each app by name with what it may do and since when, localized, and only the user's own", async () => {
    const bed = setup()
    const ada = await bed.person("ada")
    const grace = await bed.person("grace")
    await codeFor(ada, { scope: "openid email" })
    await codeFor(ada, { client_id: "native", redirect_uri: "http://127.0.0.1/callback", scope: "openid", code_challenge: "x".repeat(43), code_challenge_method: "S256" })
    const page = await accountPage(ada)
    expect(page).toContain('<section id="ext-oidc" aria-labelledby="ext-oidc-heading"><h2 id="ext-oidc-heading">Apps with access to your account</h2>')
    expect(page).toContain("<strong>Web App</strong>")
    expect(page).toContain("<strong>Native App</strong>")
    expect(page).toContain("Remove access for Web App")
    expect(page).toMatch(/Allowed on \w+ \d+, \d{4}/)
    expect(await accountPage(ada, "de")).toContain("Zugriff für Web App entfernen")
    expect(await accountPage(grace)).not.toContain('id="ext-oidc"')
  })

  it("removes an app's access from its form and comes back to the section", async () => {
    const bed = setup()
    const ada = await bed.person("ada")
    await codeFor(ada, { scope: "openid email" })
    const [form] = formsIn(await accountPage(ada))
    expect(form).toMatchObject({ action: "http://localhost:3000/auth/oidc/consents/revoke", clientId: "web", returnTo: "account" })
    const { action, ...fields } = form!
    const answer = await ada.browser.request(new URL(action!).pathname, { form: fields, headers: { accept: "text/html" } })
    expect(answer.status).toBe(302)
    expect(answer.headers.get("location")).toBe("http://localhost:3000/auth/account#ext-oidc")
    expect(await bed.store.getConsent(ada.id, "web")).toBeNull()
    expect(await bed.store.listGrants(ada.id, "web")).toEqual([])
    expect(await accountPage(ada)).not.toContain('id="ext-oidc"')
    expect(bed.events()).toContain("consentRevoked/success")
  })

  it("acts only on the caller's own consent: another user's client id is a 404 and theirs stays", async () => {
    const bed = setup()
    const ada = await bed.person("ada")
    const mallory = await bed.person("mallory")
    await codeFor(ada, { scope: "openid email" })
    const answer = await mallory.browser.request("/auth/oidc/consents/revoke", { form: { csrfToken: await mallory.browser.csrfToken(), clientId: "web", returnTo: "account" }, headers: { accept: "text/html" } })
    expect(answer.status).toBe(404)
    expect(await answer.text()).toContain("This app has no access to your account.")
    expect(await bed.store.getConsent(ada.id, "web")).not.toBeNull()
  })

  it("changes nothing when posted without the CSRF token", async () => {
    const bed = setup()
    const ada = await bed.person("ada")
    await codeFor(ada, { scope: "openid email" })
    const answer = await ada.browser.request("/auth/oidc/consents/revoke", { form: { clientId: "web", returnTo: "account" }, headers: { accept: "text/html" } })
    expect(answer.status).toBe(403)
    expect(await bed.store.getConsent(ada.id, "web")).not.toBeNull()
  })
})
