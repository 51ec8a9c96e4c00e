/**
 * The SSO settings page in Chromium: zero axe-core violations of any impact in English and
 * Arabic (right to left), light and dark — with connections of both kinds, a SCIM token, a
 * verified and an unverified domain and a notice on it — and every control reachable by Tab.
 * The one-time SCIM token answer is checked the same way after a real click.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser as Chromium, BrowserContext, Page } from "playwright-core"
import { axeViolations, browserAvailable, launchChromium } from "../../../../e2e/support.js"
import { messages } from "../../src/messages.js"
import { assembledApp, type App, type Tenant } from "../attacks/app.js"

const enabled = browserAvailable()

/**
 * Tabs through the page from the top, marking each element that takes focus, until focus
 * comes back to one already marked (or leaves the page); then the controls never marked.
 * Elements rather than names: two fields may share a label's text in different forms.
 */
async function unreachableByTab(page: Page): Promise<string[]> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
  const controls = await page.locator("a[href], button, input:not([type=hidden]), select, textarea").count()
  for (let i = 0; i < controls + 5; i++) {
    await page.keyboard.press("Tab")
    const fresh = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null
      if (!el || el === document.body || el.dataset.tabbed) return false
      el.dataset.tabbed = "yes"
      return true
    })
    if (!fresh) break
  }
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>("a[href], button, input:not([type=hidden]), select, textarea")]
      .filter((el) => !el.dataset.tabbed)
      .map((el) => `${el.tagName.toLowerCase()}#${el.id || ""} ${el.getAttribute("aria-label") ?? el.textContent?.trim() ?? ""}`),
  )
}

describe.runIf(enabled)("the SSO settings page in Chromium", () => {
  let app: App
  let acme: Tenant
  let chromium: Chromium
  let cookie: string

  beforeAll(async () => {
    app = await assembledApp()
    acme = await app.tenant("acme", "acme.test")
    // An unverified claim, an OIDC connection and a SCIM token: every kind of row on the page.
    await app.store.claimDomain({ domain: "pending.test", organizationId: acme.id, token: "pending-verification-token", verifiedAt: null, requireSso: false, connectionId: null, createdAt: new Date() })
    await app.store.createConnection({ id: "conn-oidc", organizationId: acme.id, kind: "oidc", name: "Okta", enabled: false, oidc: { issuer: "https://login.okta-example.com", clientId: "client-1", clientSecret: "s3cret-value" }, roleRules: [], defaultRole: "member", createdAt: new Date() })
    await app.scimToken(acme.connection)
    const owner = await app.signedIn({ email: acme.owner.email, password: "correct horse battery staple" })
    cookie = owner.sessionCookie()!
    chromium = await launchChromium()
  })
  afterAll(async () => {
    await chromium?.close()
    await app?.close()
  })

  async function context(locale: string, colorScheme: "light" | "dark"): Promise<BrowserContext> {
    const ctx = await chromium.newContext({ bypassCSP: true, locale, colorScheme })
    await ctx.addCookies([{ name: "authjs.session-token", value: cookie, url: app.server.origin }])
    return ctx
  }

  for (const locale of ["en", "ar"] as const) {
    for (const colorScheme of ["light", "dark"] as const) {
      it(`in ${locale}, ${colorScheme}: zero axe violations and every control reachable by Tab`, async () => {
        const ctx = await context(locale, colorScheme)
        try {
          const page = await ctx.newPage()
          await page.goto(`${app.authUrl}/sso/organizations/${acme.id}?done=connectionCreated`)
          expect(await page.locator("h1").textContent()).toBeTruthy()
          expect(await page.locator("html").getAttribute("lang")).toBe(locale)
          if (locale === "ar") expect(await page.locator("html").getAttribute("dir")).toBe("rtl")
          expect(await page.locator("table").count()).toBeGreaterThanOrEqual(3)
          expect(await page.locator("button").count()).toBeGreaterThan(10)
          expect(await page.getByRole("status").first().textContent()).toBe(messages[locale]!["done.connectionCreated"])
          if (process.env.SSO_PAGE_SHOTS) await page.screenshot({ path: `${process.env.SSO_PAGE_SHOTS}/sso-${locale}-${colorScheme}.png`, fullPage: true })
          expect(await axeViolations(page), `${locale} ${colorScheme}`).toEqual([])
          expect(await unreachableByTab(page)).toEqual([])
        } finally {
          await ctx.close()
        }
      }, 60_000)
    }
  }

  it("the one-time SCIM token answer, after a click: zero axe violations, the token shown in a labelled field", async () => {
    const ctx = await context("en", "light")
    try {
      const page = await ctx.newPage()
      await page.goto(`${app.authUrl}/sso/organizations/${acme.id}`)
      await page.getByRole("button", { name: `Create a SCIM token: ${acme.connection.name}` }).click()
      const field = page.getByLabel("SCIM token", { exact: true })
      await expect.poll(() => field.inputValue()).toMatch(/^\S{40,}$/)
      expect(await axeViolations(page)).toEqual([])
      expect(await unreachableByTab(page)).toEqual([])
    } finally {
      await ctx.close()
    }
  }, 60_000)
})
