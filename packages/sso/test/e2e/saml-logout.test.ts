/**
 * SAML single logout in Chromium with SimpleSAMLphp: signing out of the app through the
 * extension's logout ends the IdP's session too (the next sign-in asks for the password again),
 * and the IdP's own logout (a signed LogoutRequest to the connection's SLO URL) ends the app's
 * SSO session of that organization. Both messages are signed HTTP-Redirect ones.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser, Page } from "playwright-core"
import { browserAvailable, launchChromium } from "../../../../e2e/support.js"
import { startDnsServer, type DnsServer } from "../fixtures/dns-server.js"
import { simpleSamlPhpAvailable } from "../fixtures/simplesamlphp.js"
import { ownerOf, startSsoApp, type Owner, type SsoApp } from "./app.js"
import { continueWithSso, samlOrganization, sessionInPage, signInThroughSaml, spEntryFor, type SamlOrganization } from "./saml.js"

const gate = simpleSamlPhpAvailable()

gate.describe("SAML single logout in Chromium through SimpleSAMLphp", () => {
  describe.runIf(gate.available && browserAvailable())("an organization's people", () => {
    let dns: DnsServer
    let app: SsoApp
    let owner: Owner
    let acme: SamlOrganization
    let browser: Browser

    beforeAll(async () => {
      dns = await startDnsServer()
      app = await startSsoApp({ dns, host: "localhost" })
      owner = await ownerOf(app, "olivia@owner.test")
      acme = await samlOrganization(app, owner, dns, { name: "Acme", domain: "acme.test" })
      // The IdP learns the SP's logout endpoint (published in its metadata since the IdP has one).
      const metadata = await (await fetch(acme.connection.saml!.spMetadataUrl)).text()
      expect(metadata).toContain(`${acme.connection.saml!.spEntityId}/slo`)
      await acme.idp.setServiceProviders({ ...(await spEntryFor(acme.connection)), sloUrl: `${acme.connection.saml!.spEntityId}/slo` })
      browser = await launchChromium()
    }, 120_000)
    afterAll(async () => {
      await browser?.close()
      await acme?.idp.stop()
      await app?.close()
      await dns?.stop()
    })

    /** Submits a form posting to the extension's logout with the page's CSRF token, as an app's sign-out button does. */
    async function signOutThroughSso(page: Page): Promise<void> {
      const csrfToken = await page.evaluate(async (url) => (await (await fetch(url, { credentials: "include" })).json()).csrfToken, `${app.origin}/auth/csrf`)
      await page.evaluate(({ action, csrfToken }) => {
        const form = document.createElement("form")
        form.method = "POST"
        form.action = action
        for (const [name, value] of Object.entries({ csrfToken, callbackUrl: "/signed-out" })) {
          const input = document.createElement("input")
          input.type = "hidden"
          input.name = name
          input.value = value
          form.append(input)
        }
        document.body.append(form)
        form.submit()
      }, { action: `${app.origin}/auth/sso/logout`, csrfToken })
      await page.waitForURL(`${app.origin}/signed-out`, { timeout: 20_000 })
    }

    it("signing out of the app ends the IdP's session too: the next sign-in asks for the password again", async () => {
      const context = await browser.newContext()
      const page = await context.newPage()
      expect((await signInThroughSaml(page, app, acme, "alice@acme.test", "alice", "alice-password")).user.email).toBe("alice@acme.test")
      await signOutThroughSso(page)
      expect(await sessionInPage(page, app)).toBeNull()
      // Were the IdP's session alive, it would post straight back without a login form.
      await continueWithSso(page, app, "alice@acme.test", acme.connection.name)
      await page.waitForURL((url) => url.href.startsWith(acme.idp.origin))
      await expect.poll(() => page.locator('input[name="password"]').count(), { timeout: 10_000 }).toBe(1)
      await context.close()
    }, 60_000)

    it("the IdP's logout ends the app's session of the organization", async () => {
      const context = await browser.newContext()
      const page = await context.newPage()
      expect((await signInThroughSaml(page, app, acme, "bob@acme.test", "bob", "bob-password")).user.email).toBe("bob@acme.test")
      // SimpleSAMLphp's own logout: it sends a signed LogoutRequest through the browser to every SP of the session.
      const slo: number[] = []
      page.on("response", (r) => void (r.url().startsWith(`${acme.connection.saml!.spEntityId}/slo?`) && slo.push(r.status())))
      await page.goto(`${acme.idp.sloUrl}?ReturnTo=${encodeURIComponent(`${app.origin}/after-idp-logout`)}`)
      await page.waitForURL(`${app.origin}/after-idp-logout`, { timeout: 20_000 })
      // The IdP's LogoutRequest reached the connection's SLO endpoint, which answered it (a redirect back with the LogoutResponse).
      expect(slo).toEqual([302])
      expect(await sessionInPage(page, app)).toBeNull()
      await context.close()
    }, 60_000)

    it("a logout message that is not signed ends nothing (another key's and other forgeries: test/saml/logout.test.ts)", async () => {
      const context = await browser.newContext()
      const page = await context.newPage()
      await signInThroughSaml(page, app, acme, "erin@acme.test", "erin", "erin-password")
      const response = await page.goto(`${acme.connection.saml!.spEntityId}/slo?SAMLRequest=${encodeURIComponent("fVJNb9swDP0rhu6x/JE0rRAHyJIcCnRBkGQ77BLIEt0IsCVPpNH23092MqwFuvoo8j3yPT7PUDZ1J5YtXdweft8BYvQ=")}&RelayState=x`)
      expect(response!.status()).toBe(400)
      expect((await sessionInPage(page, app)).user.email).toBe("erin@acme.test")
      await context.close()
    }, 60_000)
  })
})
