/**
 * The attacker suite: each `describe` is one class of attack on a SAML service provider, each
 * test a concrete message an attacker can build from what they can get — a genuine signed
 * response for their own account, another IdP's key, an old assertion, a crafted XML file.
 */
import { SAML } from "@node-saml/node-saml"
import { DOMParser, XMLSerializer } from "@xmldom/xmldom"
import { describe, expect, it } from "vitest"
import { SamlRejected, parseIdpMetadata, serviceProvider, type SamlRejectionCode } from "../../src/saml/index.js"
import { RSA_SHA1, RSA_SHA256, SHA1, SHA256, SP_ENTITY_ID, acsUrlOf, encode, samlConnection, testIdp, world } from "./idp-fixture.js"

const SAML_NS = "urn:oasis:names:tc:SAML:2.0:assertion"
const SAMLP_NS = "urn:oasis:names:tc:SAML:2.0:protocol"
const DSIG_NS = "http://www.w3.org/2000/09/xmldsig#"

async function refusal(promise: Promise<unknown>): Promise<SamlRejectionCode> {
  const error = await promise.then(
    (result) => ({ accepted: result }),
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(SamlRejected)
  const rejected = error as SamlRejected
  // Safe to show: no XML of the message is echoed back.
  expect(rejected.message).not.toMatch(/[<>]/)
  expect(rejected.status).toBe(400)
  return rejected.code
}

// ----- DOM tools to take a genuine response apart -----------------------------------------
const parse = (xml: string) => new DOMParser().parseFromString(xml, "text/xml")
const serialize = (node: Node) => new XMLSerializer().serializeToString(node as never)
const only = (root: Document | Element, ns: string, name: string) => root.getElementsByTagNameNS(ns, name)[0]!
const childSignature = (el: Element) => Array.from(el.childNodes).find((n): n is Element => (n as Element).localName === "Signature") ?? null
/** Turns a copy of the genuine assertion into the attacker's: another subject, another ID. */
function evilize(assertion: Element, keepSignature = false): Element {
  const evil = assertion.cloneNode(true) as Element
  evil.setAttribute("ID", "_evil")
  const nameId = only(evil, SAML_NS, "NameID")
  while (nameId.firstChild) nameId.removeChild(nameId.firstChild)
  nameId.appendChild(evil.ownerDocument!.createTextNode("admin@acme.test"))
  if (!keepSignature) {
    const sig = childSignature(evil)
    if (sig) evil.removeChild(sig)
  }
  return evil
}

/** The attacker's material: a genuine response for their own account (`mallory@acme.test`) to a request they started. */
async function genuine(o: { signResponse?: boolean } = {}) {
  const w = world()
  const requestId = await w.start()
  const assertion = w.idp.sign(w.idp.assertion(w.acsUrl, { inResponseTo: requestId, nameId: "mallory@acme.test", attributes: { mail: ["mallory@acme.test"] } }))
  let response = w.idp.response(w.acsUrl, assertion)
  if (o.signResponse) response = w.idp.sign(response)
  const doc = parse(response)
  const submit = (d: Document | string) => w.sp.completeSignIn({ SAMLResponse: encode(typeof d === "string" ? d : serialize(d)), RelayState: "state-1" })
  return { w, requestId, response, doc, root: doc.documentElement!, assertion: only(doc, SAML_NS, "Assertion"), submit }
}

/**
 * A wrapped message is refused twice over: by the structural check (exactly one assertion, a
 * direct child of the Response: `saml-malformed`), and — were that check gone — by node-saml's
 * own signature-scope checks, which each test runs the same message through on its own.
 */
async function refusedAsWrapped(g: Awaited<ReturnType<typeof genuine>>, doc: Document) {
  expect(serialize(doc)).toContain("admin@acme.test")
  expect(await refusal(g.submit(doc))).toBe("saml-malformed")
  const bare = new SAML({ issuer: SP_ENTITY_ID, callbackUrl: g.w.acsUrl, idpCert: g.w.idp.certificate, audience: SP_ENTITY_ID, wantAssertionsSigned: true, acceptedClockSkewMs: -1 })
  const second = await bare.validatePostResponseAsync({ SAMLResponse: encode(serialize(doc)) }).catch((e: unknown) => e)
  expect(second).toBeInstanceOf(Error)
}

describe("XML signature wrapping", () => {
  it("the genuine material itself is accepted (the attacks below start from a valid message)", async () => {
    const g = await genuine({ signResponse: true })
    const bare = new SAML({ issuer: SP_ENTITY_ID, callbackUrl: g.w.acsUrl, idpCert: g.w.idp.certificate, audience: SP_ENTITY_ID, wantAssertionsSigned: true, acceptedClockSkewMs: -1 })
    expect((await bare.validatePostResponseAsync({ SAMLResponse: encode(serialize(g.doc)) })).profile?.nameID).toBe("mallory@acme.test")
    expect((await g.submit(g.doc)).nameId).toBe("mallory@acme.test")
  })

  it("XSW1: a forged Response whose Signature holds the signed original", async () => {
    const g = await genuine({ signResponse: true })
    const original = g.root
    const evilDoc = parse(g.response)
    const evilRoot = evilDoc.documentElement!
    evilRoot.setAttribute("ID", "_evil-response")
    const evilAssertion = only(evilRoot, SAML_NS, "Assertion")
    evilRoot.replaceChild(evilize(evilAssertion), evilAssertion)
    const signature = childSignature(evilRoot)!
    original.removeChild(childSignature(original)!)
    signature.appendChild(evilDoc.importNode(original, true))
    await refusedAsWrapped(g, evilDoc)
  })

  it("XSW2: a forged Response with the signed original as a sibling before its Signature", async () => {
    const g = await genuine({ signResponse: true })
    const evilDoc = parse(g.response)
    const evilRoot = evilDoc.documentElement!
    evilRoot.setAttribute("ID", "_evil-response")
    const evilAssertion = only(evilRoot, SAML_NS, "Assertion")
    evilRoot.replaceChild(evilize(evilAssertion), evilAssertion)
    const signature = childSignature(evilRoot)!
    const original = g.root
    original.removeChild(childSignature(original)!)
    evilRoot.insertBefore(evilDoc.importNode(original, true), signature)
    await refusedAsWrapped(g, evilDoc)
  })

  it("XSW3: a forged assertion inserted before the signed one", async () => {
    const g = await genuine()
    g.root.insertBefore(evilize(g.assertion), g.assertion)
    await refusedAsWrapped(g, g.doc)
  })

  it("XSW4: the signed assertion hidden inside the forged one", async () => {
    const g = await genuine()
    const evil = evilize(g.assertion)
    g.root.replaceChild(evil, g.assertion)
    evil.appendChild(g.assertion)
    await refusedAsWrapped(g, g.doc)
  })

  it("XSW5: the signature moved onto the forged assertion, the original appended after it", async () => {
    const g = await genuine()
    const evil = evilize(g.assertion, true)
    g.assertion.removeChild(childSignature(g.assertion)!)
    g.root.replaceChild(evil, g.assertion)
    g.root.appendChild(g.assertion)
    await refusedAsWrapped(g, g.doc)
  })

  it("XSW6: the signature on the forged assertion, the original inside that signature", async () => {
    const g = await genuine()
    const evil = evilize(g.assertion, true)
    g.assertion.removeChild(childSignature(g.assertion)!)
    g.root.replaceChild(evil, g.assertion)
    childSignature(evil)!.appendChild(g.assertion)
    await refusedAsWrapped(g, g.doc)
  })

  it("XSW7: the signed assertion parked in an Extensions element, the forged one in its place", async () => {
    const g = await genuine()
    const extensions = g.doc.createElementNS(SAMLP_NS, "samlp:Extensions")
    const evil = evilize(g.assertion)
    g.root.replaceChild(evil, g.assertion)
    extensions.appendChild(g.assertion)
    g.root.insertBefore(extensions, evil)
    await refusedAsWrapped(g, g.doc)
  })

  it("XSW8: the forged assertion keeps the signature, the unsigned original in a ds:Object inside it", async () => {
    const g = await genuine()
    const evil = evilize(g.assertion, true)
    g.assertion.removeChild(childSignature(g.assertion)!)
    const object = g.doc.createElementNS(DSIG_NS, "ds:Object")
    g.root.replaceChild(evil, g.assertion)
    object.appendChild(g.assertion)
    childSignature(evil)!.appendChild(object)
    await refusedAsWrapped(g, g.doc)
  })

  it("a duplicate ID: the forged assertion carries the signed one's ID", async () => {
    const g = await genuine()
    const evil = evilize(g.assertion)
    evil.setAttribute("ID", g.assertion.getAttribute("ID")!)
    g.root.insertBefore(evil, g.assertion)
    await refusedAsWrapped(g, g.doc)
  })

  it("the subject edited after signing", async () => {
    const g = await genuine()
    const nameId = only(g.assertion, SAML_NS, "NameID")
    nameId.replaceChild(g.doc.createTextNode("admin@acme.test"), nameId.firstChild!)
    expect(serialize(g.doc)).toContain(">admin@acme.test</saml:NameID>")
    expect(await refusal(g.submit(g.doc))).toBe("saml-invalid-signature")
  })
})

describe("an unsigned or partially signed assertion", () => {
  it("refuses a signed response whose own signature no longer verifies (a response field edited), even around a valid signed assertion", async () => {
    const g = await genuine({ signResponse: true })
    g.root.setAttribute("Consent", "urn:oasis:names:tc:SAML:2.0:consent:obtained")
    expect(await refusal(g.submit(g.doc))).toBe("saml-invalid-signature")
  })

  it("refuses an unsigned assertion in an unsigned response", async () => {
    const w = world()
    const requestId = await w.start()
    const response = w.idp.response(w.acsUrl, w.idp.assertion(w.acsUrl, { inResponseTo: requestId }))
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: encode(response), RelayState: "state-1" }))).toBe("saml-invalid-signature")
  })

  it("refuses a signed assertion whose signature was stripped", async () => {
    const g = await genuine()
    g.assertion.removeChild(childSignature(g.assertion)!)
    expect(await refusal(g.submit(g.doc))).toBe("saml-invalid-signature")
  })

  it("refuses a signed response wrapping a signed assertion and an unsigned second one", async () => {
    const w = world()
    const requestId = await w.start()
    const signed = w.idp.sign(w.idp.assertion(w.acsUrl, { inResponseTo: requestId, nameId: "mallory@acme.test" }))
    const unsigned = w.idp.assertion(w.acsUrl, { inResponseTo: requestId, nameId: "admin@acme.test" })
    const response = w.idp.sign(w.idp.response(w.acsUrl, unsigned + signed))
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: encode(response), RelayState: "state-1" }))).toBe("saml-malformed")
  })

  it("refuses a signed response whose only assertion is unsigned", async () => {
    const w = world()
    const requestId = await w.start()
    const response = w.idp.sign(w.idp.response(w.acsUrl, w.idp.assertion(w.acsUrl, { inResponseTo: requestId, nameId: "admin@acme.test" })))
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: encode(response), RelayState: "state-1" }))).toBe("saml-invalid-signature")
  })
})

describe("a comment inside NameID", () => {
  // The attacker owns admin@acme.test.evil.com at the IdP. Canonicalization drops comments, so
  // the signature survives a comment inserted into the value; a parser reading only the first
  // text node would then see admin@acme.test.
  async function withComment(field: "nameId" | "mail") {
    const w = world()
    const requestId = await w.start()
    const signed = w.idp.sign(w.idp.assertion(w.acsUrl, { inResponseTo: requestId, nameId: "admin@acme.test.evil.com", attributes: { mail: ["admin@acme.test.evil.com"] } }))
    const tampered = field === "nameId"
      ? signed.replace(/(<saml:NameID[^>]*>)admin@acme\.test\.evil\.com/, "$1admin@acme.test<!---->.evil.com")
      : signed.replace(/(<saml:AttributeValue>)admin@acme\.test\.evil\.com/, "$1admin@acme.test<!---->.evil.com")
    expect(tampered).not.toBe(signed)
    return w.sp.completeSignIn({ SAMLResponse: encode(w.idp.response(w.acsUrl, tampered)), RelayState: "state-1" }).catch((e: unknown) => e)
  }

  it("in NameID: never yields the truncated identity", async () => {
    const result = await withComment("nameId")
    if (result instanceof SamlRejected) return // refusing is as good as reading the whole value
    expect(result).toMatchObject({ nameId: "admin@acme.test.evil.com" })
  })

  it("in the mail attribute: never yields the truncated email", async () => {
    const result = await withComment("mail")
    if (result instanceof SamlRejected) return
    expect(result).toMatchObject({ email: "admin@acme.test.evil.com", attributes: { mail: ["admin@acme.test.evil.com"] } })
  })
})

describe("a replayed assertion on another instance", () => {
  it("is refused by a second service provider sharing the store (IdP-initiated: only the assertion ID stops it)", async () => {
    const w = world({ connection: { allowIdpInitiated: true } })
    const otherInstance = serviceProvider(w.connection, { store: w.store, spEntityId: SP_ENTITY_ID, acsUrl: w.acsUrl, now: w.clock.now })
    const response = w.signedResponse(null)
    await w.sp.completeSignIn({ SAMLResponse: response })
    expect(await refusal(otherInstance.completeSignIn({ SAMLResponse: response }))).toBe("saml-replayed")
  })

  it("is refused when replayed later within its validity, on the same instance", async () => {
    const w = world({ connection: { allowIdpInitiated: true } })
    const response = w.signedResponse(null)
    await w.sp.completeSignIn({ SAMLResponse: response })
    w.clock.advance(200)
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: response }))).toBe("saml-replayed")
  })

  it("an SP-initiated answer replayed on another instance is refused", async () => {
    const w = world()
    const otherInstance = serviceProvider(w.connection, { store: w.store, spEntityId: SP_ENTITY_ID, acsUrl: w.acsUrl, now: w.clock.now })
    const requestId = await w.start()
    const response = w.signedResponse(requestId)
    await w.sp.completeSignIn({ SAMLResponse: response, RelayState: "state-1" })
    expect(["saml-unsolicited", "saml-replayed"]).toContain(await refusal(otherInstance.completeSignIn({ SAMLResponse: response, RelayState: "state-1" })))
  })
})

describe("audience, recipient and destination mismatches", () => {
  it("refuses an assertion for another audience", async () => {
    const w = world()
    const requestId = await w.start()
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId, { audience: "https://other-app.test" }), RelayState: "state-1" }))).toBe("saml-audience")
  })

  it("refuses an assertion for another recipient", async () => {
    const w = world()
    const requestId = await w.start()
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId, { recipient: "https://other-app.test/acs" }), RelayState: "state-1" }))).toBe("saml-recipient")
  })

  it("refuses an assertion for another connection's ACS URL of the same app", async () => {
    const w = world()
    const requestId = await w.start()
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId, { recipient: acsUrlOf("globex") }), RelayState: "state-1" }))).toBe("saml-recipient")
  })

  it("refuses a response for another destination", async () => {
    const w = world()
    const requestId = await w.start()
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId, {}, { destination: "https://other-app.test/acs" }), RelayState: "state-1" }))).toBe("saml-destination")
  })
})

describe("expired or future assertions", () => {
  it("refuses an assertion past its NotOnOrAfter beyond the clock skew", async () => {
    const w = world()
    const requestId = await w.start()
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId, { notOnOrAfter: -61 }), RelayState: "state-1" }))).toBe("saml-expired")
  })

  it("accepts one just past NotOnOrAfter within the skew", async () => {
    const w = world()
    const requestId = await w.start()
    expect((await w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId, { notOnOrAfter: -30 }), RelayState: "state-1" })).requestId).toBe(requestId)
  })

  it("refuses an assertion whose Conditions expired, even with its bearer confirmation still valid", async () => {
    const w = world()
    const requestId = await w.start()
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId, { notOnOrAfter: -61, confirmationNotOnOrAfter: 300 }), RelayState: "state-1" }))).toBe("saml-expired")
  })

  it("refuses an assertion whose bearer confirmation expired, even with Conditions still valid", async () => {
    const w = world()
    const requestId = await w.start()
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId, { notOnOrAfter: 300, confirmationNotOnOrAfter: -61 }), RelayState: "state-1" }))).toBe("saml-expired")
  })

  it("refuses an assertion that expired while it waited", async () => {
    const w = world()
    const requestId = await w.start()
    const response = w.signedResponse(requestId, { notOnOrAfter: 120 })
    w.clock.advance(181)
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: response, RelayState: "state-1" }))).toBe("saml-expired")
  })

  it("refuses an assertion whose NotBefore is beyond the skew in the future", async () => {
    const w = world()
    const requestId = await w.start()
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId, { notBefore: 120 }), RelayState: "state-1" }))).toBe("saml-not-yet-valid")
  })

  it("accepts a NotBefore within the skew", async () => {
    const w = world()
    const requestId = await w.start()
    expect((await w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId, { notBefore: 30 }), RelayState: "state-1" })).requestId).toBe(requestId)
  })
})

describe("XXE and entity expansion", () => {
  const HEAD = '<?xml version="1.0"?>'
  async function submitRaw(build: (response: string) => string) {
    const w = world()
    const requestId = await w.start()
    const response = Buffer.from(w.signedResponse(requestId), "base64").toString("utf8")
    return refusal(w.sp.completeSignIn({ SAMLResponse: encode(build(response)), RelayState: "state-1" }))
  }

  it("refuses an external entity pointing at a local file", async () => {
    const code = await submitRaw((r) => `${HEAD}<!DOCTYPE samlp:Response [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>` + r.replace("ada@acme.test</saml:NameID>", "&xxe;</saml:NameID>"))
    expect(code).toBe("saml-doctype")
  })

  it("refuses billion laughs", async () => {
    let dtd = '<!ENTITY lol0 "lol">'
    for (let i = 1; i <= 9; i++) dtd += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`
    const code = await submitRaw((r) => `${HEAD}<!DOCTYPE samlp:Response [${dtd}]>` + r.replace("ada@acme.test</saml:NameID>", "&lol9;</saml:NameID>"))
    expect(code).toBe("saml-doctype")
  })

  it("refuses a bare DOCTYPE (a parameter entity or external DTD needs nothing more)", async () => {
    expect(await submitRaw((r) => `${HEAD}<!DOCTYPE samlp:Response SYSTEM "http://attacker.test/x.dtd">` + r)).toBe("saml-doctype")
  })

  it("refuses a DOCTYPE in IdP metadata", () => {
    expect(() => parseIdpMetadata(`<!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/passwd">]><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="&x;"/>`)).toThrow(SamlRejected)
  })

  it("refuses a response over the size cap before parsing it", async () => {
    const w = world()
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: "A".repeat(256 * 1024 + 4) }))).toBe("saml-too-large")
  })

  it("refuses a response that is not base64", async () => {
    const w = world()
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: "<samlp:Response/>" }))).toBe("saml-malformed")
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: ["x"] }))).toBe("saml-malformed")
  })
})

describe("SHA-1 and none-style downgrades", () => {
  async function signedWith(o: { signatureAlgorithm: string; digestAlgorithm: string }, allowSha1 = false) {
    const w = world({ connection: { allowSha1 } })
    const requestId = await w.start()
    const response = w.idp.response(w.acsUrl, w.idp.sign(w.idp.assertion(w.acsUrl, { inResponseTo: requestId }), o))
    return w.sp.completeSignIn({ SAMLResponse: encode(response), RelayState: "state-1" })
  }

  it("refuses an RSA-SHA1 signature with a SHA-1 digest", async () => {
    expect(await refusal(signedWith({ signatureAlgorithm: RSA_SHA1, digestAlgorithm: SHA1 }))).toBe("saml-weak-algorithm")
  })

  it("refuses an RSA-SHA1 signature over a SHA-256 digest", async () => {
    expect(await refusal(signedWith({ signatureAlgorithm: RSA_SHA1, digestAlgorithm: SHA256 }))).toBe("saml-weak-algorithm")
  })

  it("refuses a SHA-1 digest under an RSA-SHA256 signature", async () => {
    expect(await refusal(signedWith({ signatureAlgorithm: RSA_SHA256, digestAlgorithm: SHA1 }))).toBe("saml-weak-algorithm")
  })

  it("accepts SHA-1 only on a connection that allows it (the policy, not the verifier, is what refuses it)", async () => {
    expect((await signedWith({ signatureAlgorithm: RSA_SHA1, digestAlgorithm: SHA1 }, true)).nameId).toBe("ada@acme.test")
  })

  for (const algorithm of ["http://www.w3.org/2000/09/xmldsig#hmac-sha1", "http://www.w3.org/2001/04/xmldsig-more#hmac-sha256", "none", ""]) {
    it(`refuses SignatureMethod ${JSON.stringify(algorithm)}`, async () => {
      const g = await genuine()
      only(g.assertion, DSIG_NS, "SignatureMethod").setAttribute("Algorithm", algorithm)
      expect(await refusal(g.submit(g.doc))).toBe("saml-weak-algorithm")
    })
  }

  it("refuses a decoy SignatureMethod in another namespace", async () => {
    const g = await genuine()
    const decoy = g.doc.createElementNS("urn:decoy", "x:SignatureMethod")
    decoy.setAttribute("Algorithm", "http://www.w3.org/2000/09/xmldsig#hmac-sha1")
    g.root.appendChild(decoy)
    expect(await refusal(g.submit(g.doc))).toBe("saml-weak-algorithm")
  })
})

describe("an assertion from another organization's IdP (cross-tenant)", () => {
  async function twoTenants() {
    const w = world()
    const globexIdp = testIdp("https://idp.globex.test", w.clock)
    const globex = serviceProvider(samlConnection("globex", globexIdp), { store: w.store, spEntityId: SP_ENTITY_ID, acsUrl: acsUrlOf("globex"), now: w.clock.now })
    return { w, globexIdp, globex }
  }

  it("refuses Globex's IdP answering Acme's request (its own issuer, its own key)", async () => {
    const { w, globexIdp } = await twoTenants()
    const requestId = await w.start()
    const response = globexIdp.response(w.acsUrl, globexIdp.sign(globexIdp.assertion(w.acsUrl, { inResponseTo: requestId, nameId: "ceo@acme.test" })))
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: encode(response), RelayState: "state-1" }))).toBe("saml-issuer")
  })

  it("refuses Globex's IdP key claiming Acme's IdP as issuer (the certificate it carries in KeyInfo is not trusted)", async () => {
    const { w, globexIdp } = await twoTenants()
    const requestId = await w.start()
    const response = globexIdp.response(w.acsUrl, globexIdp.sign(globexIdp.assertion(w.acsUrl, { inResponseTo: requestId, issuer: w.idp.entityId, nameId: "ceo@acme.test" })), { issuer: w.idp.entityId })
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: encode(response), RelayState: "state-1" }))).toBe("saml-invalid-signature")
  })

  it("refuses another tenant's assertion from a multi-tenant IdP that signs every tenant with one key", async () => {
    // Like a cloud IdP: one signing certificate, one issuer per tenant. The key verifies, so only the issuer tells them apart.
    const { w } = await twoTenants()
    const sharedKeyOtherTenant = testIdp("https://idp.acme.test/tenant/globex", w.clock, w.idp.key)
    const requestId = await w.start()
    const assertion = sharedKeyOtherTenant.sign(sharedKeyOtherTenant.assertion(w.acsUrl, { inResponseTo: requestId, nameId: "ceo@acme.test" }))
    const response = sharedKeyOtherTenant.response(w.acsUrl, assertion).replace(/<saml:Issuer>[^<]*<\/saml:Issuer>(<samlp:Status>)/, "$1")
    expect(response).not.toMatch(/<\/saml:Issuer><samlp:Status>/)
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: encode(response), RelayState: "state-1" }))).toBe("saml-issuer")
  })

  it("refuses a genuine Globex response posted to Acme's ACS", async () => {
    const { w, globexIdp, globex } = await twoTenants()
    const { requestId } = await globex.startSignIn({ relayState: "state-1" })
    const response = encode(globexIdp.response(acsUrlOf("globex"), globexIdp.sign(globexIdp.assertion(acsUrlOf("globex"), { inResponseTo: requestId }))))
    expect(["saml-destination", "saml-issuer", "saml-recipient"]).toContain(await refusal(w.sp.completeSignIn({ SAMLResponse: response, RelayState: "state-1" })))
    // …and it still works where it belongs: the refusal consumed nothing.
    expect((await globex.completeSignIn({ SAMLResponse: response, RelayState: "state-1" })).issuer).toBe("https://idp.globex.test")
  })
})

describe("a response to a request never made", () => {
  it("refuses an InResponseTo this app never issued", async () => {
    const w = world()
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: w.signedResponse("_fabricated-request"), RelayState: "state-1" }))).toBe("saml-unsolicited")
  })

  it("refuses an unsolicited assertion wrapped in a Response naming a real request", async () => {
    const w = world()
    const requestId = await w.start()
    // The signed assertion answers nothing; only the unsigned Response claims the request.
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(null, {}, { inResponseTo: requestId }), RelayState: "state-1" }))).toBe("saml-unsolicited")
  })

  it("refuses a Response whose InResponseTo disagrees with its signed assertion's", async () => {
    const w = world()
    const mine = await w.start()
    const theirs = await w.start()
    expect(await refusal(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(theirs, {}, { inResponseTo: mine }), RelayState: "state-1" }))).toBe("saml-unsolicited")
  })
})
