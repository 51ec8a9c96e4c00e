/**
 * The sign-in page's SSO step as an attack surface: an organization admin's connection name is
 * shown to every visitor of the domain (never as markup), a pending claim shows nothing, and
 * a domain that requires SSO shows only its button.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { assembledApp, type App } from "./app.js"

let app: App

beforeAll(async () => {
  app = await assembledApp()
  await app.tenant("xss", "xss.test", { connection: { name: `<img src=x onerror=alert(1)>"'><script>alert(2)</script>` } })
  await app.tenant("pending", "pending.test", { verified: false })
  await app.tenant("strict", "strict.test", { requireSso: true, connection: { name: "Strict IdP" } })
})
afterAll(() => app.close())

async function secondStep(email: string) {
  const b = app.browser()
  const response = await b.request("/auth/signin", { form: { email, csrfToken: await b.csrfToken() }, headers: { accept: "text/html" } })
  return { status: response.status, html: await response.text() }
}

describe("the connection name on the sign-in page", () => {
  it("is text, never markup", async () => {
    const { status, html } = await secondStep("ada@xss.test")
    expect(status).toBe(200)
    expect(html).not.toContain("<img src=x")
    expect(html).not.toContain("<script>alert(2)")
    expect(html).toMatch(/&lt;img src=x/)
  })
})

describe("a pending claim", () => {
  it("shows no SSO button: the page is the one any address gets", async () => {
    const pending = await secondStep("ada@pending.test")
    const nobody = await secondStep("ada@nobody.test")
    expect(pending.html).not.toContain("/auth/sso/start")
    // The same page as an address of no organization's, but for the address itself and the per-request tokens.
    const normal = (html: string, domain: string) => html.replaceAll(domain, "DOMAIN").replace(/value="[A-Za-z0-9_-]{20,}[^"]*"/g, 'value="TOKEN"').replace(/nonce="[^"]*"/g, "")
    expect(normal(pending.html, "pending.test")).toBe(normal(nobody.html, "nobody.test"))
  })
})

describe("a domain that requires SSO", () => {
  it("shows its button and no password field", async () => {
    const { html } = await secondStep("ada@strict.test")
    expect(html).toContain("/auth/sso/start")
    expect(html).toContain("Strict IdP")
    expect(html).not.toMatch(/type="password"/)
  })
})
