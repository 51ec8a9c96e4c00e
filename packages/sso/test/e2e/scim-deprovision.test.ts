/**
 * Issue 33's "Done when", SCIM half: a person signed in through their organization's SAML IdP
 * in Chromium is deprovisioned by the IdP's SCIM client — Okta's PATCH `active: false`, Entra's
 * DELETE — and the browser's next `/auth/session` is signed out. A member of no other
 * organization loses every session; a member of another keeps their other sessions and that
 * membership, while the SSO session and the membership of the deprovisioning one end.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { hashPassword } from "@portcullis/core/password"
import { browserAvailable, launchChromium } from "../../../../e2e/support.js"
import { passwordSignIn, LIGHT } from "../../../core/test/password/support.js"
import { startDnsServer, type DnsServer } from "../fixtures/dns-server.js"
import { simpleSamlPhpAvailable } from "../fixtures/simplesamlphp.js"
import { ownerOf, startSsoApp, type Owner, type SsoApp } from "./app.js"
import { continueWithSso, loginAtSimpleSamlPhp, samlOrganization, sessionInPage, signInThroughSaml, type SamlOrganization } from "./saml.js"

const gate = simpleSamlPhpAvailable()
const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"

const strategies = ["jwt", "database"] as const

gate.describe("SCIM deprovisioning ends an SSO user's sessions", () => {
  describe.runIf(gate.available && browserAvailable())("in Chromium", () => {
    // One browser for the file; each strategy's app has its own contexts in it.
    let browser: Browser
    beforeAll(async () => {
      browser = await launchChromium()
    })
    afterAll(() => browser?.close())

    describe.each(strategies)("after a sign-in (%s sessions)", (strategy) => {
      let dns: DnsServer
      let app: SsoApp
      let owner: Owner
      let acme: SamlOrganization
      let scim: { token: string; scimBaseUrl: string }

      beforeAll(async () => {
        dns = await startDnsServer()
        app = await startSsoApp({ dns, strategy, host: "localhost" })
        owner = await ownerOf(app, "olivia@owner.test")
        acme = await samlOrganization(app, owner, dns, { name: "Acme", domain: "acme.test" })
        scim = await (await owner.sso()).createScimToken(acme.organizationId, acme.connection.id)
      }, 120_000)
      afterAll(async () => {
        await acme?.idp.stop()
        await app?.close()
        await dns?.stop()
      })

      /** A SCIM call as the IdP's client makes it: bearer token, SCIM JSON. */
      async function scimCall(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
        const response = await fetch(`${scim.scimBaseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${scim.token}`, ...(body !== undefined && { "content-type": "application/scim+json" }) },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        })
        const text = await response.text()
        return { status: response.status, body: text ? JSON.parse(text) : null }
      }

      /** The IdP pushes the user it already signed in (as Okta does on assignment); the SCIM id it gets. */
      async function provision(email: string): Promise<string> {
        const created = await scimCall("POST", "/Users", { schemas: [USER_SCHEMA], userName: email, name: { givenName: "A", familyName: "Person" }, emails: [{ value: email, primary: true }], active: true })
        expect(created.status).toBe(201)
        return created.body.id as string
      }

      /** The person signed in through SSO in their own Chromium context, plus a password session of theirs elsewhere. */
      async function signedInEverywhere(email: string, username: string, password: string) {
        const context: BrowserContext = await browser.newContext()
        const page: Page = await context.newPage()
        const session = await signInThroughSaml(page, app, acme, email, username, password)
        expect(session.organizations.active).toMatchObject({ id: acme.organizationId })
        const user = (await app.adapter.getUserByEmail!(email))!
        // The same person also set a password and signed in with it on another device.
        await app.adapter.setUserPassword!(user.id, await hashPassword("their own long passphrase", LIGHT))
        const elsewhere = app.browser()
        expect((await passwordSignIn(elsewhere, { email, password: "their own long passphrase" })).error).toBeNull()
        expect((await elsewhere.session()).user.email).toBe(email)
        return { context, page, user, elsewhere }
      }

      describe("Okta's PATCH active:false, for a member of no other organization", () => {
        it("signs the browser out, and every other session of theirs", async () => {
          const { context, page, user, elsewhere } = await signedInEverywhere("alice@acme.test", "alice", "alice-password")
          const id = await provision("alice@acme.test")
          expect(id).toBe(user.id)
          const patched = await scimCall("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] })
          expect(patched.status).toBe(200)
          expect(patched.body.active).toBe(false)
          expect(await sessionInPage(page, app)).toBeNull()
          expect(await elsewhere.session()).toBeNull()
          expect(await app.orgStore.getMembership(acme.organizationId, user.id)).toBeNull()
          await context.close()
        }, 60_000)
      })

      describe("after deprovisioning, the IdP still signing them in", () => {
        it("does not make them a member again: SCIM owns the membership of the people it provisions", async () => {
          // alice was deactivated above; SimpleSAMLphp (an IdP that was not told) still signs her in.
          const context = await browser.newContext()
          const page = await context.newPage()
          await continueWithSso(page, app, "alice@acme.test", acme.connection.name)
          // The ACS checks the response, then the browser's same-site finish step signs in (or refuses).
          const answer = page.waitForResponse((response) => response.url().startsWith(`${acme.connection.saml!.spEntityId}/finish`))
          await loginAtSimpleSamlPhp(page, acme.idp, "alice", "alice-password", app.origin)
          expect((await answer).status()).toBe(403)
          expect(await page.locator("[role=alert]").textContent()).toContain("access to this organization was removed")
          const alice = (await app.adapter.getUserByEmail!("alice@acme.test"))!
          expect(await app.orgStore.getMembership(acme.organizationId, alice.id)).toBeNull()
          expect(await sessionInPage(page, app)).toBeNull()
          await context.close()
        }, 60_000)

        it("lets them in again once SCIM reactivates them", async () => {
          const alice = (await app.adapter.getUserByEmail!("alice@acme.test"))!
          const reactivated = await scimCall("PATCH", `/Users/${alice.id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: true } }] })
          expect(reactivated.status).toBe(200)
          const context = await browser.newContext()
          const session = await signInThroughSaml(await context.newPage(), app, acme, "alice@acme.test", "alice", "alice-password")
          expect(session.organizations.active).toMatchObject({ id: acme.organizationId, role: "admin" })
          await context.close()
        }, 60_000)
      })

      describe("for a member of another organization too", () => {
        it("PATCH active:false ends the SSO session and the membership; the other membership and sessions stay", async () => {
          const { context, page, user, elsewhere } = await signedInEverywhere("bob@acme.test", "bob", "bob-password")
          const globex = await owner.createOrganization("Globex")
          expect(await app.orgStore.addMember({ organizationId: globex, userId: user.id, role: "member", createdAt: new Date() })).toBe("added")
          const id = await provision("bob@acme.test")
          const patched = await scimCall("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] })
          expect(patched.status).toBe(200)
          expect(await sessionInPage(page, app)).toBeNull()
          expect(await app.orgStore.getMembership(acme.organizationId, user.id)).toBeNull()
          expect(await app.orgStore.getMembership(globex, user.id)).toMatchObject({ role: "member" })
          // Not an SSO session of Acme's: still signed in.
          expect((await elsewhere.session())?.user.email).toBe("bob@acme.test")
          await context.close()
        }, 60_000)
      })

      describe("Entra's DELETE", () => {
        it("signs the browser out and removes the user from the directory", async () => {
          const { context, page, user, elsewhere } = await signedInEverywhere("erin@acme.test", "erin", "erin-password")
          expect(await provision("erin@acme.test")).toBe(user.id)
          const deleted = await scimCall("DELETE", `/Users/${user.id}`)
          expect(deleted.status).toBe(204)
          expect(await sessionInPage(page, app)).toBeNull()
          expect(await elsewhere.session()).toBeNull()
          expect(await app.orgStore.getMembership(acme.organizationId, user.id)).toBeNull()
          expect((await scimCall("GET", `/Users/${user.id}`)).status).toBe(404)
          await context.close()
        }, 60_000)
      })
    })
  })
})
