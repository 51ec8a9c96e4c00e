/**
 * The SSO settings page (`/auth/sso/organizations/:organization`) over HTTP, in the assembled
 * app: its owner sees it and every no-JS form works end to end (a domain claimed and verified
 * against a real DNS server on loopback, a SAML connection added from XML metadata, a SCIM
 * token shown once and revoked); anyone else gets the 404 page and changes nothing; a stale
 * session is sent to re-authenticate; values are escaped and no secret is ever on a page; the
 * store down is a clear 503.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { memoryRateLimitStore } from "@portcullis/core/rate-limit"
import type { Browser } from "../../core/test/helpers.js"
import { messages } from "../src/messages.js"
import { oidcRedirectUri } from "../src/oidc.js"
import type { SsoStore } from "../src/store/types.js"
import { assembledApp, noStack, wallClock, type App, type Tenant } from "./attacks/app.js"
import { startDnsServer, type DnsServer } from "./fixtures/dns-server.js"
import { testIdp } from "./saml/idp-fixture.js"

const en = messages.en! as Record<string, string>
const password = "correct horse battery staple"

let mode: "up" | "down" = "up"
/** The SSO store as a backend that goes down while `mode` says so. */
function flaky(store: SsoStore): SsoStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver)
      if (typeof value !== "function") return value
      return (...args: unknown[]) => (mode === "down" ? Promise.reject(new Error("connect ECONNREFUSED 10.0.0.9:5432 password=hunter2")) : value.apply(target, args))
    },
  })
}

let dns: DnsServer
let app: App
let acme: Tenant
let owner: Browser
let member: Browser
let outsider: Browser

beforeAll(async () => {
  dns = await startDnsServer()
  app = await assembledApp({ dns: { servers: dns.servers, timeoutMs: 2000 }, store: flaky })
  acme = await app.tenant("acme", "acme.test")
  owner = await app.signedIn({ email: acme.owner.email, password })
  const m = await app.passwordUser("member@acme-people.example")
  await app.orgStore.addMember({ organizationId: acme.id, userId: m.id, role: "member", createdAt: new Date() })
  member = await app.signedIn(m)
  outsider = await app.signedIn(await app.passwordUser("someone@elsewhere.example"))
})
afterAll(async () => {
  mode = "up"
  await app?.close()
  await dns?.stop()
})

const pagePath = () => `/auth/sso/organizations/${acme.id}`

async function page(b: Browser, query = "") {
  const response = await b.request(`${pagePath()}${query}`, { headers: { accept: "text/html" } })
  return { status: response.status, text: await response.text() }
}

/** The form of the page whose action ends with `suffix`: its action and CSRF token, read from the HTML as a browser would. */
function formOf(html: string, suffix: string): { action: string; csrfToken: string } {
  for (const match of html.matchAll(/<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/g)) {
    const action = match[1]!.replaceAll("&amp;", "&")
    if (!action.endsWith(suffix)) continue
    const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(match[2]!)?.[1]
    if (!csrfToken) throw new Error(`the form ${action} has no CSRF token`)
    return { action, csrfToken }
  }
  throw new Error(`no form ending with ${suffix} on the page`)
}

/** Submits the page's form ending with `suffix` (as `b` sees the page) with `fields`. */
async function submit(b: Browser, suffix: string, fields: Record<string, string> = {}) {
  const { text } = await page(b)
  const { action, csrfToken } = formOf(text, suffix)
  const response = await b.request(new URL(action).pathname, { form: { csrfToken, ...fields } })
  return { status: response.status, location: response.headers.get("location"), cacheControl: response.headers.get("cache-control"), text: await response.text() }
}

/** A form posted straight at a route (what someone without the page would try), with their own CSRF token. */
async function post(b: Browser, path: string, fields: Record<string, string> = {}) {
  const response = await b.request(`${pagePath()}/forms/${path}`, { form: { csrfToken: await b.csrfToken(), ...fields } })
  return { status: response.status, location: response.headers.get("location"), text: await response.text() }
}

/** The page's text as read: its entities decoded (a sentence with an apostrophe is escaped in the HTML). */
const read = (html: string) => html.replace(/&#39;|&#x27;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")

const back = (key: "done" | "error", value: string) => `${app.authUrl}/sso/organizations/${acme.id}?${key}=${value}`

/** IdP metadata as an IdP publishes it, for `idp`. */
const metadataOf = (idp: { entityId: string; certificate: string }) =>
  `<?xml version="1.0"?><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${idp.entityId}">` +
  `<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">` +
  `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${idp.certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
  `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${idp.entityId}/sso"/>` +
  `</md:IDPSSODescriptor></md:EntityDescriptor>`

describe("the owner's page", () => {
  it("shows the connections with what to give the IdP, and the domains with their TXT record", async () => {
    const { status, text } = await page(owner)
    expect(status).toBe(200)
    expect(text).toContain(`<h1>${en["settings.title"]}</h1>`)
    expect(text).toContain(acme.connection.name)
    expect(text).toContain(`${app.authUrl}/sso/saml/${acme.connection.id}/acs`)
    expect(text).toContain("acme.test")
    expect(text).toContain(en["settings.verified"])
  })

  it("puts the CSRF token in every form", async () => {
    const { text } = await page(owner)
    const forms = [...text.matchAll(/<form method="post"[\s\S]*?<\/form>/g)].map((m) => m[0])
    expect(forms.length).toBeGreaterThan(5)
    expect(forms.filter((f) => !/name="csrfToken" value="[^"]+"/.test(f))).toEqual([])
  })

  it("shows a notice only for a known key, never the query's text", async () => {
    expect((await page(owner, "?done=domainVerified")).text).toContain(en["done.domainVerified"])
    const forged = await page(owner, `?error=${encodeURIComponent("<script>alert(1)</script>")}&done=${encodeURIComponent("Your account is locked")}`)
    expect(forged.status).toBe(200)
    expect(forged.text).not.toContain("alert(1)")
    expect(forged.text).not.toContain("Your account is locked")
  })
})

describe("a domain, claimed and verified against DNS", () => {
  it("is claimed, refused until its TXT record is published, then verified, required, let go and removed", async () => {
    const claimed = await submit(owner, "/forms/domains", { domain: "NewCo.test" })
    expect(claimed).toMatchObject({ status: 302, location: back("done", "domainClaimed") })
    const claim = (await app.store.getDomain("newco.test", acme.id))!
    expect(claim.verifiedAt).toBeNull()
    const shown = (await page(owner, "?done=domainClaimed")).text
    expect(shown).toContain(en["done.domainClaimed"])
    expect(shown).toContain(`_portcullis-challenge.newco.test`)
    expect(shown).toContain(claim.token)

    expect(await submit(owner, "/forms/domains/newco.test/verify")).toMatchObject({ status: 302, location: back("error", "record-not-found") })
    expect((await page(owner, "?error=record-not-found")).text).toContain(en["error.record-not-found"])
    expect((await app.store.getDomain("newco.test", acme.id))!.verifiedAt).toBeNull()

    dns.set("_portcullis-challenge.newco.test", [`portcullis-verification=${claim.token}`])
    expect(await submit(owner, "/forms/domains/newco.test/verify")).toMatchObject({ status: 302, location: back("done", "domainVerified") })
    expect((await app.store.getDomain("newco.test", acme.id))!.verifiedAt).toBeInstanceOf(Date)

    expect(await submit(owner, "/forms/domains/newco.test/require")).toMatchObject({ status: 302, location: back("done", "ssoRequired") })
    expect((await app.store.getDomain("newco.test", acme.id))!.requireSso).toBe(true)
    expect(await submit(owner, "/forms/domains/newco.test/allow")).toMatchObject({ status: 302, location: back("done", "ssoNotRequired") })
    expect((await app.store.getDomain("newco.test", acme.id))!.requireSso).toBe(false)

    expect(await submit(owner, "/forms/domains/newco.test/delete")).toMatchObject({ status: 302, location: back("done", "domainRemoved") })
    expect(await app.store.getDomain("newco.test", acme.id)).toBeNull()
  })

  it("refuses a name that is no domain with a notice, claiming nothing", async () => {
    const before = (await app.store.listDomains(acme.id)).length
    const answer = await submit(owner, "/forms/domains", { domain: "not a domain" })
    expect(answer.status).toBe(302)
    expect(answer.location).toMatch(/\?error=invalid-(domain|input)$/)
    expect((await app.store.listDomains(acme.id)).length).toBe(before)
  })

  it("keeps one claim when the same domain is claimed 50 times at once", async () => {
    const { text } = await page(owner)
    const { action, csrfToken } = formOf(text, "/forms/domains")
    const answers = await Promise.all(Array.from({ length: 50 }, () => owner.request(new URL(action).pathname, { form: { csrfToken, domain: "burst.test" } })))
    expect(answers.map((a) => a.status).filter((s) => s !== 302)).toEqual([])
    expect((await app.store.listDomains(acme.id)).filter((d) => d.domain === "burst.test")).toHaveLength(1)
    await submit(owner, "/forms/domains/burst.test/delete")
  })
})

describe("connections", () => {
  const idp = testIdp("https://idp.partner.example", wallClock)

  it("adds a SAML connection from the IdP's XML metadata; its name is shown escaped", async () => {
    const answer = await submit(owner, "/forms/saml", { name: "<script>alert(1)</script>", metadataXml: metadataOf(idp) })
    expect(answer).toMatchObject({ status: 302, location: back("done", "connectionCreated") })
    const added = (await app.store.listConnections(acme.id)).find((c) => c.saml?.idpEntityId === idp.entityId)!
    expect(added.saml!.certificates).toEqual([idp.certificate])
    const { text } = await page(owner, "?done=connectionCreated")
    expect(text).toContain(en["done.connectionCreated"])
    expect(text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;")
    expect(text).not.toContain("<script>alert(1)")
    expect(text).toContain(`${app.authUrl}/sso/saml/${added.id}/acs`)
  })

  it("refuses metadata that is not an IdP's with a notice, adding nothing", async () => {
    const before = (await app.store.listConnections(acme.id)).length
    const answer = await submit(owner, "/forms/saml", { name: "Broken", metadataXml: "<md:EntityDescriptor" })
    expect(answer).toMatchObject({ status: 302, location: back("error", "invalid-metadata") })
    expect((await app.store.listConnections(acme.id)).length).toBe(before)
    expect(read((await page(owner, "?error=invalid-metadata")).text)).toContain(en["error.invalid-metadata"])
  })

  it("adds an OIDC connection and shows its redirect URI, never its client secret", async () => {
    const secret = "oidc-client-secret-do-not-show-0123456789"
    const answer = await submit(owner, "/forms/oidc", { name: "Okta", issuer: "https://login.okta-example.com", clientId: "client-123", clientSecret: secret })
    expect(answer).toMatchObject({ status: 302, location: back("done", "connectionCreated") })
    const added = (await app.store.listConnections(acme.id)).find((c) => c.kind === "oidc")!
    expect(added.oidc!.clientSecret).toBe(secret)
    const { text } = await page(owner)
    expect(text).toContain(oidcRedirectUri(app.authUrl, added))
    expect(text).not.toContain(secret)
  })

  it("never shows an SP private key", async () => {
    const keys = (await app.store.listConnections(acme.id)).flatMap((c) => (c.spKey ? [c.spKey.privateKey] : []))
    expect(keys.length).toBeGreaterThan(0)
    const { text } = await page(owner)
    for (const key of keys) {
      const body = key.replace(/-----[^-]+-----|\s/g, "")
      expect(text).not.toContain(body.slice(0, 40))
    }
    expect(text).not.toContain("PRIVATE KEY")
  })

  it("turns a connection off and on, tests it (the detail shown) and deletes it", async () => {
    const target = (await app.store.listConnections(acme.id)).find((c) => c.saml?.idpEntityId === idp.entityId)!
    const at = `/forms/connections/${target.id}`
    expect(await submit(owner, `${at}/disable`)).toMatchObject({ status: 302, location: back("done", "connectionDisabled") })
    expect((await app.store.getConnection(target.id))!.enabled).toBe(false)
    expect(await submit(owner, `${at}/enable`)).toMatchObject({ status: 302, location: back("done", "connectionEnabled") })
    expect((await app.store.getConnection(target.id))!.enabled).toBe(true)

    const tested = await submit(owner, `${at}/test`)
    expect(tested.status).toBe(200)
    expect(tested.text).toContain(en["settings.testPassed"]!.replace(": {detail}", ""))
    expect(tested.text).toContain(`SAML IdP ${idp.entityId}`)

    expect(await submit(owner, `${at}/delete`)).toMatchObject({ status: 302, location: back("done", "connectionDeleted") })
    expect(await app.store.getConnection(target.id)).toBeNull()
  })
})

describe("SCIM tokens", () => {
  it("shows a new token once — on the answer only, kept as a hash — then never; revoking it works", async () => {
    const at = `/forms/connections/${acme.connection.id}/scim-tokens`
    const made = await submit(owner, at)
    expect(made.status).toBe(200)
    const token = /id="new-scim-token" readonly value="([^"]+)"/.exec(made.text)?.[1]
    expect(token).toMatch(/^\S{40,}$/)
    expect(made.cacheControl).toContain("no-store")
    const stored = await app.store.listScimTokens(acme.connection.id)
    expect(stored).toHaveLength(1)
    expect(JSON.stringify(stored)).not.toContain(token!)
    // It works: the SCIM API answers it.
    expect((await app.scim(token!, acme.connection.id, "GET", "/Users")).status).toBe(200)

    const again = await page(owner)
    expect(again.text).not.toContain(token!)
    expect(again.text).not.toContain("new-scim-token")

    expect(await submit(owner, `${at}/${stored[0]!.id}/revoke`)).toMatchObject({ status: 302, location: back("done", "scimTokenRevoked") })
    expect(await app.store.listScimTokens(acme.connection.id)).toHaveLength(0)
    expect((await app.scim(token!, acme.connection.id, "GET", "/Users")).status).toBe(401)
  })
})

describe("a SCIM token revoked 50 times at once", () => {
  it("is revoked once: every answer a redirect to the page, none a 500, the token refused after", async () => {
    const token = await app.scimToken(acme.connection)
    const [stored] = await app.store.listScimTokens(acme.connection.id)
    const at = `/forms/connections/${acme.connection.id}/scim-tokens/${stored!.id}/revoke`
    const { text } = await page(owner)
    const { action, csrfToken } = formOf(text, at)
    const answers = await Promise.all(Array.from({ length: 50 }, () => owner.request(new URL(action).pathname, { form: { csrfToken } })))
    const locations = answers.map((a) => a.headers.get("location"))
    expect(answers.map((a) => a.status).filter((s) => s !== 302)).toEqual([])
    expect(locations.filter((l) => l !== back("done", "scimTokenRevoked") && l !== back("error", "unknown-token"))).toEqual([])
    expect(locations).toContain(back("done", "scimTokenRevoked"))
    expect(await app.store.listScimTokens(acme.connection.id)).toHaveLength(0)
    expect((await app.scim(token, acme.connection.id, "GET", "/Users")).status).toBe(401)
  })
})

describe("two instances of the app, one store", () => {
  it("a token made on one instance's page is listed (never shown) and revoked on the other's, and refused by both", async () => {
    // What instances of one deployment share: the user adapter, the organizations and SSO stores, the step-up marks.
    const stepUp = { store: memoryRateLimitStore() }
    const one = await assembledApp({ config: { stepUp } })
    const two = await assembledApp({ peer: one, config: { stepUp } })
    try {
      const org = await one.tenant("pair", "pair.test")
      const here = await one.signedIn({ email: org.owner.email, password })
      const there = two.browser()
      for (const [name, cookie] of here.jar) there.jar.set(name, cookie)
      const path = `/auth/sso/organizations/${org.id}`
      const form = async (b: Browser, suffix: string) => {
        const { action, csrfToken } = formOf(await (await b.request(path, { headers: { accept: "text/html" } })).text(), suffix)
        return b.request(new URL(action).pathname, { form: { csrfToken } })
      }

      const made = await (await form(here, `/forms/connections/${org.connection.id}/scim-tokens`)).text()
      const token = /id="new-scim-token" readonly value="([^"]+)"/.exec(made)![1]!
      const [stored] = await one.store.listScimTokens(org.connection.id)
      expect((await two.scim(token, org.connection.id, "GET", "/Users")).status).toBe(200)

      const seen = await there.request(path, { headers: { accept: "text/html" } })
      const seenText = await seen.text()
      expect(seen.status).toBe(200)
      expect(seenText).toContain(`/scim-tokens/${stored!.id}/revoke`)
      expect(seenText).not.toContain(token)

      const revoked = await form(there, `/scim-tokens/${stored!.id}/revoke`)
      expect(revoked.headers.get("location")).toBe(`${two.authUrl}/sso/organizations/${org.id}?done=scimTokenRevoked`)
      expect((await one.scim(token, org.connection.id, "GET", "/Users")).status).toBe(401)
      expect((await two.scim(token, org.connection.id, "GET", "/Users")).status).toBe(401)
    } finally {
      await two.close()
      await one.close()
    }
  })
})

describe("anyone but an owner or admin", () => {
  for (const [who, browser] of [
    ["a member", () => member],
    ["a non-member", () => outsider],
  ] as const) {
    it(`${who} gets the 404 page a missing organization gets`, async () => {
      const theirs = await page(browser())
      const missing = await browser().request("/auth/sso/organizations/org-does-not-exist", { headers: { accept: "text/html" } })
      expect(theirs.status).toBe(404)
      expect(missing.status).toBe(404)
      expect(theirs.text).toContain(en["error.not-found"])
      expect(await missing.text()).toContain(en["error.not-found"])
      expect(theirs.text).not.toContain(acme.connection.name)
      expect(theirs.text).not.toContain("acme.test")
    })

    it(`${who}'s forms change nothing (404)`, async () => {
      const snapshot = async () => JSON.stringify([await app.store.listConnections(acme.id), await app.store.listDomains(acme.id), await app.store.listScimTokens(acme.connection.id)])
      const before = await snapshot()
      for (const [path, fields] of [
        ["domains", { domain: "stolen.test" }],
        ["saml", { name: "Backdoor", metadataXml: metadataOf(testIdp("https://idp.evil.example", wallClock)) }],
        [`connections/${acme.connection.id}/disable`, {}],
        [`connections/${acme.connection.id}/delete`, {}],
        [`connections/${acme.connection.id}/scim-tokens`, {}],
        [`domains/acme.test/delete`, {}],
      ] as const) {
        const answer = await post(browser(), path, fields)
        expect(answer.status, path).toBe(404)
        expect(answer.text).not.toMatch(/scim_|pc_scim/)
      }
      expect(await snapshot()).toBe(before)
    })
  }

  it("a form without the CSRF token, or posted from another site, is refused and changes nothing", async () => {
    const before = JSON.stringify(await app.store.listDomains(acme.id))
    const bare = await owner.request(`${pagePath()}/forms/domains`, { form: { domain: "csrf.test" } })
    const crossSite = await owner.request(`${pagePath()}/forms/domains`, { form: { csrfToken: await owner.csrfToken(), domain: "csrf.test" }, headers: { origin: "https://evil.example" } })
    expect(bare.status).toBe(403)
    expect(crossSite.status).toBe(403)
    expect(JSON.stringify(await app.store.listDomains(acme.id))).toBe(before)
  })

  it("signed out, is refused and changes nothing", async () => {
    const anonymous = app.browser()
    const answer = await anonymous.request(pagePath(), { headers: { accept: "text/html" } })
    const text = await answer.text()
    expect([302, 401]).toContain(answer.status)
    expect(text).not.toContain(acme.connection.name)
    const before = (await app.store.listDomains(acme.id)).length
    const posted = await anonymous.request(`${pagePath()}/forms/domains`, { form: { csrfToken: await anonymous.csrfToken(), domain: "anon.test" } })
    expect(posted.status).toBeLessThan(500)
    expect(posted.status).not.toBe(200)
    expect((await app.store.listDomains(acme.id)).length).toBe(before)
  })
})

describe("a stale session", () => {
  let stale: App
  let tenant: Tenant
  let b: Browser

  beforeAll(async () => {
    stale = await assembledApp({ config: { stepUp: { maxAge: 1 } } })
    tenant = await stale.tenant("stale", "stale.test")
    b = await stale.signedIn({ email: tenant.owner.email, password })
    await new Promise((resolve) => setTimeout(resolve, 1500))
  })
  afterAll(() => stale.close())

  it("is sent to re-authenticate (and back to the page) for the forms that open or close a way in, changing nothing", async () => {
    const pageUrl = `${stale.authUrl}/sso/organizations/${tenant.id}`
    const reauth = `${stale.authUrl}/reauthenticate?callbackUrl=${encodeURIComponent(pageUrl)}`
    const snapshot = async () => JSON.stringify([await stale.store.listConnections(tenant.id), await stale.store.listDomains(tenant.id), await stale.store.listScimTokens(tenant.connection.id)])
    const before = await snapshot()
    const idp = testIdp("https://idp.other.example", wallClock)
    for (const [path, fields] of [
      ["saml", { name: "New", metadataXml: metadataOf(idp) }],
      ["oidc", { name: "New", issuer: "https://login.example.com", clientId: "x", clientSecret: "y" }],
      [`connections/${tenant.connection.id}/disable`, {}],
      [`connections/${tenant.connection.id}/delete`, {}],
      [`connections/${tenant.connection.id}/scim-tokens`, {}],
      ["domains/stale.test/require", {}],
      ["domains/stale.test/delete", {}],
    ] as const) {
      const response = await b.request(`/auth/sso/organizations/${tenant.id}/forms/${path}`, { form: { csrfToken: await b.csrfToken(), ...fields } })
      expect(response.status, path).toBe(302)
      expect(response.headers.get("location"), path).toBe(reauth)
    }
    expect(await snapshot()).toBe(before)
    // The page itself asks for no re-authentication.
    expect((await b.request(`/auth/sso/organizations/${tenant.id}`, { headers: { accept: "text/html" } })).status).toBe(200)
  })
})

describe("the store down", () => {
  it("is a clear 503 for the page and its forms, never a stack, nothing half-written", async () => {
    const before = JSON.stringify(await app.store.listDomains(acme.id))
    const { text } = await page(owner)
    const { action, csrfToken } = formOf(text, "/forms/domains")
    mode = "down"
    try {
      const shown = await page(owner)
      const posted = await owner.request(new URL(action).pathname, { form: { csrfToken, domain: "outage.test" } })
      const postedText = await posted.text()
      expect(shown.status).toBe(503)
      expect(posted.status).toBe(503)
      for (const body of [shown.text, postedText]) {
        expect(noStack(body)).toBe(true)
        expect(body).not.toContain("hunter2")
      }
    } finally {
      mode = "up"
    }
    expect(JSON.stringify(await app.store.listDomains(acme.id))).toBe(before)
  })
})
