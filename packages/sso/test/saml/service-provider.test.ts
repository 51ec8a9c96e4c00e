import { inflateRawSync } from "node:zlib"
import { describe, expect, it } from "vitest"
import { SamlRejected, generateSpKey, serviceProvider } from "../../src/saml/index.js"
import { memorySsoStore } from "../../src/store/memory.js"
import type { SsoStore } from "../../src/store/types.js"
import { SP_ENTITY_ID, acsUrlOf, encode, samlConnection, testClock, testIdp, world } from "./idp-fixture.js"

async function rejection(promise: Promise<unknown>): Promise<SamlRejected> {
  const error = await promise.then(() => null, (e: unknown) => e)
  expect(error).toBeInstanceOf(SamlRejected)
  return error as SamlRejected
}

describe("an SP-initiated sign-in with a signed assertion", () => {
  it("names the user, their attributes and email, and the request it answers", async () => {
    const w = world()
    const requestId = await w.start("state-1")
    const result = await w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId, { nameId: "ada@acme.test", attributes: { mail: ["Ada@Acme.test"], groups: ["eng", "admins"] } }), RelayState: "state-1" })
    expect(result).toEqual({
      nameId: "ada@acme.test",
      nameIdFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
      sessionIndex: "_session1",
      issuer: "https://idp.acme.test",
      attributes: { mail: ["Ada@Acme.test"], groups: ["eng", "admins"] },
      email: "Ada@Acme.test",
      requestId,
      relayState: "state-1",
    })
  })

  it("takes the email from an emailAddress NameID when no attribute carries one", async () => {
    const w = world()
    const requestId = await w.start()
    const result = await w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId, { nameId: "bo@acme.test", attributes: { groups: ["x"] } }), RelayState: "state-1" })
    expect(result.email).toBe("bo@acme.test")
  })

  it("gives no email for a persistent NameID without a mail attribute", async () => {
    const w = world()
    const requestId = await w.start()
    const result = await w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId, { nameId: "u-81723", nameIdFormat: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent", attributes: {} }), RelayState: "state-1" })
    expect(result).toMatchObject({ nameId: "u-81723", email: null, attributes: {} })
  })
})

describe("a signed response around a signed assertion", () => {
  it("is accepted", async () => {
    const w = world()
    const requestId = await w.start()
    const assertion = w.idp.sign(w.idp.assertion(w.acsUrl, { inResponseTo: requestId }))
    const response = w.idp.sign(w.idp.response(w.acsUrl, assertion))
    const result = await w.sp.completeSignIn({ SAMLResponse: encode(response), RelayState: "state-1" })
    expect(result.requestId).toBe(requestId)
  })

  it("is refused when only the response is signed (assertions must be signed)", async () => {
    const w = world()
    const requestId = await w.start()
    const response = w.idp.sign(w.idp.response(w.acsUrl, w.idp.assertion(w.acsUrl, { inResponseTo: requestId })))
    expect((await rejection(w.sp.completeSignIn({ SAMLResponse: encode(response), RelayState: "state-1" }))).code).toBe("saml-invalid-signature")
  })
})

describe("an encrypted assertion", () => {
  it("is decrypted with the connection's key and accepted", async () => {
    const spKey = generateSpKey()
    const w = world({ connection: { spKey, encryptAssertions: true } })
    const requestId = await w.start()
    const encrypted = await w.idp.encrypt(w.idp.sign(w.idp.assertion(w.acsUrl, { inResponseTo: requestId, nameId: "enc@acme.test" })), spKey.certificate)
    const result = await w.sp.completeSignIn({ SAMLResponse: encode(w.idp.response(w.acsUrl, encrypted, { inResponseTo: requestId })), RelayState: "state-1" })
    expect(result).toMatchObject({ nameId: "enc@acme.test", requestId })
  })

  it("is required when the connection asks for encryption: a plaintext signed assertion is refused", async () => {
    const w = world({ connection: { spKey: generateSpKey(), encryptAssertions: true } })
    const requestId = await w.start()
    expect((await rejection(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId), RelayState: "state-1" }))).code).toBe("saml-unencrypted")
  })

  it("is refused when encrypted to another key", async () => {
    const w = world({ connection: { spKey: generateSpKey() } })
    const requestId = await w.start()
    const encrypted = await w.idp.encrypt(w.idp.sign(w.idp.assertion(w.acsUrl, { inResponseTo: requestId })), generateSpKey().certificate)
    expect((await rejection(w.sp.completeSignIn({ SAMLResponse: encode(w.idp.response(w.acsUrl, encrypted, { inResponseTo: requestId })), RelayState: "state-1" }))).code).toBe("saml-malformed")
  })

  it("must be signed inside: an unsigned encrypted assertion is refused", async () => {
    const spKey = generateSpKey()
    const w = world({ connection: { spKey } })
    const requestId = await w.start()
    const encrypted = await w.idp.encrypt(w.idp.assertion(w.acsUrl, { inResponseTo: requestId }), spKey.certificate)
    expect((await rejection(w.sp.completeSignIn({ SAMLResponse: encode(w.idp.response(w.acsUrl, encrypted, { inResponseTo: requestId })), RelayState: "state-1" }))).code).toBe("saml-invalid-signature")
  })
})

describe("a response whose status is not Success", () => {
  it("is refused without an assertion", async () => {
    const w = world()
    const requestId = await w.start()
    const response = w.idp.response(w.acsUrl, "", { inResponseTo: requestId, status: "urn:oasis:names:tc:SAML:2.0:status:Responder" })
    expect((await rejection(w.sp.completeSignIn({ SAMLResponse: encode(response), RelayState: "state-1" }))).code).toBe("saml-idp-error")
  })

  it("is refused even when it carries a validly signed assertion", async () => {
    const w = world()
    const requestId = await w.start()
    const assertion = w.idp.sign(w.idp.assertion(w.acsUrl, { inResponseTo: requestId }))
    const response = w.idp.response(w.acsUrl, assertion, { status: "urn:oasis:names:tc:SAML:2.0:status:Requester" })
    expect((await rejection(w.sp.completeSignIn({ SAMLResponse: encode(response), RelayState: "state-1" }))).code).toBe("saml-idp-error")
  })
})

describe("certificate rollover", () => {
  const clock = testClock()
  const oldIdp = testIdp("https://idp.acme.test", clock)
  const newIdp = testIdp("https://idp.acme.test", clock)
  const thirdIdp = testIdp("https://idp.acme.test", clock)
  const store = memorySsoStore({ now: clock.ms })
  const connection = samlConnection("acme", oldIdp, { certificates: [oldIdp.certificate, newIdp.certificate] })
  const acsUrl = acsUrlOf("acme")
  const sp = serviceProvider(connection, { store, spEntityId: SP_ENTITY_ID, acsUrl, now: clock.now })
  const answer = async (idp: typeof oldIdp) => {
    const { requestId } = await sp.startSignIn({ relayState: "r" })
    return sp.completeSignIn({ SAMLResponse: encode(idp.response(acsUrl, idp.sign(idp.assertion(acsUrl, { inResponseTo: requestId })))), RelayState: "r" })
  }

  it("accepts assertions signed with the old certificate", async () => {
    expect((await answer(oldIdp)).issuer).toBe("https://idp.acme.test")
  })
  it("accepts assertions signed with the new certificate", async () => {
    expect((await answer(newIdp)).issuer).toBe("https://idp.acme.test")
  })
  it("refuses a third certificate", async () => {
    expect((await rejection(answer(thirdIdp))).code).toBe("saml-invalid-signature")
  })
})

describe("InResponseTo is bound to a request this app made for this connection, once", () => {
  it("refuses a response to an unknown request", async () => {
    const w = world()
    await w.start()
    expect((await rejection(w.sp.completeSignIn({ SAMLResponse: w.signedResponse("_never-issued"), RelayState: "state-1" }))).code).toBe("saml-unsolicited")
  })

  it("refuses a response to another connection's request", async () => {
    const w = world()
    const otherIdp = testIdp("https://idp.other.test", w.clock)
    const other = serviceProvider(samlConnection("other", otherIdp), { store: w.store, spEntityId: SP_ENTITY_ID, acsUrl: acsUrlOf("other"), now: w.clock.now })
    const { requestId } = await other.startSignIn({ relayState: "state-1" })
    expect((await rejection(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId), RelayState: "state-1" }))).code).toBe("saml-unsolicited")
  })

  it("refuses a second response to the same request", async () => {
    const w = world()
    const requestId = await w.start()
    await w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId), RelayState: "state-1" })
    // A fresh assertion (new ID), so only the request's single use can refuse it.
    expect((await rejection(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId), RelayState: "state-1" }))).code).toBe("saml-unsolicited")
  })

  it("refuses a response once the request is older than requestMaxAge", async () => {
    const w = world({ sp: { requestMaxAge: 60 } })
    const requestId = await w.start()
    w.clock.advance(61)
    expect((await rejection(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId), RelayState: "state-1" }))).code).toBe("saml-unsolicited")
  })

  it("takes an empty relay state and none as the same", async () => {
    const w = world()
    const requestId = await w.start("")
    expect((await w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId) })).relayState).toBeNull()
  })

  it("refuses a response whose RelayState is not the request's", async () => {
    const w = world()
    const requestId = await w.start("state-1")
    expect((await rejection(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId), RelayState: "state-evil" }))).code).toBe("saml-relay-state")
  })
})

describe("IdP-initiated sign-in", () => {
  it("is refused by default", async () => {
    const w = world()
    expect((await rejection(w.sp.completeSignIn({ SAMLResponse: w.signedResponse(null), RelayState: "/dashboard" }))).code).toBe("saml-unsolicited")
  })

  it("is accepted when the connection allows it, with the form's relay state and no request", async () => {
    const w = world({ connection: { allowIdpInitiated: true } })
    const result = await w.sp.completeSignIn({ SAMLResponse: w.signedResponse(null), RelayState: "/dashboard" })
    expect(result).toMatchObject({ requestId: null, relayState: "/dashboard", nameId: "ada@acme.test" })
  })

  it("is still single-use when allowed", async () => {
    const w = world({ connection: { allowIdpInitiated: true } })
    const response = w.signedResponse(null)
    await w.sp.completeSignIn({ SAMLResponse: response })
    expect((await rejection(w.sp.completeSignIn({ SAMLResponse: response }))).code).toBe("saml-replayed")
  })
})

describe("startSignIn", () => {
  it("redirects to the IdP with a deflated AuthnRequest naming this SP, its ACS URL and the recorded ID", async () => {
    const w = world()
    const { url, requestId } = await w.sp.startSignIn({ relayState: "state-9" })
    const target = new URL(url)
    expect(target.origin + target.pathname).toBe("https://idp.acme.test/sso")
    expect(target.searchParams.get("RelayState")).toBe("state-9")
    const request = inflateRawSync(Buffer.from(target.searchParams.get("SAMLRequest")!, "base64")).toString("utf8")
    expect(request).toContain(`ID="${requestId}"`)
    expect(request).toContain(`AssertionConsumerServiceURL="${w.acsUrl}"`)
    expect(request).toContain(`>${SP_ENTITY_ID}</saml:Issuer>`)
    expect(JSON.parse((await w.store.take("saml-request", requestId))!)).toEqual({ connectionId: "acme", relayState: "state-9" })
  })

  it("signs the request (SHA-256) when the connection has a key", async () => {
    const w = world({ connection: { spKey: generateSpKey() } })
    const { url } = await w.sp.startSignIn({ relayState: "s" })
    const target = new URL(url)
    expect(target.searchParams.get("SigAlg")).toBe("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256")
    expect(target.searchParams.get("Signature")).toBeTruthy()
  })
})

describe("SP metadata", () => {
  it("publishes the entity ID, the ACS URL (HTTP-POST) and WantAssertionsSigned, without a key when the connection has none", () => {
    const w = world()
    const xml = w.sp.metadata()
    expect(xml).toContain(`entityID="${SP_ENTITY_ID}"`)
    expect(xml).toContain('WantAssertionsSigned="true"')
    expect(xml).toContain('AuthnRequestsSigned="false"')
    expect(xml).toMatch(new RegExp(`AssertionConsumerService[^>]*Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"[^>]*Location="${w.acsUrl}"`))
    expect(xml).not.toContain("KeyDescriptor")
    expect(xml).not.toContain("SingleLogoutService")
  })

  it("publishes the connection's certificate for signing and encryption, and the SLO URL when given", () => {
    const spKey = generateSpKey()
    const w = world({ connection: { spKey }, sp: { sloUrl: "https://app.test/auth/sso/saml/acme/slo" } })
    const xml = w.sp.metadata()
    const bare = spKey.certificate.replace(/-----[^-]+-----|\s/g, "")
    expect(xml).toContain('AuthnRequestsSigned="true"')
    expect(xml).toMatch(/KeyDescriptor use="signing"/)
    expect(xml).toMatch(/KeyDescriptor use="encryption"/)
    expect(xml.replace(/\s/g, "")).toContain(bare)
    expect(xml).toMatch(/<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https:\/\/app.test\/auth\/sso\/saml\/acme\/slo"\/>/)
  })
})

describe("a store that fails", () => {
  const failing = (base: SsoStore, method: "take" | "useOnce" | "put"): SsoStore => ({ ...base, [method]: async () => { throw new Error("store down") } })

  it("lets startSignIn's failure through unchanged (the integrator's wrapStore answers 503)", async () => {
    const w = world()
    const sp = serviceProvider(w.connection, { store: failing(w.store, "put"), spEntityId: SP_ENTITY_ID, acsUrl: w.acsUrl, now: w.clock.now })
    await expect(sp.startSignIn({ relayState: "s" })).rejects.toThrow("store down")
  })

  it("lets a failing take through unchanged and records no assertion", async () => {
    const w = world()
    const requestId = await w.start()
    const assertionId = "_assertion-take-fails"
    const sp = serviceProvider(w.connection, { store: failing(w.store, "take"), spEntityId: SP_ENTITY_ID, acsUrl: w.acsUrl, now: w.clock.now })
    const error = await sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId, { id: assertionId }), RelayState: "state-1" }).catch((e: unknown) => e)
    expect(error).not.toBeInstanceOf(SamlRejected)
    expect((error as Error).message).toBe("store down")
    expect(await w.store.useOnce("saml-assertion", `https://idp.acme.test\n${assertionId}`, new Date(w.clock.ms() + 60_000))).toBe(true)
  })

  it("lets a failing useOnce through unchanged", async () => {
    const w = world()
    const requestId = await w.start()
    const sp = serviceProvider(w.connection, { store: failing(w.store, "useOnce"), spEntityId: SP_ENTITY_ID, acsUrl: w.acsUrl, now: w.clock.now })
    const error = await sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId), RelayState: "state-1" }).catch((e: unknown) => e)
    expect(error).not.toBeInstanceOf(SamlRejected)
    expect((error as Error).message).toBe("store down")
  })

  it("checks everything before touching the store: a bad signature never consumes the request", async () => {
    const w = world()
    const requestId = await w.start()
    const stranger = testIdp("https://idp.acme.test", w.clock)
    const forged = encode(stranger.response(w.acsUrl, stranger.sign(stranger.assertion(w.acsUrl, { inResponseTo: requestId }))))
    expect((await rejection(w.sp.completeSignIn({ SAMLResponse: forged, RelayState: "state-1" }))).code).toBe("saml-invalid-signature")
    // The genuine answer still works: the request was not burned by the forgery.
    expect((await w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId), RelayState: "state-1" })).requestId).toBe(requestId)
  })
})

describe("50 concurrent completions of one response", () => {
  it("let exactly one through; the others are refused", async () => {
    const w = world()
    const requestId = await w.start()
    const response = w.signedResponse(requestId)
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => w.sp.completeSignIn({ SAMLResponse: response, RelayState: "state-1" })))
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1)
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected")
    expect(refused).toHaveLength(49)
    for (const r of refused) expect(r.reason).toBeInstanceOf(SamlRejected)
  })

  it("over two service providers sharing one store, still exactly one", async () => {
    const w = world()
    const second = serviceProvider(w.connection, { store: w.store, spEntityId: SP_ENTITY_ID, acsUrl: w.acsUrl, now: w.clock.now })
    const requestId = await w.start()
    const response = w.signedResponse(requestId)
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => (i % 2 ? second : w.sp).completeSignIn({ SAMLResponse: response, RelayState: "state-1" })))
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1)
  })
})
