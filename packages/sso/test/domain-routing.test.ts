/**
 * Domains (issue 33): the sign-in page sends `ada@acme.com` to Acme's connection once Acme
 * verified `acme.com`, and a domain can require SSO. `ssoForEmail` against the memory store.
 */
import { beforeEach, describe, expect, it } from "vitest"
import { ssoForEmail } from "@portcullis/sso"
import { memorySsoStore } from "@portcullis/sso/memory"
import type { Connection, SsoStore } from "@portcullis/sso"

let clock = Date.parse("2026-01-01T00:00:00Z")
const at = () => new Date((clock += 1000))

function connection(id: string, organizationId: string, enabled = true): Connection {
  return { id, organizationId, kind: "oidc", name: id, enabled, oidc: { issuer: "https://idp.test", clientId: id }, roleRules: [], defaultRole: "member", createdAt: at() }
}

async function claim(store: SsoStore, domain: string, organizationId: string, options: { verified?: boolean; requireSso?: boolean; connectionId?: string | null } = {}) {
  await store.claimDomain({ domain, organizationId, token: "t".repeat(43), verifiedAt: null, requireSso: false, connectionId: null, createdAt: at() })
  if (options.verified !== false) await store.verifyDomain(domain, organizationId, at())
  await store.updateDomain(domain, organizationId, { requireSso: options.requireSso ?? false, connectionId: options.connectionId ?? null })
}

describe("ssoForEmail sends an address to its organization's connection", () => {
  let store: SsoStore
  beforeEach(async () => {
    store = memorySsoStore()
    await store.createConnection(connection("acme-okta", "acme"))
    await store.createConnection(connection("acme-entra", "acme"))
    await store.createConnection(connection("globex-saml", "globex"))
  })

  it("routes to the organization's first enabled connection when the domain names none", async () => {
    await claim(store, "acme.com", "acme")
    const sso = await ssoForEmail(store, "ada@acme.com")
    expect(sso?.domain.organizationId).toBe("acme")
    expect(sso?.connection?.id).toBe("acme-okta")
  })

  it("routes to the connection the domain names", async () => {
    await claim(store, "acme.com", "acme", { connectionId: "acme-entra" })
    expect((await ssoForEmail(store, "ada@acme.com"))?.connection?.id).toBe("acme-entra")
  })

  it("matches the address's domain in any case and Unicode form", async () => {
    await claim(store, "xn--bcher-kva.de", "acme")
    expect((await ssoForEmail(store, "Ada@BÜCHER.de"))?.connection?.id).toBe("acme-okta")
    await claim(store, "acme.com", "acme")
    expect((await ssoForEmail(store, "ADA@ACME.COM"))?.domain.domain).toBe("acme.com")
  })

  it("falls back to an enabled connection when the named one is disabled", async () => {
    await store.updateConnection({ ...(await store.getConnection("acme-entra"))!, enabled: false })
    await claim(store, "acme.com", "acme", { connectionId: "acme-entra" })
    expect((await ssoForEmail(store, "ada@acme.com"))?.connection?.id).toBe("acme-okta")
  })

  it("answers the claim without a connection when the organization has none enabled", async () => {
    for (const id of ["acme-okta", "acme-entra"]) await store.updateConnection({ ...(await store.getConnection(id))!, enabled: false })
    await claim(store, "acme.com", "acme", { requireSso: true })
    const sso = await ssoForEmail(store, "ada@acme.com")
    expect(sso?.connection).toBeNull()
    expect(sso?.domain.requireSso).toBe(true)
  })

  it("says when the domain requires SSO", async () => {
    await claim(store, "acme.com", "acme", { requireSso: true })
    await claim(store, "globex.com", "globex")
    expect((await ssoForEmail(store, "ada@acme.com"))?.domain.requireSso).toBe(true)
    expect((await ssoForEmail(store, "hank@globex.com"))?.domain.requireSso).toBe(false)
  })
})

describe("ssoForEmail never routes an address it should not", () => {
  let store: SsoStore
  beforeEach(async () => {
    store = memorySsoStore()
    await store.createConnection(connection("acme-okta", "acme"))
    await store.createConnection(connection("evil-idp", "evil"))
  })

  it("not by a pending claim, however many organizations made one", async () => {
    await claim(store, "acme.com", "evil", { verified: false, requireSso: true, connectionId: "evil-idp" })
    expect(await ssoForEmail(store, "ada@acme.com")).toBeNull()
  })

  it("not to another organization's connection a claim points at", async () => {
    await claim(store, "acme.com", "acme", { connectionId: "evil-idp" })
    expect((await ssoForEmail(store, "ada@acme.com"))?.connection?.id).toBe("acme-okta")
  })

  it("not a subdomain, nor a domain that only starts like the claimed one", async () => {
    await claim(store, "acme.com", "acme")
    for (const email of ["ada@eu.acme.com", "ada@acme.com.evil", "ada@evilacme.com", "ada@аcme.com" /* Cyrillic а */]) {
      expect(await ssoForEmail(store, email)).toBeNull()
    }
  })

  it("not an address with no claimable domain, and without asking the store", async () => {
    const asked: string[] = []
    const spy: SsoStore = { ...store, getDomain: async (...args) => (asked.push(args[0]), store.getDomain(...args)) }
    for (const email of ["ada", "ada@", "@acme.com", "ada@localhost", "ada@[127.0.0.1]", "ada@acme.com/x"]) {
      expect(await ssoForEmail(spy, email)).toBeNull()
    }
    expect(asked).toEqual([])
  })

  it("after the domain is removed", async () => {
    await claim(store, "acme.com", "acme")
    await store.removeDomain("acme.com", "acme")
    expect(await ssoForEmail(store, "ada@acme.com")).toBeNull()
  })
})

describe("ssoForEmail when the store fails", () => {
  it("throws the store's error instead of answering 'no SSO' (which would let a password through)", async () => {
    const store = memorySsoStore()
    const outage = new Error("connection refused")
    const down: SsoStore = { ...store, getDomain: () => Promise.reject(outage) }
    await expect(ssoForEmail(down, "ada@acme.com")).rejects.toBe(outage)
  })

  it("throws when the connection cannot be read either", async () => {
    const store = memorySsoStore()
    await store.createConnection(connection("acme-okta", "acme"))
    await claim(store, "acme.com", "acme", { connectionId: "acme-okta", requireSso: true })
    const outage = new Error("timeout")
    const half: SsoStore = { ...store, getConnection: () => Promise.reject(outage), listConnections: () => Promise.reject(outage) }
    await expect(ssoForEmail(half, "ada@acme.com")).rejects.toBe(outage)
  })
})

describe("ssoForEmail under 50 lookups at once", () => {
  it("answers each address for its own domain", async () => {
    const store = memorySsoStore()
    for (let i = 0; i < 10; i++) {
      await store.createConnection(connection(`c${i}`, `org${i}`))
      await claim(store, `org${i}.test`, `org${i}`)
    }
    const emails = Array.from({ length: 50 }, (_, i) => `user${i}@org${i % 12}.test`)
    const results = await Promise.all(emails.map((email) => ssoForEmail(store, email)))
    results.forEach((sso, i) => {
      const org = i % 12
      if (org < 10) expect(sso?.connection?.id).toBe(`c${org}`)
      else expect(sso).toBeNull()
    })
  })
})
