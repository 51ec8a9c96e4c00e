/**
 * Issue 33's "Done when", OpenID Connect half: ada@beta.test types her address at the sign-in
 * page, is offered Beta's IdP (oidc-provider), signs in at its login and consent pages in
 * Chromium and lands back in the app (callbackUrl honoured) in Beta with the role its rule maps
 * from the `groups` claim; grace, in no mapped group, lands as a member.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser, Page } from "playwright-core"
import { browserAvailable, launchChromium } from "../../../../e2e/support.js"
import { startDnsServer, type DnsServer } from "../fixtures/dns-server.js"
import { ownerOf, startSsoApp, type SsoApp } from "./app.js"
import { listenOidcIdp, type OidcIdp } from "./oidc-idp.js"
import { sessionInPage } from "./saml.js"

const CLIENT = { clientId: "portcullis-beta", clientSecret: "beta's client secret, long enough" }

describe.runIf(browserAvailable())("OIDC sign-in in Chromium through oidc-provider", () => {
  const strategies = ["jwt", "database"] as const
  let browser: Browser
  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(() => browser?.close())

  describe.each(strategies)("%s sessions", (strategy) => {
    let dns: DnsServer
    let app: SsoApp
    let idp: OidcIdp
    let organizationId: string

    beforeAll(async () => {
      dns = await startDnsServer()
      app = await startSsoApp({ dns, strategy, host: "localhost" })
      idp = await listenOidcIdp([
        { login: "ada", email: "ada@beta.test", name: "Ada Lovelace", groups: ["engineering", "admins"] },
        { login: "grace", email: "grace@beta.test", name: "Grace Hopper", groups: ["engineering"] },
      ])
      const owner = await ownerOf(app, "olivia@owner.test")
      organizationId = await owner.createOrganization("Beta")
      await owner.verifyDomain(organizationId, "beta.test", dns)
      const connection = await (await owner.sso()).createConnection(organizationId, {
        kind: "oidc",
        name: "Beta Login",
        oidc: { issuer: idp.issuer, ...CLIENT },
        roleRules: [{ claim: "groups", value: "admins", role: "admin" }],
        defaultRole: "member",
      })
      // The IdP's admin registers the redirect URI the connection shows.
      await idp.register({ ...CLIENT, redirectUri: connection.oidc!.redirectUri })
    }, 60_000)
    afterAll(async () => {
      await idp?.close()
      await app?.close()
      await dns?.stop()
    })

    /** Sign-in page → Continue → "Continue with Beta Login" → the IdP's login and consent → the app. */
    async function signIn(page: Page, email: string, login: string): Promise<any> {
      await page.goto(`${app.origin}/auth/signin?callbackUrl=${encodeURIComponent(`${app.origin}/dashboard`)}`)
      await page.locator('input[name="email"]').first().fill(email)
      await page.getByRole("button", { name: /^continue$/i }).click()
      await page.getByRole("button", { name: "Continue with Beta Login" }).click()
      await page.waitForURL((url) => url.href.startsWith(idp.issuer))
      await page.locator('input[name="login"]').fill(login)
      await page.locator('input[name="password"]').fill("any password")
      await page.locator('button[type="submit"]').click()
      await page.waitForURL((url) => url.href.startsWith(`${app.origin}/dashboard`) || (url.href.startsWith(idp.issuer) && url.pathname.includes("interaction")))
      await page.waitForLoadState()
      if (page.url().startsWith(idp.issuer)) await page.locator('button[type="submit"]').click()
      await page.waitForURL(`${app.origin}/dashboard`)
      expect(await page.locator("#landed").textContent()).toBe("/dashboard")
      return sessionInPage(page, app)
    }

    it("ada (groups claim: admins) lands in Beta as an admin", async () => {
      const context = await browser.newContext()
      const session = await signIn(await context.newPage(), "ada@beta.test", "ada")
      expect(session.user).toMatchObject({ email: "ada@beta.test", name: "Ada Lovelace" })
      expect(session.organizations.active).toMatchObject({ id: organizationId, name: "Beta", role: "admin" })
      await context.close()
    }, 60_000)

    it("grace (no mapped group) lands as a member", async () => {
      const context = await browser.newContext()
      const session = await signIn(await context.newPage(), "grace@beta.test", "grace")
      expect(session.organizations.active).toMatchObject({ id: organizationId, role: "member" })
      const grace = await app.adapter.getUserByEmail!("grace@beta.test")
      expect(grace?.emailVerified).toBeInstanceOf(Date)
      await context.close()
    }, 60_000)
  })
})
