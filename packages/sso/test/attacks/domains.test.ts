/**
 * The attacker as an organization admin after someone else's email domain: claiming a domain
 * another organization verified, verifying with another claim's TXT record, a pending claim
 * routing sign-ins, subdomains and IDN look-alikes. Claims are made over HTTP; DNS is a
 * table of published TXT records.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser } from "../../../core/test/helpers.js"
import { verificationRecord } from "../../src/domains.js"
import { assembledApp, type App, type Tenant } from "./app.js"

let app: App
let acme: Tenant
let evil: Tenant
let evilAdmin: Browser
let acmeOwner: Browser

beforeAll(async () => {
  app = await assembledApp()
  acme = await app.tenant("acme", "acme.test")
  evil = await app.tenant("evil", "evil.test")
  evilAdmin = await app.signedIn({ email: evil.owner.email, password: "correct horse battery staple" })
  acmeOwner = await app.signedIn({ email: acme.owner.email, password: "correct horse battery staple" })
})
afterAll(() => app.close())

const claim = (b: Browser, org: string, domain: string) => app.manage(b, "POST", `organizations/${org}/domains`, { domain })
const verify = (b: Browser, org: string, domain: string) => app.manage(b, "POST", `organizations/${org}/domains/${encodeURIComponent(domain)}/verify`)

/** Where the sign-in page would send `email` (the start route with only the address). */
async function routedTo(email: string): Promise<number> {
  const b = app.browser()
  const answer = await b.request("/auth/sso/start", { form: { email, csrfToken: await b.csrfToken() } })
  if (answer.status !== 302) return answer.status
  return new URL(answer.headers.get("location")!).hostname === new URL(acme.idp.entityId).hostname ? 1 : new URL(answer.headers.get("location")!).hostname === new URL(evil.idp.entityId).hostname ? 2 : 3
}

describe("claiming a domain another organization verified", () => {
  for (const spelled of ["acme.test", "ACME.TEST", "acme.test.", " acme.test "]) {
    it(`is refused (${JSON.stringify(spelled)}): 409, acme keeps it`, async () => {
      const answer = await claim(evilAdmin, evil.id, spelled)
      expect(answer.status).toBe(409)
      expect((await app.store.getDomain("acme.test"))?.organizationId).toBe(acme.id)
      expect(await app.store.getDomain("acme.test", evil.id)).toBeNull()
    })
  }
})

describe("a pending claim", () => {
  it("routes no sign-in and gates no password: only a verified claim counts", async () => {
    expect((await claim(evilAdmin, evil.id, "victimcorp.test")).status).toBe(201)
    await app.store.updateDomain("victimcorp.test", evil.id, { requireSso: true })
    expect(await routedTo("ceo@victimcorp.test")).toBe(404)
    const ceo = await app.passwordUser("ceo@victimcorp.test")
    const b = await app.signedIn(ceo)
    expect((await b.session()).user.email).toBe("ceo@victimcorp.test")
  })
})

describe("verifying with another claim's TXT record", () => {
  it("is refused: each claim's token is its own", async () => {
    const contested = "contested.test"
    const real = await claim(acmeOwner, acme.id, contested)
    const forged = await claim(evilAdmin, evil.id, contested)
    expect(real.status).toBe(201)
    expect(forged.status).toBe(201)
    expect(forged.body.record.value).not.toBe(real.body.record.value)
    // acme publishes its record; evil asks to verify first.
    app.published.set(contested, [real.body.record.value])
    const stolen = await verify(evilAdmin, evil.id, contested)
    expect(stolen.status).toBe(409)
    expect((await app.store.getDomain(contested, evil.id))?.verifiedAt).toBeNull()
    expect((await verify(acmeOwner, acme.id, contested)).status).toBe(200)
    expect((await app.store.getDomain(contested))?.organizationId).toBe(acme.id)
  })

  it("a record published under another domain's name proves nothing for this one", async () => {
    const real = await claim(acmeOwner, acme.id, "acme-two.test")
    const evilClaim = await claim(evilAdmin, evil.id, "acme-two.test")
    // evil publishes ITS OWN token under a domain it controls, then asks to verify acme-two.test.
    app.published.set("evil.test", [evilClaim.body.record.value])
    expect((await verify(evilAdmin, evil.id, "acme-two.test")).status).toBe(409)
    expect(real.status).toBe(201)
  })
})

describe("subdomains", () => {
  it("a subdomain claimed by another organization does not capture the parent's addresses", async () => {
    const sub = "evil.acme.test"
    const claimed = await claim(evilAdmin, evil.id, sub)
    expect(claimed.status).toBe(201)
    app.published.set(sub, [claimed.body.record.value])
    expect((await verify(evilAdmin, evil.id, sub)).status).toBe(200)
    expect(await routedTo("ada@acme.test")).toBe(1)
    expect(await routedTo("ada@evil.acme.test")).toBe(2)
  })

  it("an address at a look-alike parent (acme.test.evil.test) is not acme's", async () => {
    expect(await routedTo("ada@acme.test.evil.test")).toBe(404)
  })
})

describe("IDN homographs", () => {
  it("a Cyrillic look-alike of acme.test is another domain: claimable, never routing acme's addresses to evil", async () => {
    const lookalike = "аcme.test" // Cyrillic а
    const claimed = await claim(evilAdmin, evil.id, lookalike)
    expect(claimed.status).toBe(201)
    expect(claimed.body.domain).toMatch(/^xn--/)
    app.published.set(claimed.body.domain, [claimed.body.record.value])
    expect((await verify(evilAdmin, evil.id, claimed.body.domain)).status).toBe(200)
    expect(await routedTo("ada@acme.test")).toBe(1)
    // The look-alike's addresses are evil's: an acme employee typing it is routed there — the
    // sign-in page should show the domain in its ASCII form to make that visible.
    expect(await routedTo(`ada@${lookalike}`)).toBe(2)
  })

  it("the ASCII form of a look-alike equals its Unicode form: one claim, not two", async () => {
    const ascii = new URL("https://bеta.test").hostname // Cyrillic е
    expect((await claim(evilAdmin, evil.id, "bеta.test")).status).toBe(201)
    expect((await claim(acmeOwner, acme.id, ascii)).status).toBe(201)
    app.published.set(ascii, [verificationRecord(ascii, (await app.store.getDomain(ascii, evil.id))!.token).value])
    expect((await verify(evilAdmin, evil.id, ascii)).status).toBe(200)
    expect((await verify(acmeOwner, acme.id, "bеta.test")).status).toBe(409)
  })
})

describe("names that are no one's to claim", () => {
  for (const name of ["com", "co.uk", "github.io", "localhost", "127.0.0.1", "0x7f.1", "[::1]", "*.acme.test", "acme.test/evil", "ada@acme.test", "xn--zz.test", "a".repeat(300) + ".test", "example.invalid"]) {
    it(`${JSON.stringify(name.slice(0, 40))} is refused with a 4xx`, async () => {
      const answer = await claim(evilAdmin, evil.id, name)
      expect(answer.status).toBeGreaterThanOrEqual(400)
      expect(answer.status).toBeLessThan(500)
    })
  }
})
