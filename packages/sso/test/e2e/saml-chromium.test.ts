/**
 * Issue 33's "Done when", SAML half: a person of an organization types their address at the
 * sign-in page, is offered the organization's SimpleSAMLphp, signs in there in Chromium and
 * lands back in the app (callbackUrl honoured) in the organization with the role its rules map.
 * Encrypted assertions, a certificate rollover and a domain that requires SSO, the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser } from "playwright-core"
import { browserAvailable, launchChromium } from "../../../../e2e/support.js"
import { startDnsServer, type DnsServer } from "../fixtures/dns-server.js"
import { generateSelfSignedPair } from "../fixtures/keys.js"
import { simpleSamlPhpAvailable } from "../fixtures/simplesamlphp.js"
import { LIGHT, passwordSignIn, seedUser } from "../../../core/test/password/support.js"
import { ownerOf, startSsoApp, type Owner, type SsoApp } from "./app.js"
import { continueWithSso, samlOrganization, sessionInPage, signInThroughSaml, type SamlOrganization } from "./saml.js"

const gate = simpleSamlPhpAvailable()

gate.describe("SAML sign-in in Chromium through SimpleSAMLphp", () => {
  describe.runIf(gate.available && browserAvailable())("an organization's people", () => {
    let dns: DnsServer
    let app: SsoApp
    let owner: Owner
    let acme: SamlOrganization
    let browser: Browser

    beforeAll(async () => {
      dns = await startDnsServer()
      // Another site than the IdP (127.0.0.1): its post back is cross-site, as in production.
      app = await startSsoApp({ dns, host: "localhost" })
      owner = await ownerOf(app, "olivia@owner.test")
      acme = await samlOrganization(app, owner, dns, { name: "Acme", domain: "acme.test" })
      browser = await launchChromium()
    }, 120_000)
    afterAll(async () => {
      await browser?.close()
      await acme?.idp.stop()
      await app?.close()
      await dns?.stop()
    })

    async function signIn(email: string, username: string, password: string, org = acme) {
      const context = await browser.newContext()
      const page = await context.newPage()
      try {
        return await signInThroughSaml(page, app, org, email, username, password)
      } finally {
        await context.close()
      }
    }

    describe("sign-in lands in the organization with the mapped role", () => {
      it("alice (group admins) is an admin of Acme, Acme active", async () => {
        const session = await signIn("alice@acme.test", "alice", "alice-password")
        expect(session.user.email).toBe("alice@acme.test")
        expect(session.organizations.active).toMatchObject({ id: acme.organizationId, name: "Acme", role: "admin" })
      }, 60_000)

      it("bob (staff only) is a member", async () => {
        const session = await signIn("bob@acme.test", "bob", "bob-password")
        expect(session.user.email).toBe("bob@acme.test")
        expect(session.organizations.active).toMatchObject({ id: acme.organizationId, role: "member" })
      }, 60_000)

      it("a second sign-in finds the same user and membership", async () => {
        await signIn("alice@acme.test", "alice", "alice-password")
        const alice = await app.adapter.getUserByEmail!("alice@acme.test")
        const again = await signIn("alice@acme.test", "alice", "alice-password")
        expect(again.user.email).toBe("alice@acme.test")
        // One user for the address, linked once to the connection, a member of Acme once.
        expect(await app.adapter.getUserByEmail!("alice@acme.test")).toMatchObject({ id: alice!.id })
        expect(await app.adapter.getUserByAccount!({ provider: `sso:${acme.connection.id}`, providerAccountId: "alice@acme.test" })).toMatchObject({ id: alice!.id })
        expect((await app.orgStore.listOrganizations(alice!.id)).map((m) => [m.organization.id, m.role])).toEqual([[acme.organizationId, "admin"]])
      }, 60_000)
    })

    describe("an attacker gets nothing", () => {
      /** Alice's sign-in in Chromium, with the form her browser posted to the ACS captured on the way. */
      async function capturedSignIn(): Promise<{ action: string; form: Record<string, string> }> {
        const context = await browser.newContext()
        const page = await context.newPage()
        let captured: { action: string; form: Record<string, string> } | undefined
        page.on("request", (request) => {
          if (request.method() === "POST" && request.url().endsWith("/acs")) captured = { action: request.url(), form: Object.fromEntries(new URLSearchParams(request.postData() ?? "")) }
        })
        await signInThroughSaml(page, app, acme, "alice@acme.test", "alice", "alice-password")
        await context.close()
        if (!captured?.form.SAMLResponse) throw new Error("no SAMLResponse captured")
        return captured
      }

      /** Another browser posting `form` to `action` as an auto-submitting page would; the page it gets. */
      async function postFrom(form: Record<string, string>, action: string) {
        const context = await browser.newContext()
        const page = await context.newPage()
        await page.goto(`${app.origin}/attacker`)
        const answer = page.waitForResponse((response) => response.url() === action)
        await page.evaluate(({ action, form }) => {
          const element = document.createElement("form")
          element.method = "POST"
          element.action = action
          for (const [name, value] of Object.entries(form)) {
            const input = document.createElement("input")
            input.type = "hidden"
            input.name = name
            input.value = value
            element.append(input)
          }
          document.body.append(element)
          element.submit()
        }, { action, form })
        const response = await answer
        await page.waitForLoadState()
        return { context, page, status: response.status(), text: (await page.locator("body").textContent()) ?? "" }
      }

      it("login CSRF: the attacker's own, never-used response posted from another site into a victim's browser signs the victim in as no one", async () => {
        // The attacker signs in at the IdP as bob in their own browser, and stops the post to the ACS.
        const attacker = await browser.newContext()
        const page = await attacker.newPage()
        let held: { action: string; form: Record<string, string> } | undefined
        await page.route("**/acs", async (route) => {
          held = { action: route.request().url(), form: Object.fromEntries(new URLSearchParams(route.request().postData() ?? "")) }
          await route.abort()
        })
        await continueWithSso(page, app, "bob@acme.test", acme.connection.name)
        await page.waitForURL((url) => url.href.startsWith(acme.idp.origin))
        await page.locator('input[name="username"]').fill("bob")
        await page.locator('input[name="password"]').fill("bob-password")
        await page.locator('input[name="password"]').press("Enter")
        await expect.poll(() => held?.form.SAMLResponse, { timeout: 20_000 }).toBeTruthy()
        await attacker.close()
        // A victim's browser (signed in to nothing) visits the attacker's page, which posts the genuine, unused response.
        const victim = await postFrom(held!.form, held!.action)
        // The response itself is genuine and unused: the ACS takes it, and the victim's browser is sent
        // to the same-site finish step, which finds no binding of this sign-in in it.
        expect(victim.status).toBe(302)
        expect(new URL(victim.page.url()).pathname).toBe(`/auth/sso/saml/${acme.connection.id}/finish`)
        expect(victim.text).toContain("could not be accepted")
        expect(await sessionInPage(victim.page, app)).toBeNull()
        await victim.context.close()
      }, 60_000)

      it("a captured response replayed from another browser: a refusal page, no session", async () => {
        const { action, form } = await capturedSignIn()
        const replay = await postFrom(form, action)
        expect(replay.status).toBeGreaterThanOrEqual(400)
        expect(replay.status).toBeLessThan(500)
        // A page a person reads (not JSON), without a stack.
        expect(replay.text.trim().startsWith("{")).toBe(false)
        expect(replay.text).not.toMatch(/at .+\.(ts|js):\d+/)
        expect(await sessionInPage(replay.page, app)).toBeNull()
        await replay.context.close()
      }, 60_000)

      it("a response for Acme's connection posted to another connection's ACS: refused", async () => {
        const { action, form } = await capturedSignIn()
        const other = await (await owner.sso()).createConnection(acme.organizationId, { kind: "saml", name: "Acme second IdP", saml: { metadataUrl: acme.idp.metadataUrl } })
        const replay = await postFrom(form, action.replace(acme.connection.id, other.id))
        expect(replay.status).toBeGreaterThanOrEqual(400)
        expect(replay.status).toBeLessThan(500)
        expect(await sessionInPage(replay.page, app)).toBeNull()
        await replay.context.close()
        await (await owner.sso()).deleteConnection(acme.organizationId, other.id)
      }, 60_000)

      it("an IdP-initiated (unsolicited) response: refused while the connection does not allow it", async () => {
        const context = await browser.newContext()
        const page = await context.newPage()
        await page.goto(acme.idp.unsolicitedUrl(acme.connection.saml!.spEntityId))
        await page.locator('input[name="username"]').fill("bob")
        await page.locator('input[name="password"]').fill("bob-password")
        const answer = page.waitForResponse((response) => response.url() === acme.connection.saml!.acsUrl)
        await page.locator('input[name="password"]').press("Enter")
        const response = await answer
        expect(response.status()).toBeGreaterThanOrEqual(400)
        expect(response.status()).toBeLessThan(500)
        await page.waitForURL(acme.connection.saml!.acsUrl)
        await page.waitForLoadState()
        expect(await sessionInPage(page, app)).toBeNull()
        await context.close()
      }, 60_000)
    })

    describe("encrypted assertions", () => {
      let crypt: SamlOrganization
      beforeAll(async () => {
        crypt = await samlOrganization(app, owner, dns, { name: "Crypt", domain: "crypt.test", encryptAssertions: true })
      }, 60_000)
      afterAll(() => crypt?.idp.stop())

      it("an IdP encrypting to the SP certificate of the connection's metadata signs people in", async () => {
        const session = await signIn("alice@crypt.test", "alice", "alice-password", crypt)
        expect(session.organizations.active).toMatchObject({ id: crypt.organizationId, role: "admin" })
      }, 60_000)
    })

    describe("certificate rollover", () => {
      it("keeps signing people in while the IdP announces, then signs with, its next key", async () => {
        const sso = await owner.sso()
        const next = await generateSelfSignedPair("acme-idp-next")
        await acme.idp.announce(next)
        // The owner refreshes the connection from the metadata: both certificates now.
        const refreshed = await sso.updateConnection(acme.organizationId, acme.connection.id, { saml: { metadataUrl: acme.idp.metadataUrl } })
        expect(refreshed.saml!.certificates).toBe(2)
        expect((await signIn("bob@acme.test", "bob", "bob-password")).organizations.active).toMatchObject({ role: "member" })
        await acme.idp.rotate(next, { publishBoth: true })
        expect((await signIn("alice@acme.test", "alice", "alice-password")).organizations.active).toMatchObject({ role: "admin" })
      }, 120_000)

      it("refuses a key the connection was never given, until the owner refreshes it", async () => {
        const unknown = await generateSelfSignedPair("acme-idp-unannounced")
        await acme.idp.rotate(unknown, { publishBoth: false })
        const context = await browser.newContext()
        const page = await context.newPage()
        await continueWithSso(page, app, "bob@acme.test", acme.connection.name)
        const answer = page.waitForResponse((response) => response.url() === acme.connection.saml!.acsUrl)
        await page.locator('input[name="username"]').fill("bob")
        await page.locator('input[name="password"]').fill("bob-password")
        await page.locator('input[name="password"]').press("Enter")
        const status = (await answer).status()
        expect(status).toBeGreaterThanOrEqual(400)
        expect(status).toBeLessThan(500)
        await page.waitForURL(acme.connection.saml!.acsUrl)
        expect(await sessionInPage(page, app)).toBeNull()
        await context.close()
        await (await owner.sso()).updateConnection(acme.organizationId, acme.connection.id, { saml: { metadataUrl: acme.idp.metadataUrl } })
        expect((await signIn("bob@acme.test", "bob", "bob-password")).organizations.active).toMatchObject({ role: "member" })
      }, 120_000)
    })

    describe("a domain that requires SSO", () => {
      beforeAll(async () => {
        await seedUser(app.adapter, { email: "carol@acme.test", password: "carol's long passphrase", hashing: LIGHT })
        const sso = await owner.sso()
        await sso.setDomainPolicy(acme.organizationId, "acme.test", { requireSso: true })
      })

      it("offers only the SSO button at the second step", async () => {
        const context = await browser.newContext()
        const page = await context.newPage()
        await page.goto(`${app.origin}/auth/signin`)
        await page.locator('input[name="email"]').first().fill("carol@acme.test")
        await page.getByRole("button", { name: /^continue$/i }).click()
        await page.getByRole("button", { name: "Continue with Acme SimpleSAMLphp" }).waitFor()
        expect(await page.locator('input[type="password"]').count()).toBe(0)
        await context.close()
      }, 60_000)

      it("refuses a password posted directly for an acme address", async () => {
        const browser = app.browser()
        const refused = await passwordSignIn(browser, { email: "carol@acme.test", password: "carol's long passphrase" })
        expect(refused.error).toBe("AccountSuspended")
        expect(await browser.session()).toBeNull()
      })

      it("still signs acme's people in through SSO", async () => {
        const session = await signIn("alice@acme.test", "alice", "alice-password")
        expect(session.organizations.active).toMatchObject({ id: acme.organizationId, role: "admin" })
      }, 60_000)

      it("leaves the owner's other domain alone", async () => {
        const other = app.browser()
        const signedIn = await passwordSignIn(other, { email: "olivia@owner.test", password: "the owner's long passphrase" })
        expect(signedIn.error).toBeNull()
        expect((await other.session()).user.email).toBe("olivia@owner.test")
      })
    })

    it("an address of no verified domain is offered no SSO", async () => {
      const context = await browser.newContext()
      const page = await context.newPage()
      await page.goto(`${app.origin}/auth/signin`)
      await page.locator('input[name="email"]').first().fill("dave@elsewhere.test")
      await page.getByRole("button", { name: /^continue$/i }).click()
      await page.locator('input[type="password"]').first().waitFor()
      expect(await page.getByRole("button", { name: /Continue with/ }).count()).toBe(0)
      await context.close()
    }, 60_000)

    describe("with database sessions", () => {
      let dbApp: SsoApp
      let beta: SamlOrganization
      beforeAll(async () => {
        dbApp = await startSsoApp({ dns, strategy: "database" })
        const betaOwner = await ownerOf(dbApp, "olivia@owner.test")
        beta = await samlOrganization(dbApp, betaOwner, dns, { name: "Beta", domain: "beta-db.test" })
      }, 60_000)
      afterAll(async () => {
        await beta?.idp.stop()
        await dbApp?.close()
      })

      it("alice lands in the organization as admin, with a database session", async () => {
        const context = await browser.newContext()
        const page = await context.newPage()
        const session = await signInThroughSaml(page, dbApp, beta, "alice@beta-db.test", "alice", "alice-password")
        expect(session.organizations.active).toMatchObject({ id: beta.organizationId, role: "admin" })
        const alice = await dbApp.adapter.getUserByEmail!("alice@beta-db.test")
        expect(await dbApp.adapter.listSessions!(alice!.id)).toHaveLength(1)
        await context.close()
      }, 60_000)
    })
  })
})
