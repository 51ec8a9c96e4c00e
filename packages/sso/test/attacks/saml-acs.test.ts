/**
 * The attacker at the SAML assertion consumer service of the assembled app: every forged,
 * misdirected, replayed or oversized post gets a 4xx page without a stack, and leaves no
 * session cookie, no user, no membership behind.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { assembledApp, noStack, type App, type Tenant } from "./app.js"

let app: App
let acme: Tenant
let globex: Tenant

beforeAll(async () => {
  app = await assembledApp()
  acme = await app.tenant("acme", "acme.test")
  globex = await app.tenant("globex", "globex.test")
})
afterAll(() => app.close())

/** What the store and adapter hold, to prove an attack changed nothing. */
async function snapshot() {
  const users = await Promise.all(["ada@acme.test", "mallory@globex.test", "eve@acme.test"].map((e) => app.adapter.getUserByEmail!(e)))
  const members = [...(await app.orgStore.listMembers(acme.id)), ...(await app.orgStore.listMembers(globex.id))].map((m) => `${m.organizationId}/${m.userId}/${m.role}`).sort()
  return JSON.stringify({ users: users.map((u) => u?.id ?? null), members })
}

async function refused(response: Response, before: string, b: { sessionCookie(): string | undefined }) {
  const body = await response.text()
  expect(response.status, body.slice(0, 300)).toBeGreaterThanOrEqual(400)
  expect(response.status).toBeLessThan(500)
  expect(noStack(body)).toBe(true)
  expect(b.sessionCookie()).toBeUndefined()
  expect(await snapshot()).toBe(before)
  return body
}

describe("a genuine SP-initiated sign-in (the baseline every attack departs from)", () => {
  it("signs the person in, as a member of the connection's organization", async () => {
    const b = app.browser()
    const requestId = await app.startSaml(b, acme.connection)
    const response = await app.postAcs(b, acme.connection.id, app.acsForm(acme.idp, acme.connection, requestId, { nameId: "baseline@acme.test", attributes: { mail: ["baseline@acme.test"] } }))
    expect(response.status).toBe(302)
    expect(b.sessionCookie()).toBeDefined()
    const user = await app.adapter.getUserByEmail!("baseline@acme.test")
    expect((await app.orgStore.getMembership(acme.id, user!.id))?.role).toBe("member")
    expect((await b.session()).user.email).toBe("baseline@acme.test")
  })
})

describe("cross-tenant: another organization's IdP at this connection's ACS", () => {
  it("refuses org B's IdP-signed assertion posted to org A's ACS for org A's request", async () => {
    const before = await snapshot()
    const b = app.browser()
    const requestId = await app.startSaml(b, acme.connection)
    // globex's IdP signs an assertion naming an acme address, for acme's ACS and request.
    const forged = app.samlResponse(globex.idp, acme.connection, requestId, { nameId: "ada@acme.test", attributes: { mail: ["ada@acme.test"] } })
    await refused(await app.postAcs(b, acme.connection.id, { SAMLResponse: forged, RelayState: app.relays.get(requestId)! }), before, b)
  })

  it("refuses org B's genuine response (its own connection) posted with org A's request id at B's ACS", async () => {
    const before = await snapshot()
    const b = app.browser()
    const acmeRequest = await app.startSaml(b, acme.connection)
    const form = app.acsForm(globex.idp, globex.connection, acmeRequest, { nameId: "mallory@globex.test", attributes: { mail: ["mallory@globex.test"] } })
    await refused(await app.postAcs(b, globex.connection.id, form), before, b)
  })

  it("refuses org B's response for org B's request posted to org A's ACS", async () => {
    const before = await snapshot()
    const b = app.browser()
    const globexRequest = await app.startSaml(b, globex.connection)
    const form = app.acsForm(globex.idp, globex.connection, globexRequest, { nameId: "mallory@globex.test", attributes: { mail: ["mallory@globex.test"] } })
    await refused(await app.postAcs(b, acme.connection.id, form), before, b)
  })
})

describe("a response to a request made for another connection of the same IdP", () => {
  it("is refused: the request id is bound to the connection it was made for", async () => {
    // A second acme connection trusting the same IdP (a staging app at Okta, say).
    const twin = { ...acme.connection, id: "conn-acme-twin", name: "Acme twin" }
    await app.store.createConnection(twin)
    const before = await snapshot()
    const b = app.browser()
    const twinRequest = await app.startSaml(b, twin)
    const form = app.acsForm(acme.idp, acme.connection, twinRequest, { nameId: "ada@acme.test", attributes: { mail: ["ada@acme.test"] } })
    await refused(await app.postAcs(b, acme.connection.id, form), before, b)
  })
})

describe("replay after success", () => {
  it("signs in once; the same response posted again (another browser) is refused", async () => {
    const victim = app.browser()
    const requestId = await app.startSaml(victim, acme.connection)
    const form = app.acsForm(acme.idp, acme.connection, requestId, { nameId: "replayed@acme.test", attributes: { mail: ["replayed@acme.test"] } })
    expect((await app.postAcs(victim, acme.connection.id, form)).status).toBe(302)
    const before = await snapshot()
    const attacker = app.browser()
    await refused(await app.postAcs(attacker, acme.connection.id, form), before, attacker)
  })

  it("50 concurrent posts of one response make one session", async () => {
    const b = app.browser()
    const requestId = await app.startSaml(b, acme.connection)
    const form = app.acsForm(acme.idp, acme.connection, requestId, { nameId: "race@acme.test", attributes: { mail: ["race@acme.test"] } })
    // Copies of the browser that started it (its binding among its cookies), all posting at once.
    const browsers = Array.from({ length: 50 }, () => {
      const x = app.browser()
      for (const [name, cookie] of b.jar) x.jar.set(name, cookie)
      return x
    })
    const answers = await Promise.all(browsers.map((x) => app.postAcs(x, acme.connection.id, form)))
    expect(answers.filter((r) => r.status === 302)).toHaveLength(1)
    expect(answers.every((r) => r.status === 302 || (r.status >= 400 && r.status < 500))).toBe(true)
    expect(browsers.filter((x) => x.sessionCookie())).toHaveLength(1)
  })
})

describe("IdP-initiated when the connection does not allow it", () => {
  it("is refused: an unsolicited response signs no one in", async () => {
    const before = await snapshot()
    const b = app.browser()
    const response = app.samlResponse(acme.idp, acme.connection, null, { nameId: "eve@acme.test", attributes: { mail: ["eve@acme.test"] } }, { inResponseTo: null })
    await refused(await app.postAcs(b, acme.connection.id, { SAMLResponse: response, RelayState: "/dashboard" }), before, b)
  })
})

describe("open redirect through the callbackUrl kept with the request", () => {
  for (const target of ["//evil.com", "https://evil.com/steal", "javascript:alert(document.cookie)", "/\\evil.com", "https:evil.com"]) {
    it(`lands on the app, never ${target}`, async () => {
      const b = app.browser()
      const requestId = await app.startSaml(b, acme.connection, { callbackUrl: target })
      const email = `redirect-${Math.random().toString(36).slice(2)}@acme.test`
      const response = await app.postAcs(b, acme.connection.id, app.acsForm(acme.idp, acme.connection, requestId, { nameId: email, attributes: { mail: [email] } }))
      const location = response.headers.get("location") ?? ""
      expect(new URL(location, app.server.origin).origin).toBe(app.server.origin)
      expect(location).not.toMatch(/^(javascript:|\/\/|\/\\)/i)
    })
  }

  it("ignores the form's RelayState for the landing of an SP-initiated sign-in", async () => {
    const b = app.browser()
    const requestId = await app.startSaml(b, acme.connection)
    const email = `relay-${Math.random().toString(36).slice(2)}@acme.test`
    const response = await app.postAcs(b, acme.connection.id, { ...app.acsForm(acme.idp, acme.connection, requestId, { nameId: email, attributes: { mail: [email] } }), RelayState: "https://evil.com" })
    expect([302, 400]).toContain(response.status)
    if (response.status === 302) expect(new URL(response.headers.get("location")!, app.server.origin).origin).toBe(app.server.origin)
  })
})

describe("oversized and hostile bodies", () => {
  it("refuses a 5 MB SAMLResponse with a 4xx", async () => {
    const before = await snapshot()
    const b = app.browser()
    const response = await app.postAcs(b, acme.connection.id, { SAMLResponse: Buffer.from(`<samlp:Response>${"A".repeat(5_000_000)}</samlp:Response>`).toString("base64") })
    await refused(response, before, b)
  })

  it("refuses a billion-laughs document (DTD) without expanding it", async () => {
    const before = await snapshot()
    const b = app.browser()
    const bomb = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">]><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">&f;&f;&f;&f;</samlp:Response>`
    const started = Date.now()
    await refused(await app.postAcs(b, acme.connection.id, { SAMLResponse: Buffer.from(bomb).toString("base64") }), before, b)
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it("refuses deeply nested elements", async () => {
    const before = await snapshot()
    const b = app.browser()
    const deep = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${"<a>".repeat(50_000)}${"</a>".repeat(50_000)}</samlp:Response>`
    await refused(await app.postAcs(b, acme.connection.id, { SAMLResponse: Buffer.from(deep).toString("base64") }), before, b)
  })

  it("refuses garbage that is not base64 XML", async () => {
    const before = await snapshot()
    const b = app.browser()
    await refused(await app.postAcs(b, acme.connection.id, { SAMLResponse: "%%%not base64%%%" }), before, b)
    await refused(await app.postAcs(b, acme.connection.id, {}), before, b)
  })

  it("refuses a JSON body at the ACS with a 4xx", async () => {
    const before = await snapshot()
    const b = app.browser()
    const response = await b.request(`/auth/sso/saml/${acme.connection.id}/acs`, { method: "POST", headers: { "content-type": "application/json", origin: "https://idp.elsewhere.example" }, body: JSON.stringify({ SAMLResponse: ["a", "b"] }) })
    await refused(response, before, b)
  })
})

describe("form-encoded duplicates", () => {
  it("two SAMLResponse fields (a forged one first, a genuine one second) sign no one in as the forger", async () => {
    const b = app.browser()
    const requestId = await app.startSaml(b, acme.connection)
    const genuine = app.samlResponse(acme.idp, acme.connection, requestId, { nameId: "dup@acme.test", attributes: { mail: ["dup@acme.test"] } })
    const forged = app.samlResponse(globex.idp, acme.connection, requestId, { nameId: "ada@acme.test", attributes: { mail: ["ada@acme.test"] } })
    const before = await snapshot()
    const body = `SAMLResponse=${encodeURIComponent(forged)}&SAMLResponse=${encodeURIComponent(genuine)}&RelayState=${encodeURIComponent(app.relays.get(requestId)!)}`
    const response = await app.postAcs(b, acme.connection.id, body)
    // Either refused outright or the genuine one counted — never the forged identity.
    if (response.status === 302) {
      expect((await b.session()).user.email).toBe("dup@acme.test")
    } else {
      await refused(response, before, b)
    }
    expect(await app.adapter.getUserByEmail!("ada@acme.test")).toBeNull()
  })

  it("the genuine response first and a forged second do not both count", async () => {
    const b = app.browser()
    const requestId = await app.startSaml(b, acme.connection)
    const genuine = app.samlResponse(acme.idp, acme.connection, requestId, { nameId: "dup2@acme.test", attributes: { mail: ["dup2@acme.test"] } })
    const body = `SAMLResponse=${encodeURIComponent(genuine)}&SAMLResponse=${encodeURIComponent("PHg+PC94Pg==")}&RelayState=${encodeURIComponent(app.relays.get(requestId)!)}&RelayState=b`
    const response = await app.postAcs(b, acme.connection.id, body)
    expect(response.status).toBeLessThan(500)
    expect(noStack(await response.text())).toBe(true)
  })
})

describe("login CSRF: a valid response for the attacker's own account, posted from another site into a victim's browser", () => {
  // Found in the attacker's pass (medium) and fixed: the ACS keeps the checked result under a
  // one-time ticket, and the same-site finish step signs in only the browser whose sealed
  // binding (set at the start) names the request the response answers.
  it("does not sign the victim's browser in as the attacker", async () => {
    // The attacker starts a sign-in in their own browser and gets a genuine response for their account…
    const attacker = app.browser()
    const requestId = await app.startSaml(attacker, acme.connection)
    const form = app.acsForm(acme.idp, acme.connection, requestId, { nameId: "attacker@acme.test", attributes: { mail: ["attacker@acme.test"] } })
    // …and, instead of posting it, makes the victim's browser post it (an auto-submitting form on evil.example).
    const victim = app.browser()
    const answer = await app.postAcs(victim, acme.connection.id, form)
    const session = victim.sessionCookie() ? await victim.session() : null
    expect(answer.status).toBeGreaterThanOrEqual(400)
    expect(session?.user?.email).not.toBe("attacker@acme.test")
    // A victim who started a sign-in of their own is no better target: their binding names their own request.
    const victim2 = app.browser()
    await app.startSaml(victim2, acme.connection)
    const requestId2 = await app.startSaml(attacker, acme.connection)
    const form2 = app.acsForm(acme.idp, acme.connection, requestId2, { nameId: "attacker@acme.test", attributes: { mail: ["attacker@acme.test"] } })
    expect((await app.postAcs(victim2, acme.connection.id, form2)).status).toBe(400)
    expect(victim2.sessionCookie()).toBeFalsy()
    // The attacker's own browser, which started that request, would have been signed in: the response was genuine.
    expect(await app.adapter.getUserByEmail!("attacker@acme.test")).toBeNull()
  })
})

describe("what the attacks leave in the log", () => {
  it("holds no SAML message, no assertion content and no key", () => {
    const logged = app.logged()
    expect(logged).not.toContain("PHNhbWxwOlJlc3BvbnNl") // base64 of "<samlp:Response"
    expect(logged).not.toContain("<saml:Assertion")
    expect(logged).not.toMatch(/PRIVATE KEY/)
  })
})

describe("IdP-initiated where the connection allows it", () => {
  it("lands on the app whatever the form's RelayState names", async () => {
    const open = { ...acme.connection, id: "conn-acme-idp-init", saml: { ...acme.connection.saml!, allowIdpInitiated: true } }
    await app.store.createConnection(open)
    for (const relay of ["https://evil.com/x", "//evil.com", "javascript:alert(1)"]) {
      const b = app.browser()
      const email = `idpinit-${Math.random().toString(36).slice(2)}@acme.test`
      const response = await app.postAcs(b, open.id, { SAMLResponse: app.samlResponse(acme.idp, open, null, { nameId: email, attributes: { mail: [email] } }, { inResponseTo: null }), RelayState: relay })
      // Signed in (the connection allows it), and landed at home.
      expect(response.status).toBe(302)
      expect(new URL(response.headers.get("location")!, app.server.origin).origin).toBe(app.server.origin)
    }
  })
})
