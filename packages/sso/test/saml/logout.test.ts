import { createSign } from "node:crypto"
import { deflateRawSync, inflateRawSync } from "node:zlib"
import { describe, expect, it } from "vitest"
import { SamlRejected, generateSpKey, serviceProvider } from "../../src/saml/index.js"
import { SP_ENTITY_ID, testIdp, world, type TestIdp } from "./idp-fixture.js"

const SLO_URL = "https://app.test/auth/sso/saml/acme/slo"
const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"

/** A world whose connection does single logout: the IdP has an SLO URL, the connection a key. */
function sloWorld() {
  return world({ connection: { sloUrl: "https://idp.acme.test/slo", spKey: generateSpKey() }, sp: { sloUrl: SLO_URL } })
}

/** The IdP's HTTP-Redirect message to the SP's SLO URL: deflated, base64, signed over the query as sent. */
function redirect(idp: TestIdp, param: "SAMLRequest" | "SAMLResponse", xml: string, o: { relayState?: string; sigAlg?: string; hash?: string; unsigned?: boolean } = {}): string {
  let query = `${param}=${encodeURIComponent(deflateRawSync(Buffer.from(xml)).toString("base64"))}`
  if (o.relayState !== undefined) query += `&RelayState=${encodeURIComponent(o.relayState)}`
  if (o.unsigned) return query
  query += `&SigAlg=${encodeURIComponent(o.sigAlg ?? RSA_SHA256)}`
  const signature = createSign(o.hash ?? "RSA-SHA256").update(query).sign(idp.key.privateKey, "base64")
  return `${query}&Signature=${encodeURIComponent(signature)}`
}
const iso = (ms: number) => new Date(ms).toISOString()
const logoutResponse = (idp: TestIdp, inResponseTo: string, o: { status?: string; issuer?: string; destination?: string } = {}) =>
  `<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_lr${Math.random().toString(36).slice(2)}" Version="2.0" IssueInstant="${iso(Date.now())}" Destination="${o.destination ?? SLO_URL}" InResponseTo="${inResponseTo}">` +
  `<saml:Issuer>${o.issuer ?? idp.entityId}</saml:Issuer><samlp:Status><samlp:StatusCode Value="${o.status ?? "urn:oasis:names:tc:SAML:2.0:status:Success"}"/></samlp:Status></samlp:LogoutResponse>`
const logoutRequest = (idp: TestIdp, o: { id?: string; notOnOrAfter?: number } = {}) =>
  `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${o.id ?? "_idp-logout-1"}" Version="2.0" IssueInstant="${iso(Date.now())}" Destination="${SLO_URL}"` +
  (o.notOnOrAfter !== undefined ? ` NotOnOrAfter="${iso(Date.now() + o.notOnOrAfter * 1000)}"` : "") +
  `><saml:Issuer>${idp.entityId}</saml:Issuer><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">ada@acme.test</saml:NameID><samlp:SessionIndex>_session1</samlp:SessionIndex></samlp:LogoutRequest>`

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => null, (e: unknown) => e)
  expect(error).toBeInstanceOf(SamlRejected)
  return (error as SamlRejected).code
}

describe("SP-initiated single logout", () => {
  it("redirects to the IdP's SLO URL with a signed LogoutRequest for the user's session", async () => {
    const w = sloWorld()
    const { url, requestId } = await w.sp.startLogout({ nameId: "ada@acme.test", nameIdFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress", sessionIndex: "_session1", relayState: "/bye" })
    const target = new URL(url)
    expect(target.origin + target.pathname).toBe("https://idp.acme.test/slo")
    expect(target.searchParams.get("SigAlg")).toBe(RSA_SHA256)
    expect(target.searchParams.get("Signature")).toBeTruthy()
    const xml = inflateRawSync(Buffer.from(target.searchParams.get("SAMLRequest")!, "base64")).toString()
    expect(xml).toContain(`ID="${requestId}"`)
    expect(xml).toMatch(/<saml:NameID[^>]*>ada@acme\.test<\/saml:NameID>/)
    expect(xml).toContain(">_session1<")
    expect(xml).toContain(`>${SP_ENTITY_ID}</saml:Issuer>`)
  })

  it("accepts the IdP's signed LogoutResponse once, with the request's relay state", async () => {
    const w = sloWorld()
    const { requestId } = await w.sp.startLogout({ nameId: "ada@acme.test", nameIdFormat: null, sessionIndex: null, relayState: "/bye" })
    const query = redirect(w.idp, "SAMLResponse", logoutResponse(w.idp, requestId), { relayState: "/bye" })
    expect(await w.sp.completeLogout(query)).toEqual({ kind: "response", requestId, relayState: "/bye" })
    expect(await code(w.sp.completeLogout(query))).toBe("saml-unsolicited")
  })

  it("refuses a LogoutResponse to a request never made, or made for another connection", async () => {
    const w = sloWorld()
    expect(await code(w.sp.completeLogout(redirect(w.idp, "SAMLResponse", logoutResponse(w.idp, "_never"))))).toBe("saml-unsolicited")
    const { requestId } = await w.sp.startSignIn({ relayState: "x" }) // a sign-in request is not a logout request
    expect(await code(w.sp.completeLogout(redirect(w.idp, "SAMLResponse", logoutResponse(w.idp, requestId))))).toBe("saml-unsolicited")
  })

  it("refuses a LogoutResponse whose status is not Success", async () => {
    const w = sloWorld()
    const { requestId } = await w.sp.startLogout({ nameId: "ada@acme.test", nameIdFormat: null, sessionIndex: null, relayState: "" })
    expect(await code(w.sp.completeLogout(redirect(w.idp, "SAMLResponse", logoutResponse(w.idp, requestId, { status: "urn:oasis:names:tc:SAML:2.0:status:Responder" }))))).toBe("saml-idp-error")
  })

  it("needs the IdP's SLO URL and the connection's key (a configuration fault, not a refusal)", async () => {
    const w = world()
    await expect(w.sp.startLogout({ nameId: "a", nameIdFormat: null, sessionIndex: null, relayState: "" })).rejects.toThrow(TypeError)
  })
})

describe("IdP-initiated single logout", () => {
  it("names the user and session to end, once, and builds the signed answer", async () => {
    const w = sloWorld()
    const query = redirect(w.idp, "SAMLRequest", logoutRequest(w.idp), { relayState: "rs" })
    const result = await w.sp.completeLogout(query)
    expect(result).toMatchObject({ kind: "request", requestId: "_idp-logout-1", nameId: "ada@acme.test", nameIdFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress", sessionIndex: "_session1", relayState: "rs" })
    if (result.kind !== "request") throw new Error("unreachable")
    const answer = new URL(await result.responseUrl(true))
    expect(answer.origin + answer.pathname).toBe("https://idp.acme.test/slo")
    expect(answer.searchParams.get("Signature")).toBeTruthy()
    const xml = inflateRawSync(Buffer.from(answer.searchParams.get("SAMLResponse")!, "base64")).toString()
    expect(xml).toContain('InResponseTo="_idp-logout-1"')
    expect(xml).toContain("urn:oasis:names:tc:SAML:2.0:status:Success")
    expect(await code(w.sp.completeLogout(query))).toBe("saml-replayed")
  })

  it("refuses an expired LogoutRequest", async () => {
    const w = sloWorld()
    expect(await code(w.sp.completeLogout(redirect(w.idp, "SAMLRequest", logoutRequest(w.idp, { notOnOrAfter: -120 }))))).toBe("saml-expired")
  })
})

describe("50 concurrent logout messages", () => {
  it("one LogoutResponse completes exactly once", async () => {
    const w = sloWorld()
    const { requestId } = await w.sp.startLogout({ nameId: "ada@acme.test", nameIdFormat: null, sessionIndex: null, relayState: "" })
    const query = redirect(w.idp, "SAMLResponse", logoutResponse(w.idp, requestId))
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => w.sp.completeLogout(query)))
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1)
  })

  it("one IdP LogoutRequest is acted on exactly once", async () => {
    const w = sloWorld()
    const query = redirect(w.idp, "SAMLRequest", logoutRequest(w.idp))
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => w.sp.completeLogout(query)))
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1)
    for (const r of results) if (r.status === "rejected") expect((r.reason as SamlRejected).code).toBe("saml-replayed")
  })
})

describe("attacks on logout", () => {
  it("refuses an unsigned logout request (node-saml alone would accept it)", async () => {
    const w = sloWorld()
    expect(await code(w.sp.completeLogout(redirect(w.idp, "SAMLRequest", logoutRequest(w.idp), { unsigned: true })))).toBe("saml-invalid-signature")
  })

  it("refuses a logout request signed by another key", async () => {
    const w = sloWorld()
    const stranger = testIdp(w.idp.entityId, w.clock)
    expect(await code(w.sp.completeLogout(redirect(stranger, "SAMLRequest", logoutRequest(stranger))))).toBe("saml-invalid-signature")
  })

  it("refuses a signed query with a second SAMLRequest appended (the read one must be the signed one)", async () => {
    const w = sloWorld()
    const signed = redirect(w.idp, "SAMLRequest", logoutRequest(w.idp))
    const other = encodeURIComponent(deflateRawSync(Buffer.from(logoutRequest(w.idp, { id: "_other" }).replace("ada@", "admin@"))).toString("base64"))
    expect(await code(w.sp.completeLogout(`${signed}&SAMLRequest=${other}`))).toBe("saml-malformed")
  })

  it("refuses SHA-1", async () => {
    const w = sloWorld()
    expect(await code(w.sp.completeLogout(redirect(w.idp, "SAMLRequest", logoutRequest(w.idp), { sigAlg: "http://www.w3.org/2000/09/xmldsig#rsa-sha1", hash: "RSA-SHA1" })))).toBe("saml-weak-algorithm")
  })

  it("refuses a deflate bomb before parsing", async () => {
    const w = sloWorld()
    const bomb = deflateRawSync(Buffer.alloc(8 * 1024 * 1024, 0x20)).toString("base64")
    expect(await code(w.sp.completeLogout(`SAMLRequest=${encodeURIComponent(bomb)}&SigAlg=${encodeURIComponent(RSA_SHA256)}&Signature=AAAA`))).toBe("saml-too-large")
  })

  it("refuses a DOCTYPE", async () => {
    const w = sloWorld()
    const xml = `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>` + logoutRequest(w.idp).replace("ada@acme.test", "&e;")
    expect(await code(w.sp.completeLogout(redirect(w.idp, "SAMLRequest", xml)))).toBe("saml-doctype")
  })

  it("refuses another organization's IdP", async () => {
    const w = sloWorld()
    const globex = testIdp("https://idp.globex.test", w.clock)
    expect(await code(w.sp.completeLogout(redirect(globex, "SAMLRequest", logoutRequest(globex))))).toBe("saml-issuer")
  })

  it("the other connection of the same app does not take this connection's logout answer", async () => {
    const w = sloWorld()
    const globexIdp = testIdp("https://idp.acme.test", w.clock, w.idp.key)
    const globex = serviceProvider({ ...w.connection, id: "globex" }, { store: w.store, spEntityId: SP_ENTITY_ID, acsUrl: w.acsUrl, sloUrl: SLO_URL, now: w.clock.now })
    const { requestId } = await w.sp.startLogout({ nameId: "ada@acme.test", nameIdFormat: null, sessionIndex: null, relayState: "" })
    expect(await code(globex.completeLogout(redirect(globexIdp, "SAMLResponse", logoutResponse(globexIdp, requestId))))).toBe("saml-unsolicited")
  })
})
