/**
 * SAML set-up and browser steps the end-to-end suites share: an organization that verified its
 * domain, a SAML connection made from SimpleSAMLphp's metadata URL, the IdP told about the
 * connection's service provider, and Chromium going through the sign-in page and the IdP.
 * @module
 */
import type { Page } from "playwright-core"
import { expect } from "vitest"
import type { ConnectionView } from "@portcullis/sso"
import type { DnsServer } from "../fixtures/dns-server.js"
import { selfSignedPair } from "../fixtures/keys.js"
import { startSimpleSamlPhp, type SimpleSamlPhpIdp, type SimpleSamlPhpSp, type SimpleSamlPhpUser } from "../fixtures/simplesamlphp.js"
import type { Owner, SsoApp } from "./app.js"

/** SimpleSAMLphp's users with addresses of `domain`: alice (groups staff, admins), bob (staff), erin (none). */
export function usersOf(domain: string): SimpleSamlPhpUser[] {
  return [
    { username: "alice", password: "alice-password", attributes: { uid: ["alice"], email: [`alice@${domain}`], displayName: ["Alice Example"], groups: ["staff", "admins"] } },
    { username: "bob", password: "bob-password", attributes: { uid: ["bob"], email: [`bob@${domain}`], displayName: ["Bob Example"], groups: ["staff"] } },
    { username: "erin", password: "erin-password", attributes: { uid: ["erin"], email: [`erin@${domain}`], displayName: ["Erin Example"], groups: [] } },
  ]
}

/** The SP's certificate as its metadata publishes it (what an IdP's admin copies from there). */
export async function spCertificateFromMetadata(metadataUrl: string): Promise<string> {
  const xml = await (await fetch(metadataUrl)).text()
  const body = /<(?:\w+:)?X509Certificate>([^<]+)<\/(?:\w+:)?X509Certificate>/.exec(xml)?.[1]
  if (!body) throw new Error(`no certificate in the SP metadata at ${metadataUrl}`)
  return `-----BEGIN CERTIFICATE-----\n${body.replace(/\s+/g, "").replace(/.{64}/g, "$&\n")}\n-----END CERTIFICATE-----\n`
}

/** The IdP's entry for a connection's SP: its entity ID, ACS and (from its metadata) certificate. */
export async function spEntryFor(view: ConnectionView): Promise<SimpleSamlPhpSp> {
  return { entityId: view.saml!.spEntityId, acsUrl: view.saml!.acsUrl, certificate: await spCertificateFromMetadata(view.saml!.spMetadataUrl) }
}

/** A placeholder SP the IdP starts with, before the connection (and so its SP) exists. */
const PLACEHOLDER: SimpleSamlPhpSp = { entityId: "urn:placeholder", acsUrl: "http://127.0.0.1:9/acs" }

export interface SamlOrganization {
  organizationId: string
  idp: SimpleSamlPhpIdp
  connection: ConnectionView
}

/**
 * An organization of `owner` verifying `domain`, with a SAML connection to a fresh SimpleSAMLphp
 * whose users have addresses of `domain`; admins of the IdP's "admins" group become admins.
 */
export async function samlOrganization(app: SsoApp, owner: Owner, dns: DnsServer, options: { name: string; domain: string; encryptAssertions?: boolean }): Promise<SamlOrganization> {
  const organizationId = await owner.createOrganization(options.name)
  await owner.verifyDomain(organizationId, options.domain, dns)
  const encrypt = options.encryptAssertions === true
  const idp = await startSimpleSamlPhp({
    // Encryption needs a certificate for every SP the IdP knows, the placeholder's too.
    sp: encrypt ? { ...PLACEHOLDER, certificate: (await selfSignedPair("placeholder-sp")).certificate } : PLACEHOLDER,
    users: usersOf(options.domain),
    encryptAssertions: encrypt,
  })
  const sso = await owner.sso()
  const connection = await sso.createConnection(organizationId, {
    kind: "saml",
    name: `${options.name} SimpleSAMLphp`,
    saml: { metadataUrl: idp.metadataUrl, ...(encrypt && { encryptAssertions: true }) },
    roleRules: [{ claim: "groups", value: "admins", role: "admin" }],
    defaultRole: "member",
  })
  await idp.setServiceProviders(await spEntryFor(connection))
  return { organizationId, idp, connection }
}

/**
 * Chromium at the sign-in page: types `email`, Continue, then "Continue with <connection>";
 * resolves on the IdP's login page.
 */
export async function continueWithSso(page: Page, app: SsoApp, email: string, connectionName: string, callbackUrl = `${app.origin}/dashboard`): Promise<void> {
  await page.goto(`${app.origin}/auth/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`)
  await page.locator('input[name="email"]').first().fill(email)
  await page.getByRole("button", { name: /^continue$/i }).click()
  const sso = page.getByRole("button", { name: `Continue with ${connectionName}` })
  await sso.waitFor()
  await sso.click()
}

/** At SimpleSAMLphp's login page: signs in, and waits until the browser is back at `landing`. */
export async function loginAtSimpleSamlPhp(page: Page, idp: SimpleSamlPhpIdp, username: string, password: string, landing: string): Promise<void> {
  await page.waitForURL((url) => url.href.startsWith(idp.origin))
  await page.locator('input[name="username"]').fill(username)
  await page.locator('input[name="password"]').fill(password)
  await Promise.all([page.waitForURL((url) => url.href.startsWith(landing), { timeout: 20_000 }), page.locator('input[name="password"]').press("Enter")])
}

/** The session as the page's own request sees it (`GET /auth/session` in the browser). */
export async function sessionInPage(page: Page, app: SsoApp): Promise<any> {
  return page.evaluate(async (url) => (await fetch(url, { credentials: "include" })).json(), `${app.origin}/auth/session`)
}

/** The whole sign-in of `username` through the page and the IdP; the session it ends with. */
export async function signInThroughSaml(page: Page, app: SsoApp, org: SamlOrganization, email: string, username: string, password: string): Promise<any> {
  await continueWithSso(page, app, email, org.connection.name)
  await loginAtSimpleSamlPhp(page, org.idp, username, password, `${app.origin}/dashboard`)
  expect(await page.locator("#landed").textContent()).toBe("/dashboard")
  return sessionInPage(page, app)
}
