/**
 * Faults on the way in: the SSO store failing when the IdP's response arrives (a 503 page, no
 * user, no membership, nothing half-written), and an IdP that does not answer when a sign-in
 * starts (a clear error page, never a 500 with a stack). The IdP's pages are walked by the IdP
 * agent, the app's by a fetch-and-cookie-jar browser.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { SsoStore } from "@portcullis/sso"
import { memorySsoStore } from "@portcullis/sso/memory"
import type { OrganizationStore } from "@portcullis/organizations"
import { memoryOrganizationStore } from "@portcullis/organizations/memory"
import type { Browser } from "../../../core/test/helpers.js"
import { startDnsServer, type DnsServer } from "../fixtures/dns-server.js"
import { loginThroughIdp, simpleSamlPhpAvailable } from "../fixtures/simplesamlphp.js"
import { throughProvider } from "../../../core/test/oauth/real-op.js"
import { ownerOf, startSsoApp, type Owner, type SsoApp } from "./app.js"
import { listenOidcIdp, type OidcIdp } from "./oidc-idp.js"
import { samlOrganization, type SamlOrganization } from "./saml.js"

/**
 * The store, with `failing` naming the methods that reject (every one with "*"), as a database
 * that went away, and `hanging` those that never answer, as one that stopped responding.
 */
function breakableStore<T extends object>(store: T) {
  const failing = new Set<string>()
  const hanging = new Set<string>()
  const wrapped = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver)
      if (typeof value !== "function") return value
      return (...args: unknown[]) => {
        if (failing.has("*") || failing.has(String(name))) return Promise.reject(new Error(`${String(name)}: connection refused`))
        if (hanging.has(String(name))) return new Promise(() => {})
        return value.apply(target, args)
      }
    },
  })
  return { store: wrapped, failing, hanging }
}

/** What a browser's navigation accepts. */
const HTML = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

/** What the sign-in page's "Continue with …" posts: the address and the CSRF token; the IdP's URL it redirects to. */
async function startSso(browser: Browser, email: string): Promise<Response> {
  const csrfToken = await browser.csrfToken()
  return browser.request("/auth/sso/start", { form: { csrfToken, email, callbackUrl: `${browser.origin}/dashboard` }, headers: { accept: HTML } })
}

/** An error page a person can read: HTML, no stack trace, no file path. */
async function expectCleanPage(response: Response, status: number): Promise<string> {
  const html = await response.text()
  expect(response.status, html.slice(0, 500)).toBe(status)
  expect(response.headers.get("content-type")).toMatch(/text\/html/)
  expect(html).not.toMatch(/\bat .+\.(ts|js):\d+|node_modules|\/work\/|Error: /)
  return html
}

const gate = simpleSamlPhpAvailable()

gate.describe("the SSO store failing at the assertion consumer service", () => {
  let dns: DnsServer
  let app: SsoApp
  let owner: Owner
  let acme: SamlOrganization
  let breakable: ReturnType<typeof breakableStore<SsoStore>>
  let breakableOrgs: ReturnType<typeof breakableStore<OrganizationStore>>

  beforeAll(async () => {
    dns = await startDnsServer()
    breakable = breakableStore(memorySsoStore())
    breakableOrgs = breakableStore(memoryOrganizationStore())
    // Core bounds every call of a wrapped store by adapterTimeout: a store that hangs is an outage too.
    app = await startSsoApp({ dns, store: breakable.store, orgStore: breakableOrgs.store, config: { adapterTimeout: 1_000 } })
    owner = await ownerOf(app, "olivia@owner.test")
    acme = await samlOrganization(app, owner, dns, { name: "Acme", domain: "acme.test" })
  }, 60_000)
  afterAll(async () => {
    await acme?.idp.stop()
    await app?.close()
    await dns?.stop()
  })

  /** A sign-in started at the app and completed at the IdP: the form the IdP's page would post. */
  async function responseFromIdp(username: string) {
    const browser = app.browser()
    const started = await startSso(browser, `${username}@acme.test`)
    expect(started.status).toBe(302)
    const posted = await loginThroughIdp(started.headers.get("location")!, username, `${username}-password`)
    return { browser, posted }
  }

  /** The IdP's post to the ACS, then — as the browser does — its redirect to the same-site finish step. */
  async function post(browser: Browser, posted: { SAMLResponse: string; RelayState: string | null; action: string }) {
    const answered = await browser.request(new URL(posted.action).pathname, { headers: { accept: HTML }, form: { SAMLResponse: posted.SAMLResponse, ...(posted.RelayState !== null && { RelayState: posted.RelayState }) } })
    const next = answered.status === 302 ? new URL(answered.headers.get("location")!, app.origin) : null
    return next?.pathname.endsWith("/finish") ? browser.request(next.pathname + next.search, { headers: { accept: HTML } }) : answered
  }

  // Failing before core makes the session: nothing is written at all.
  for (const failing of ["*", "getConnection", "take", "useOnce", "getDomain"]) {
    it(`with ${failing === "*" ? "every call" : failing} rejecting: a 503 page, no user, no membership, no session`, async () => {
      const { browser, posted } = await responseFromIdp("bob")
      breakable.failing.add(failing)
      try {
        await expectCleanPage(await post(browser, posted), 503)
      } finally {
        breakable.failing.clear()
      }
      expect(await browser.session()).toBeNull()
      expect(await app.adapter.getUserByEmail!("bob@acme.test")).toBeNull()
      expect(await app.orgStore.listMembers(acme.organizationId)).toHaveLength(1)
      expect(app.logs.some((line) => line.text.includes(posted.SAMLResponse.slice(0, 40)))).toBe(false)
    }, 60_000)
  }

  // Failing after core made the session (recording it for SCIM): the session and the membership are undone.
  it("with recordSession rejecting: a 503 page, the session revoked, no membership", async () => {
    const { browser, posted } = await responseFromIdp("alice")
    breakable.failing.add("recordSession")
    try {
      await expectCleanPage(await post(browser, posted), 503)
    } finally {
      breakable.failing.clear()
    }
    expect(await browser.session()).toBeNull()
    expect(await app.orgStore.listMembers(acme.organizationId)).toHaveLength(1)
    // Core made the user (its adapter has no transaction with ours): a user of no organization, with no session.
    const alice = await app.adapter.getUserByEmail!("alice@acme.test")
    expect(alice).not.toBeNull()
    expect(await app.orgStore.listOrganizations(alice!.id)).toEqual([])
    expect(app.logs.some((line) => line.level === "warn" && line.text.includes("sso-sign-in-undone"))).toBe(true)
  }, 60_000)

  for (const failing of ["addMember", "setActiveOrganization"]) {
    it(`with the organizations store's ${failing} rejecting: a 503 page, the session revoked, no membership`, async () => {
      const { browser, posted } = await responseFromIdp("alice")
      breakableOrgs.failing.add(failing)
      try {
        await expectCleanPage(await post(browser, posted), 503)
      } finally {
        breakableOrgs.failing.clear()
      }
      expect(await browser.session()).toBeNull()
      const alice = await app.adapter.getUserByEmail!("alice@acme.test")
      expect(alice).not.toBeNull()
    expect(await app.orgStore.listOrganizations(alice!.id)).toEqual([])
    }, 60_000)
  }

  it("with the store hanging at the ACS: a 503 page within the timeout, nothing written", async () => {
    const { browser, posted } = await responseFromIdp("bob")
    breakable.hanging.add("useOnce")
    const started = Date.now()
    try {
      await expectCleanPage(await post(browser, posted), 503)
    } finally {
      breakable.hanging.clear()
    }
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(await browser.session()).toBeNull()
    expect(await app.adapter.getUserByEmail!("bob@acme.test")).toBeNull()
  }, 60_000)

  it("with the store down at the sign-in page's Continue: core's outage page, never the password form (which would skip required SSO)", async () => {
    const browser = app.browser()
    const csrfToken = await browser.csrfToken()
    breakable.failing.add("*")
    try {
      const response = await browser.request("/auth/signin", { form: { csrfToken, email: "bob@acme.test" }, headers: { accept: HTML } })
      expect(response.status).toBe(302)
      const location = new URL(response.headers.get("location")!)
      expect(location.pathname).toBe("/auth/error")
      expect(location.searchParams.get("error")).toBe("ServiceUnavailable")
      const page = await browser.request(location.pathname + location.search, { headers: { accept: HTML } })
      expect(page.status).toBe(503)
      expect(await page.text()).not.toMatch(/type="password"/)
    } finally {
      breakable.failing.clear()
    }
  })

  it("once the store is back, a new sign-in works", async () => {
    const { browser, posted } = await responseFromIdp("alice")
    const response = await post(browser, posted)
    expect(response.status).toBe(302)
    expect(new URL(response.headers.get("location")!).pathname).toBe("/dashboard")
    expect((await browser.session()).organizations.active).toMatchObject({ id: acme.organizationId, role: "admin" })
  }, 60_000)
})

describe("an IdP that does not answer", () => {
  let dns: DnsServer
  let app: SsoApp
  let owner: Owner
  let organizationId: string

  beforeAll(async () => {
    dns = await startDnsServer()
    app = await startSsoApp({ dns })
    owner = await ownerOf(app, "olivia@owner.test")
    organizationId = await owner.createOrganization("Down")
    await owner.verifyDomain(organizationId, "down.test", dns)
    // Nothing listens on port 1: the OIDC IdP's discovery fails when a sign-in starts.
    await (await owner.sso()).createConnection(organizationId, { kind: "oidc", name: "Down IdP", oidc: { issuer: "http://127.0.0.1:1", clientId: "app", clientSecret: "secret" } })
  }, 60_000)
  afterAll(async () => {
    await app?.close()
    await dns?.stop()
  })

  it("at the start of an OIDC sign-in: a clear error page, not a 500 with a stack, and a warning logged", async () => {
    const browser = app.browser()
    const response = await startSso(browser, "ada@down.test")
    const html = await expectCleanPage(response, 502)
    expect(html).toContain("identity provider could not be reached")
    const warned = app.logs.filter((line) => line.level === "warn" && line.text.includes("sso-idp-unavailable"))
    expect(warned).toHaveLength(1)
    expect(warned[0]!.text).not.toContain("secret")
    expect(app.logs.filter((line) => line.level === "error")).toEqual([])
    expect(await browser.session()).toBeNull()
  })

  it("when a SAML connection is made from a metadata URL that does not answer: a clear refusal", async () => {
    const sso = await owner.sso()
    await expect(sso.createConnection(organizationId, { kind: "saml", name: "Nowhere", saml: { metadataUrl: "http://127.0.0.1:1/metadata" } })).rejects.toMatchObject({ status: expect.any(Number) })
  })
})

describe("an OIDC IdP that goes away between the login and the callback", () => {
  let dns: DnsServer
  let app: SsoApp
  let idp: OidcIdp

  beforeAll(async () => {
    dns = await startDnsServer()
    app = await startSsoApp({ dns })
    // core's throughProvider types the login "demo" at the dev login page.
    idp = await listenOidcIdp([{ login: "demo", email: "ada@beta.test", name: "Ada", groups: [] }])
    const owner = await ownerOf(app, "olivia@owner.test")
    const organizationId = await owner.createOrganization("Beta")
    await owner.verifyDomain(organizationId, "beta.test", dns)
    const connection = await (await owner.sso()).createConnection(organizationId, { kind: "oidc", name: "Beta Login", oidc: { issuer: idp.issuer, clientId: "beta", clientSecret: "beta's client secret" } })
    await idp.register({ clientId: "beta", clientSecret: "beta's client secret", redirectUri: connection.oidc!.redirectUri })
  }, 60_000)
  afterAll(async () => {
    await idp?.close()
    await app?.close()
    await dns?.stop()
  })

  it("the callback (its token request failing) is a clear error page, not a 500 with a stack", async () => {
    const browser = app.browser()
    const started = await startSso(browser, "ada@beta.test")
    expect(started.status).toBe(302)
    const callback = await throughProvider(new URL(started.headers.get("location")!), app.origin)
    await idp.close()
    const response = await browser.request(callback.pathname + callback.search, { headers: { accept: HTML } })
    const html = await expectCleanPage(response, response.status)
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(response.status).not.toBe(500)
    // The extension's sentence, not core's technical one (the client id, a link to Auth.js's error list).
    expect(html).toContain("could not be completed")
    expect(html).not.toContain("errors.authjs.dev")
    expect(await browser.session()).toBeNull()
    expect(await app.adapter.getUserByEmail!("ada@beta.test")).toBeNull()
  })
})
