/**
 * The attacker at the management routes and server functions: a plain member, a non-member
 * and another organization's admin get the 404 of a missing organization and change nothing;
 * a stale session cannot open a way in without step-up; the server is never made to fetch an
 * internal address; secrets never come back in an answer or a log line.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser } from "../../../core/test/helpers.js"
import { assembledApp, noStack, type App, type Tenant } from "./app.js"

/** Every outbound fetch the app makes (not the tests' own requests to it). */
const outbound: string[] = []
const realFetch = globalThis.fetch
let app: App
let acme: Tenant
let globex: Tenant
let owner: Browser
let member: Browser
let stranger: Browser
let otherAdmin: Browser
let tokenId: string

beforeAll(async () => {
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (app && url.origin === app.server.origin) return realFetch(input, init)
    outbound.push(url.href)
    // An IdP that streams without end: 64 KiB chunks, forever (until the reader gives up).
    if (url.hostname === "endless.idp.example") {
      let sent = 0
      const body = new ReadableStream<Uint8Array>({ pull: (c) => void (sent++ < 100_000 ? c.enqueue(new Uint8Array(65_536).fill(32)) : c.close()) })
      return new Response(body, { status: 200, headers: { "content-type": "application/json" } })
    }
    // Nothing leaves the machine: an internal address answers as an internal service would.
    return new Response(JSON.stringify({ issuer: "internal-secret-issuer", internal: "metadata-token-AKIA" }), { status: 200, headers: { "content-type": "application/json" } })
  }) as typeof fetch
  app = await assembledApp()
  acme = await app.tenant("acme", "acme.test")
  globex = await app.tenant("globex", "globex.test")
  const password = "correct horse battery staple"
  owner = await app.signedIn({ email: acme.owner.email, password })
  otherAdmin = await app.signedIn({ email: globex.owner.email, password })
  const m = await app.passwordUser("member@acme-people.example")
  await app.orgStore.addMember({ organizationId: acme.id, userId: m.id, role: "member", createdAt: new Date() })
  member = await app.signedIn(m)
  stranger = await app.signedIn(await app.passwordUser("stranger@nowhere.example"))
  tokenId = "tok-acme"
  await app.store.addScimToken({ id: tokenId, connectionId: acme.connection.id, organizationId: acme.id, hash: "x".repeat(64), createdAt: new Date(), lastUsedAt: null })
})
afterAll(async () => {
  globalThis.fetch = realFetch
  await app.close()
})

async function acmeState() {
  const connections = await app.store.listConnections(acme.id)
  const domains = await app.store.listDomains(acme.id)
  const tokens = await app.store.listScimTokens(acme.connection.id)
  return JSON.stringify({ connections, domains, tokens: tokens.map((t) => t.id) })
}

const c = () => acme.connection.id
const ROUTES: Array<[string, "GET" | "POST", () => string, Record<string, unknown>?]> = [
  ["list connections", "GET", () => `organizations/${acme.id}/connections`],
  ["create a connection", "POST", () => `organizations/${acme.id}/connections`, { kind: "oidc", name: "Evil", oidc: { issuer: "https://evil.example", clientId: "x" } }],
  ["change a connection", "POST", () => `organizations/${acme.id}/connections/${c()}`, { name: "pwned", enabled: false }],
  ["delete a connection", "POST", () => `organizations/${acme.id}/connections/${c()}/delete`],
  ["test a connection", "POST", () => `organizations/${acme.id}/connections/${c()}/test`],
  ["list SCIM tokens", "GET", () => `organizations/${acme.id}/connections/${c()}/scim-tokens`],
  ["create a SCIM token", "POST", () => `organizations/${acme.id}/connections/${c()}/scim-tokens`],
  ["revoke a SCIM token", "POST", () => `organizations/${acme.id}/connections/${c()}/scim-tokens/${tokenId}/revoke`],
  ["list domains", "GET", () => `organizations/${acme.id}/domains`],
  ["claim a domain", "POST", () => `organizations/${acme.id}/domains`, { domain: "grab.test" }],
  ["verify a domain", "POST", () => `organizations/${acme.id}/domains/acme.test/verify`],
  ["require SSO", "POST", () => `organizations/${acme.id}/domains/acme.test/policy`, { requireSso: true }],
  ["remove a domain", "POST", () => `organizations/${acme.id}/domains/acme.test/delete`],
]

describe("management routes called by someone who does not manage the organization", () => {
  for (const [who, browser] of [["a plain member", () => member], ["a non-member", () => stranger], ["another organization's owner", () => otherAdmin]] as const) {
    for (const [what, method, path, body] of ROUTES) {
      it(`${who} cannot ${what}: 404, nothing changed`, async () => {
        const before = await acmeState()
        const answer = await app.manage(browser(), method, path(), body)
        expect(answer.status).toBe(404)
        expect(noStack(answer.text)).toBe(true)
        expect(await acmeState()).toBe(before)
      })
    }
  }

  it("another organization's owner cannot reach acme's connection through their own organization's path", async () => {
    const before = await acmeState()
    for (const [method, path, body] of [
      ["POST", `organizations/${globex.id}/connections/${c()}/delete`, {}],
      ["POST", `organizations/${globex.id}/connections/${c()}`, { name: "pwned" }],
      ["POST", `organizations/${globex.id}/connections/${c()}/scim-tokens`, {}],
      ["GET", `organizations/${globex.id}/connections/${c()}/scim-tokens`, {}],
      ["POST", `organizations/${globex.id}/connections/${globex.connection.id}/scim-tokens/${tokenId}/revoke`, {}],
      ["POST", `organizations/${globex.id}/domains/${"acme.test"}/policy`, { connectionId: c() }],
    ] as const) {
      const answer = await app.manage(otherAdmin, method, path, body)
      expect(answer.status, `${method} ${path}`).toBeGreaterThanOrEqual(400)
      expect(answer.status).toBeLessThan(500)
    }
    // Removing a domain the organization never claimed answers as done and removes nothing of acme's.
    await app.manage(otherAdmin, "POST", `organizations/${globex.id}/domains/acme.test/delete`)
    expect(await acmeState()).toBe(before)
    expect((await app.store.getDomain("acme.test"))?.organizationId).toBe(acme.id)
  })

  it("a signed-out caller gets 401 and changes nothing", async () => {
    const before = await acmeState()
    const answer = await app.manage(app.browser(), "POST", `organizations/${acme.id}/connections/${c()}/delete`)
    expect([401, 403]).toContain(answer.status)
    expect(await acmeState()).toBe(before)
  })
})

describe("server functions called by someone who does not manage the organization", () => {
  for (const [who, browser] of [["a plain member", () => member], ["a non-member", () => stranger], ["another organization's owner", () => otherAdmin]] as const) {
    it(`${who} gets not-found from every function, nothing changed`, async () => {
      const before = await acmeState()
      const fns = await app.serverFunctions(browser())
      const calls: Array<[string, unknown[]]> = [
        ["listConnections", [acme.id]],
        ["createConnection", [acme.id, { kind: "oidc", name: "Evil", oidc: { issuer: "https://evil.example", clientId: "x" } }]],
        ["updateConnection", [acme.id, c(), { enabled: false }]],
        ["deleteConnection", [acme.id, c()]],
        ["testConnection", [acme.id, c()]],
        ["createScimToken", [acme.id, c()]],
        ["revokeScimToken", [acme.id, c(), tokenId]],
        ["claimDomain", [acme.id, "grab.test"]],
        ["setDomainPolicy", [acme.id, "acme.test", { requireSso: true }]],
        ["removeDomain", [acme.id, "acme.test"]],
      ]
      for (const [name, args] of calls) {
        const error = (await fns[name]!(...args).then(() => null, (e: unknown) => e)) as { status?: number; code?: string } | null
        expect(error, name).not.toBeNull()
        expect(error?.status ?? 404, name).toBe(404)
      }
      expect(await acmeState()).toBe(before)
    })
  }
})

describe("secrets never in an answer or a log line", () => {
  it("an OIDC client secret and the SP private key are not shown back", async () => {
    const secret = "client-secret-VALUE-0123456789"
    const created = await app.manage(owner, "POST", `organizations/${acme.id}/connections`, { kind: "oidc", name: "Acme OIDC", oidc: { issuer: "https://login.acme.example", clientId: "acme-app", clientSecret: secret } })
    expect(created.status).toBe(201)
    expect(created.text).not.toContain(secret)
    expect(created.body.oidc.hasClientSecret).toBe(true)
    const listed = await app.manage(owner, "GET", `organizations/${acme.id}/connections`)
    expect(listed.status).toBe(200)
    expect(listed.text).not.toContain(secret)
    expect(listed.text).not.toMatch(/PRIVATE KEY|privateKey/)
    const updated = await app.manage(owner, "POST", `organizations/${acme.id}/connections/${created.body.id}`, { name: "Renamed" })
    expect(updated.text).not.toContain(secret)
    const token = await app.manage(owner, "POST", `organizations/${acme.id}/connections/${c()}/scim-tokens`)
    expect(token.status).toBe(201)
    const tokens = await app.manage(owner, "GET", `organizations/${acme.id}/connections/${c()}/scim-tokens`)
    expect(tokens.text).not.toContain(token.body.token)
    expect(tokens.text).not.toContain("x".repeat(64))
    const logged = app.logged() + JSON.stringify(app.audit)
    expect(logged).not.toContain(secret)
    expect(logged).not.toContain(token.body.token)
    expect(logged).not.toMatch(/PRIVATE KEY/)
  })
})

describe("SSRF through the URLs the server fetches", () => {
  const internal = [
    "https://169.254.169.254/latest/meta-data/",
    "https://10.0.0.7/admin",
    "https://192.168.1.1/",
    "https://172.16.5.4/",
    "https://[fd00::1]/",
    "https://[::ffff:a9fe:a9fe]/",
    "https://0.0.0.0/",
    "https://100.64.0.1/",
  ]
  for (const url of internal) {
    it(`a SAML metadataUrl of ${url} is refused before any request`, async () => {
      outbound.length = 0
      const answer = await app.manage(owner, "POST", `organizations/${acme.id}/connections`, { kind: "saml", name: "Internal", saml: { metadataUrl: url } })
      expect(answer.status).toBe(422)
      expect(outbound).toEqual([])
    })

    it(`an OIDC issuer of ${url} is refused, so no test or sign-in fetches it`, async () => {
      outbound.length = 0
      const answer = await app.manage(owner, "POST", `organizations/${acme.id}/connections`, { kind: "oidc", name: "Internal", oidc: { issuer: url, clientId: "x" } })
      expect(answer.status).toBe(422)
      expect(outbound).toEqual([])
    })
  }

  for (const url of ["file:///etc/passwd", "http://evil.example/metadata", "gopher://127.0.0.1:6379/_INFO", "ftp://evil.example/x", "data:text/xml,<x/>"]) {
    it(`${url} is refused as a metadata URL and as an issuer`, async () => {
      outbound.length = 0
      const saml = await app.manage(owner, "POST", `organizations/${acme.id}/connections`, { kind: "saml", name: "Bad", saml: { metadataUrl: url } })
      const oidc = await app.manage(owner, "POST", `organizations/${acme.id}/connections`, { kind: "oidc", name: "Bad", oidc: { issuer: url, clientId: "x" } })
      expect(saml.status).toBe(422)
      expect(oidc.status).toBe(422)
      expect(outbound).toEqual([])
    })
  }

  it("testConnection of a stored connection naming an internal issuer fetches nothing and leaks nothing", async () => {
    // A connection stored before the check existed (or written by another tool).
    const legacy = { ...globex.connection, id: "conn-acme-legacy", organizationId: acme.id, kind: "oidc" as const, oidc: { issuer: "https://10.1.2.3", clientId: "x" } }
    delete (legacy as { saml?: unknown }).saml
    await app.store.createConnection(legacy)
    outbound.length = 0
    const answer = await app.manage(owner, "POST", `organizations/${acme.id}/connections/${legacy.id}/test`)
    expect(answer.status).toBeLessThan(500)
    expect(outbound).toEqual([])
    expect(answer.text).not.toContain("internal-secret-issuer")
  })
})

describe("an IdP answering testConnection without end", () => {
  it("is read no further than a discovery document can be: ok false, at once, nothing of it shown", async () => {
    const endless = { ...globex.connection, id: "conn-acme-endless", organizationId: acme.id, kind: "oidc" as const, oidc: { issuer: "https://endless.idp.example", clientId: "x" } }
    delete (endless as { saml?: unknown }).saml
    await app.store.createConnection(endless)
    const started = Date.now()
    const answer = await app.manage(owner, "POST", `organizations/${acme.id}/connections/${endless.id}/test`)
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ ok: false })
    expect(Date.now() - started).toBeLessThan(5_000)
  })
})

describe("hostile IdP metadata given inline", () => {
  const entity = `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.x.example"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.x.example/sso"/></md:IDPSSODescriptor></md:EntityDescriptor>`
  for (const [what, xml] of [
    ["an external entity (XXE)", `<?xml version="1.0"?><!DOCTYPE md [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${entity.replace("https://idp.x.example/sso", "&xxe;")}`],
    ["a billion laughs", `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>${entity.replace("idp.x.example\"", "&d;\"")}`],
    ["not XML at all", "{\"entityID\": 1}"],
    ["metadata without a signing certificate", entity],
  ] as const) {
    it(`${what} is a 4xx, no connection made`, async () => {
      const before = (await app.store.listConnections(acme.id)).length
      const answer = await app.manage(owner, "POST", `organizations/${acme.id}/connections`, { kind: "saml", name: "Inline", saml: { metadataXml: xml } })
      expect(answer.status).toBeGreaterThanOrEqual(400)
      expect(answer.status).toBeLessThan(500)
      expect(noStack(answer.text)).toBe(true)
      expect(answer.text).not.toContain("root:")
      expect((await app.store.listConnections(acme.id)).length).toBe(before)
    })
  }

  it("a 5 MB JSON body is refused with a 4xx", async () => {
    const answer = await app.manage(owner, "POST", `organizations/${acme.id}/connections`, { kind: "saml", name: "Big", saml: { metadataXml: "x".repeat(5_000_000) } })
    expect(answer.status).toBeGreaterThanOrEqual(400)
    expect(answer.status).toBeLessThan(500)
  })
})
