/**
 * Interoperability with a real IdP (SimpleSAMLphp): our SP metadata is what it knows us by,
 * its metadata is fetched and parsed by `fetchIdpMetadata`, and its signed (and encrypted)
 * responses pass `completeSignIn`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fetchIdpMetadata, generateSpKey, serviceProvider, type SamlServiceProvider } from "../../src/saml/index.js"
import { memorySsoStore } from "../../src/store/memory.js"
import type { Connection } from "../../src/store/types.js"
import { SP_ENTITY_ID, acsUrlOf } from "./idp-fixture.js"
import { browseToForm, simpleSamlPhpAvailable, startSimpleSamlPhp, type SimpleSamlPhp } from "./simplesamlphp.js"

const available = simpleSamlPhpAvailable()
const SLO_URL = "https://app.test/auth/sso/saml/acme/slo"
const user = { uid: ["ada"], mail: ["ada@acme.test"], eduPersonAffiliation: ["member", "staff"] }

function connectionFor(idp: { idpEntityId: string; ssoUrl: string; sloUrl?: string; certificates: string[] }, extra: Partial<Connection> = {}): Connection {
  return { id: "acme", organizationId: "org-acme", kind: "saml", name: "Acme", enabled: true, saml: { ...idp }, roleRules: [], defaultRole: "member", createdAt: new Date(), ...extra }
}

function suite(title: string, o: { idp?: Record<string, unknown>; saml?: Partial<NonNullable<Connection["saml"]>> }, body: (ctx: () => { ssp: SimpleSamlPhp; sp: SamlServiceProvider }) => void) {
  describe.runIf(available)(title, () => {
    const spKey = generateSpKey()
    const store = memorySsoStore()
    const acsUrl = acsUrlOf("acme")
    // The SP's metadata exists before the IdP does: the IdP's settings are not in it.
    const placeholder = serviceProvider(connectionFor({ idpEntityId: "x", ssoUrl: "https://x", certificates: ["x"] }, { spKey }), { store, spEntityId: SP_ENTITY_ID, acsUrl, sloUrl: SLO_URL })
    let ssp: SimpleSamlPhp
    let sp: SamlServiceProvider

    beforeAll(async () => {
      ssp = await startSimpleSamlPhp({ spMetadataXml: placeholder.metadata(), idpKey: generateSpKey({ commonName: "ssp idp" }), user, ...(o.idp ? { idp: o.idp } : {}) })
      const idp = await fetchIdpMetadata(ssp.metadataUrl, fetch, { allowLoopbackHttp: true })
      sp = serviceProvider(connectionFor({ ...idp, ...o.saml }, { spKey }), { store, spEntityId: SP_ENTITY_ID, acsUrl, sloUrl: SLO_URL })
    }, 30_000)
    afterAll(async () => {
      await ssp?.stop()
    })
    body(() => ({ ssp, sp }))
  })
}

async function signIn(sp: SamlServiceProvider, relayState: string, cookies = new Map<string, string>()) {
  const { url, requestId } = await sp.startSignIn({ relayState })
  const page = await browseToForm(url, cookies)
  if (!("fields" in page)) throw new Error(`expected the auto-POST form, got a redirect to ${page.redirect}`)
  expect(page.action).toBe(acsUrlOf("acme"))
  return { requestId, fields: page.fields }
}

suite("SimpleSAMLphp as the IdP: signed assertions", { idp: { "redirect.sign": true } }, (ctx) => {
  it("publishes metadata fetchIdpMetadata reads", async () => {
    const { ssp } = ctx()
    const idp = await fetchIdpMetadata(ssp.metadataUrl, fetch, { allowLoopbackHttp: true })
    expect(idp.idpEntityId).toBe(ssp.entityId)
    expect(idp.ssoUrl).toBe(`${ssp.baseUrl}/saml2/idp/SSOService.php`)
    expect(idp.certificates).toHaveLength(1)
  })

  it("signs a user in through an SP-initiated request", async () => {
    const { ssp, sp } = ctx()
    const page = await signIn(sp, "state-ssp")
    const { requestId } = page
    const result = await sp.completeSignIn(page.fields)
    expect(result).toMatchObject({ issuer: ssp.entityId, requestId, relayState: "state-ssp", email: "ada@acme.test" })
    expect(result.attributes).toMatchObject({ uid: ["ada"], mail: ["ada@acme.test"], eduPersonAffiliation: ["member", "staff"] })
    expect(result.nameId).toMatch(/\S/)
    // …and the same form posted again is refused.
    await expect(sp.completeSignIn(page.fields)).rejects.toMatchObject({ code: expect.stringMatching(/saml-(unsolicited|replayed)/) })
  })

  it("refuses its IdP-initiated (unsolicited) response, the connection not allowing it", async () => {
    const { ssp, sp } = ctx()
    const page = await browseToForm(`${ssp.baseUrl}/saml2/idp/SSOService.php?spentityid=${encodeURIComponent(SP_ENTITY_ID)}&RelayState=%2Fhome`)
    if (!("fields" in page)) throw new Error(`expected the auto-POST form, got a redirect to ${page.redirect}`)
    expect(page.fields.SAMLResponse).toBeTruthy()
    await expect(sp.completeSignIn(page.fields)).rejects.toMatchObject({ code: "saml-unsolicited" })
  })

  it("ends the IdP session through SP-initiated single logout, and we accept its signed LogoutResponse", async () => {
    const { sp } = ctx()
    const browser = new Map<string, string>()
    const page = await signIn(sp, "slo", browser)
    const who = await sp.completeSignIn(page.fields)
    const { url, requestId } = await sp.startLogout({ nameId: who.nameId, nameIdFormat: who.nameIdFormat, sessionIndex: who.sessionIndex, relayState: "/signed-out" })
    const back = await browseToForm(url, browser)
    if (!("redirect" in back)) throw new Error("expected a redirect back to the SP's SLO URL")
    const target = new URL(back.redirect)
    expect(target.origin + target.pathname).toBe(SLO_URL)
    expect(await sp.completeLogout(target.search.slice(1))).toEqual({ kind: "response", requestId, relayState: "/signed-out" })
  })
})

suite("SimpleSAMLphp as the IdP: encrypted assertions, IdP-initiated allowed", { idp: { "assertion.encryption": true }, saml: { encryptAssertions: true, allowIdpInitiated: true } }, (ctx) => {
  it("accepts its IdP-initiated response when the connection allows it", async () => {
    const { ssp, sp } = ctx()
    const page = await browseToForm(`${ssp.baseUrl}/saml2/idp/SSOService.php?spentityid=${encodeURIComponent(SP_ENTITY_ID)}&RelayState=%2Fhome`)
    if (!("fields" in page)) throw new Error(`expected the auto-POST form, got a redirect to ${page.redirect}`)
    expect(await sp.completeSignIn(page.fields)).toMatchObject({ requestId: null, relayState: "/home", email: "ada@acme.test" })
    await expect(sp.completeSignIn(page.fields)).rejects.toMatchObject({ code: "saml-replayed" })
  })

  it("encrypts to the key in our SP metadata, and we decrypt and verify it", async () => {
    const { ssp, sp } = ctx()
    const page = await signIn(sp, "enc")
    expect(Buffer.from(page.fields.SAMLResponse!, "base64").toString()).toContain("EncryptedAssertion")
    expect(await sp.completeSignIn(page.fields)).toMatchObject({ issuer: ssp.entityId, email: "ada@acme.test", requestId: page.requestId })
  })

  it("refuses its LogoutResponse when the IdP does not sign logout messages (its default)", async () => {
    const { sp } = ctx()
    const browser = new Map<string, string>()
    const page = await signIn(sp, "slo", browser)
    const who = await sp.completeSignIn(page.fields)
    const { url } = await sp.startLogout({ nameId: who.nameId, nameIdFormat: who.nameIdFormat, sessionIndex: who.sessionIndex, relayState: "/signed-out" })
    const back = await browseToForm(url, browser)
    if (!("redirect" in back)) throw new Error("expected a redirect back to the SP's SLO URL")
    await expect(sp.completeLogout(new URL(back.redirect).search.slice(1))).rejects.toMatchObject({ code: "saml-invalid-signature" })
  })
})
