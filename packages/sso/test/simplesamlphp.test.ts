/**
 * The SimpleSAMLphp harness, proven with @node-saml/node-saml as the SP (no Portcullis code):
 * what a real IdP sends — signed assertions, signed responses, encrypted assertions, a key
 * rollover, single logout — is what an SP built on node-saml accepts, and what it must
 * refuse it refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SAML, ValidateInResponseTo, type SamlConfig } from "@node-saml/node-saml"
import { certificateBody, generateSelfSignedPair, selfSignedPair } from "./fixtures/keys.js"
import {
  IdpAgent,
  IdpLoginError,
  SimpleSamlPhpError,
  loginThroughIdp,
  simpleSamlPhpAvailable,
  startSimpleSamlPhp,
  type PostedForm,
  type SimpleSamlPhpIdp,
} from "./fixtures/simplesamlphp.js"

const SP_ENTITY_ID = "https://sp.portcullis.test/saml/metadata"
// Never requested: the IdP agent stops at the IdP's origin and hands the message over.
const ACS_URL = "https://sp.portcullis.test/saml/acs"
const SLO_URL = "https://sp.portcullis.test/saml/slo"
const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"

const gate = simpleSamlPhpAvailable()

/** node-saml as an SP of `idp`, strict by default (both signatures, InResponseTo always). */
function serviceProvider(idp: SimpleSamlPhpIdp, overrides: Partial<SamlConfig> = {}): SAML {
  return new SAML({
    entryPoint: idp.ssoUrl,
    logoutUrl: idp.sloUrl,
    issuer: SP_ENTITY_ID,
    callbackUrl: ACS_URL,
    logoutCallbackUrl: SLO_URL,
    audience: SP_ENTITY_ID,
    idpCert: idp.certificates,
    identifierFormat: EMAIL_FORMAT,
    signatureAlgorithm: "sha256",
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: true,
    validateInResponseTo: ValidateInResponseTo.always,
    acceptedClockSkewMs: 5_000,
    ...overrides,
  })
}

async function signIn(saml: SAML, username = "alice", password = `${username}-password`, agent?: IdpAgent): Promise<PostedForm> {
  const url = await saml.getAuthorizeUrlAsync("relay-" + username, undefined, {})
  return loginThroughIdp(url, username, password, { agent })
}

function validate(saml: SAML, posted: PostedForm) {
  return saml.validatePostResponseAsync({ SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState ?? "" })
}

function xmlOf(posted: PostedForm): string {
  return Buffer.from(posted.SAMLResponse, "base64").toString("utf8")
}

/** The same response with its XML changed: what an attacker in the browser can post. */
function altered(posted: PostedForm, from: string, to: string): PostedForm {
  const xml = xmlOf(posted)
  expect(xml).toContain(from)
  return { ...posted, SAMLResponse: Buffer.from(xml.replaceAll(from, to)).toString("base64") }
}

function signatureCount(xml: string): number {
  return xml.match(/<ds:Signature\b/g)?.length ?? 0
}

/** Which element each `<ds:Signature>` signs: the response or the assertion. */
function signedElements(xml: string): string[] {
  return [...xml.matchAll(/<(samlp:Response|saml:Assertion)\b[^>]*>(?:<saml:Issuer>[^<]*<\/saml:Issuer>)?<ds:Signature\b/g)].map((m) => m[1]!)
}

gate.describe("SimpleSAMLphp as the IdP, node-saml as the SP", () => {
  describe("a signed assertion in an unsigned response", () => {
    let idp: SimpleSamlPhpIdp
    beforeAll(async () => {
      idp = await startSimpleSamlPhp({ sp: { entityId: SP_ENTITY_ID, acsUrl: ACS_URL }, signResponse: false, signAssertion: true })
    })
    afterAll(() => idp?.stop())

    it("gives the SP the NameID and the attributes, several values kept several", async () => {
      const saml = serviceProvider(idp, { wantAuthnResponseSigned: false })
      const posted = await signIn(saml)
      expect(posted.action).toBe(ACS_URL)
      expect(posted.RelayState).toBe("relay-alice")
      expect(signedElements(xmlOf(posted))).toEqual(["saml:Assertion"])

      const { profile, loggedOut } = await validate(saml, posted)
      expect(loggedOut).toBe(false)
      expect(profile?.issuer).toBe(idp.entityId)
      expect(profile?.nameID).toBe("alice@example.test")
      expect(profile?.nameIDFormat).toBe(EMAIL_FORMAT)
      expect(profile?.email).toBe("alice@example.test")
      expect(profile?.uid).toBe("alice")
      expect(profile?.displayName).toBe("Alice Example")
      expect(profile?.groups).toEqual(["staff", "admins"])
    })

    it("releases each user's own attributes", async () => {
      const saml = serviceProvider(idp, { wantAuthnResponseSigned: false })
      const { profile } = await validate(saml, await signIn(saml, "bob"))
      expect(profile?.nameID).toBe("bob@example.test")
      expect(profile?.groups).toBe("staff")
    })

    it("is refused by an SP that requires the response itself signed", async () => {
      const saml = serviceProvider(idp, { wantAuthnResponseSigned: true })
      await expect(validate(saml, await signIn(saml))).rejects.toThrow(/signature/i)
    })

    it("is refused once an attribute is altered", async () => {
      const saml = serviceProvider(idp, { wantAuthnResponseSigned: false })
      const posted = await signIn(saml)
      await expect(validate(saml, altered(posted, "alice@example.test", "mallory@example.test"))).rejects.toThrow(/signature/i)
    })

    it("is accepted once: a replay of the same response is refused", async () => {
      const saml = serviceProvider(idp, { wantAuthnResponseSigned: false })
      const posted = await signIn(saml)
      await expect(validate(saml, posted)).resolves.toMatchObject({ profile: { nameID: "alice@example.test" } })
      await expect(validate(saml, posted)).rejects.toThrow(/InResponseTo/i)
    })

    it("shows its login form again on a wrong password, and never answers the SP", async () => {
      const saml = serviceProvider(idp, { wantAuthnResponseSigned: false })
      const error = await signIn(saml, "alice", "not-her-password").catch((cause: unknown) => cause)
      expect(error).toBeInstanceOf(IdpLoginError)
      expect((error as IdpLoginError).code).toBe("wrong_credentials")
    })
  })

  describe("a signed response around an unsigned assertion", () => {
    let idp: SimpleSamlPhpIdp
    beforeAll(async () => {
      idp = await startSimpleSamlPhp({ sp: { entityId: SP_ENTITY_ID, acsUrl: ACS_URL }, signResponse: true, signAssertion: false })
    })
    afterAll(() => idp?.stop())

    it("is accepted by an SP that requires the response signed", async () => {
      const saml = serviceProvider(idp, { wantAssertionsSigned: false, wantAuthnResponseSigned: true })
      const posted = await signIn(saml)
      expect(signedElements(xmlOf(posted))).toEqual(["samlp:Response"])
      expect(signatureCount(xmlOf(posted))).toBe(1)
      const { profile } = await validate(saml, posted)
      expect(profile?.nameID).toBe("alice@example.test")
      expect(profile?.groups).toEqual(["staff", "admins"])
    })

    it("is refused by an SP that requires the assertion signed", async () => {
      const saml = serviceProvider(idp, { wantAssertionsSigned: true, wantAuthnResponseSigned: true })
      await expect(validate(saml, await signIn(saml))).rejects.toThrow(/signature/i)
    })

    it("is refused once the assertion inside is altered", async () => {
      const saml = serviceProvider(idp, { wantAssertionsSigned: false, wantAuthnResponseSigned: true })
      const posted = altered(await signIn(saml), "<saml:AttributeValue xsi:type=\"xs:string\">admins", "<saml:AttributeValue xsi:type=\"xs:string\">owners")
      await expect(validate(saml, posted)).rejects.toThrow(/signature/i)
    })
  })

  describe("an encrypted assertion", () => {
    let idp: SimpleSamlPhpIdp
    let sp: { privateKey: string; certificate: string }
    beforeAll(async () => {
      sp = await selfSignedPair("sp-encryption")
      idp = await startSimpleSamlPhp({
        sp: { entityId: SP_ENTITY_ID, acsUrl: ACS_URL, certificate: sp.certificate },
        encryptAssertions: true,
      })
    })
    afterAll(() => idp?.stop())

    it("carries no attribute in clear, and the SP with the key reads them all", async () => {
      const saml = serviceProvider(idp, { decryptionPvk: sp.privateKey })
      const posted = await signIn(saml)
      const xml = xmlOf(posted)
      expect(xml).toContain("<saml:EncryptedAssertion")
      expect(xml).toContain("http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p")
      // SimpleSAMLphp 1.19 always pairs RSA key transport with AES-128-CBC: an SP that only
      // accepted GCM could not talk to it.
      expect(xml).toContain("http://www.w3.org/2001/04/xmlenc#aes128-cbc")
      expect(xml).not.toContain("alice@example.test")
      expect(xml).not.toContain("admins")

      const { profile } = await validate(saml, posted)
      expect(profile?.nameID).toBe("alice@example.test")
      expect(profile?.email).toBe("alice@example.test")
      expect(profile?.groups).toEqual(["staff", "admins"])
    })

    it("is refused by an SP without the key, and by one with another key", async () => {
      const withoutKey = serviceProvider(idp)
      await expect(validate(withoutKey, await signIn(withoutKey))).rejects.toThrow(/decrypt|encrypt/i)
      const other = await selfSignedPair("sp-other")
      const wrongKey = serviceProvider(idp, { decryptionPvk: other.privateKey })
      await expect(validate(wrongKey, await signIn(wrongKey))).rejects.toThrow()
    })
  })

  describe("a signing-key rollover", () => {
    let idp: SimpleSamlPhpIdp
    let old: { privateKey: string; certificate: string }
    let next: { privateKey: string; certificate: string }
    beforeAll(async () => {
      ;[old, next] = await Promise.all([selfSignedPair("idp-rollover-old"), selfSignedPair("idp-rollover-new")])
      idp = await startSimpleSamlPhp({ sp: { entityId: SP_ENTITY_ID, acsUrl: ACS_URL }, signingKeys: [old] })
    })
    afterAll(() => idp?.stop())

    const accepts = async (idpCert: string[]) => {
      const saml = serviceProvider(idp, { idpCert })
      const { profile } = await validate(saml, await signIn(saml))
      return profile?.nameID
    }
    const refuses = async (idpCert: string[]) => {
      const saml = serviceProvider(idp, { idpCert })
      await expect(validate(saml, await signIn(saml))).rejects.toThrow(/signature/i)
    }

    it("keeps SPs trusting [old, new] signed in before, during and after; drops SPs trusting only the old key", async () => {
      // Before: signed with the old key, only it published.
      expect(idp.certificates).toEqual([old.certificate])
      expect(await accepts([old.certificate, next.certificate])).toBe("alice@example.test")
      expect(await accepts([old.certificate])).toBe("alice@example.test")
      await refuses([next.certificate])

      // Announced: the metadata lists the next key, signatures still come from the old one.
      await idp.announce(next)
      const announced = await idp.metadataXml()
      expect(announced).toContain(certificateBody(old.certificate))
      expect(announced).toContain(certificateBody(next.certificate))
      expect(await accepts([old.certificate])).toBe("alice@example.test")

      // Switched, both published: SPs that refreshed trust both and keep working.
      await idp.rotate(next, { publishBoth: true })
      expect(idp.certificates).toEqual([next.certificate, old.certificate])
      const both = await idp.metadataXml()
      expect(both).toContain(certificateBody(old.certificate))
      expect(both).toContain(certificateBody(next.certificate))
      expect(await accepts([old.certificate, next.certificate])).toBe("alice@example.test")
      expect(await accepts([next.certificate])).toBe("alice@example.test")
      await refuses([old.certificate])
    })

    it("publishes only the new certificate when the old one is retired", async () => {
      const newest = await generateSelfSignedPair("idp-rollover-newest")
      await idp.rotate(newest, { publishBoth: false })
      expect(idp.certificates).toEqual([newest.certificate])
      const metadata = await idp.metadataXml()
      expect(metadata).toContain(certificateBody(newest.certificate))
      expect(metadata).not.toContain(certificateBody(old.certificate))
      expect(metadata).not.toContain(certificateBody(next.certificate))
      expect(await accepts([newest.certificate])).toBe("alice@example.test")
      await refuses([old.certificate, next.certificate])
    })
  })

  describe("a rotation while sign-ins are in flight", () => {
    let idp: SimpleSamlPhpIdp
    let old: { privateKey: string; certificate: string }
    let next: { privateKey: string; certificate: string }
    beforeAll(async () => {
      ;[old, next] = await Promise.all([selfSignedPair("idp-busy-old"), selfSignedPair("idp-busy-new")])
      idp = await startSimpleSamlPhp({ sp: { entityId: SP_ENTITY_ID, acsUrl: ACS_URL }, signingKeys: [old] })
    })
    afterAll(() => idp?.stop())

    it("every one of 30 concurrent responses is signed by the old key or the new one, never broken", async () => {
      const saml = serviceProvider(idp, { idpCert: [old.certificate, next.certificate] })
      const signIns = Array.from({ length: 30 }, () => signIn(saml))
      await idp.rotate(next, { publishBoth: true })
      const results = await Promise.allSettled((await Promise.all(signIns)).map((posted) => validate(saml, posted)))
      expect(results.filter((r) => r.status === "rejected")).toEqual([])
      // After the rotation settled, only the new key signs.
      const onlyNew = serviceProvider(idp, { idpCert: [next.certificate] })
      await expect(validate(onlyNew, await signIn(onlyNew))).resolves.toMatchObject({ profile: { nameID: "alice@example.test" } })
    })
  })

  describe("single logout", () => {
    let idp: SimpleSamlPhpIdp
    let sp: { privateKey: string; certificate: string }
    beforeAll(async () => {
      sp = await selfSignedPair("sp-logout")
      idp = await startSimpleSamlPhp({
        sp: { entityId: SP_ENTITY_ID, acsUrl: ACS_URL, sloUrl: SLO_URL, certificate: sp.certificate, requireSignedRequests: true },
      })
    })
    afterAll(() => idp?.stop())

    it("ends the IdP session on the SP's signed LogoutRequest and answers with a signed LogoutResponse", async () => {
      const saml = serviceProvider(idp, { privateKey: sp.privateKey })
      const agent = new IdpAgent()
      const { profile } = await validate(saml, await signIn(saml, "alice", "alice-password", agent))
      expect(profile?.sessionIndex).toBeTruthy()

      // Single sign-on: with the IdP session, no password is asked (a wrong one is never posted).
      const again = await validate(saml, await signIn(saml, "alice", "unused", agent))
      expect(again.profile?.nameID).toBe("alice@example.test")

      const logoutUrl = await saml.getLogoutUrlAsync(profile!, "bye", {})
      const landing = await agent.navigate(logoutUrl)
      expect(landing.redirectedTo).toMatch(new RegExp(`^${SLO_URL}\\?`))
      const answer = new URL(landing.redirectedTo!)
      expect(answer.searchParams.get("Signature")).toBeTruthy()
      const result = await saml.validateRedirectAsync(Object.fromEntries(answer.searchParams), answer.search.slice(1))
      expect(result.loggedOut).toBe(true)

      // The IdP session is gone: the login form is back.
      const error = await signIn(saml, "alice", "unused", agent).catch((cause: unknown) => cause)
      expect((error as IdpLoginError).code).toBe("wrong_credentials")
    })

    it("refuses an unsigned AuthnRequest when the SP must sign, and accepts the signed one", async () => {
      const unsigned = serviceProvider(idp)
      const refused = await signIn(unsigned).catch((cause: unknown) => cause)
      expect((refused as IdpLoginError).code).toBe("unexpected_page")
      expect((refused as IdpLoginError).message).toContain("no signature found on message")
      const signing = serviceProvider(idp, { privateKey: sp.privateKey })
      const url = new URL(await signing.getAuthorizeUrlAsync("", undefined, {}))
      expect(url.searchParams.get("SigAlg")).toBe("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256")
      await expect(validate(signing, await loginThroughIdp(url.href, "alice", "alice-password"))).resolves.toMatchObject({
        profile: { nameID: "alice@example.test" },
      })
    })

    it("refuses an unsigned LogoutRequest when the SP must sign, and keeps the session", async () => {
      const signing = serviceProvider(idp, { privateKey: sp.privateKey })
      const agent = new IdpAgent()
      const { profile } = await validate(signing, await signIn(signing, "alice", "alice-password", agent))
      const unsigned = serviceProvider(idp)
      const landing = await agent.navigate(await unsigned.getLogoutUrlAsync(profile!, "bye", {}))
      expect(landing.redirectedTo).toBeNull()
      // SimpleSAMLphp 1.19 shows its error page with status 200; its text says why.
      expect(landing.html).toContain("Validation of received messages enabled, but no signature found on message")
      // Still signed in at the IdP.
      const again = await validate(signing, await signIn(signing, "alice", "unused", agent))
      expect(again.profile?.nameID).toBe("alice@example.test")
    })
  })

  describe("two SPs at one IdP", () => {
    const OTHER_ENTITY_ID = "https://other.portcullis.test/saml/metadata"
    const OTHER_ACS_URL = "https://other.portcullis.test/saml/acs"
    const TRANSIENT = "urn:oasis:names:tc:SAML:2.0:nameid-format:transient"
    let idp: SimpleSamlPhpIdp
    beforeAll(async () => {
      idp = await startSimpleSamlPhp({
        sp: [
          { entityId: SP_ENTITY_ID, acsUrl: ACS_URL },
          { entityId: OTHER_ENTITY_ID, acsUrl: OTHER_ACS_URL, nameIdFormat: TRANSIENT },
        ],
      })
    })
    afterAll(() => idp?.stop())

    const other = () =>
      serviceProvider(idp, { issuer: OTHER_ENTITY_ID, audience: OTHER_ENTITY_ID, callbackUrl: OTHER_ACS_URL, identifierFormat: TRANSIENT })

    it("answers each at its own ACS, with the NameID format each is configured for", async () => {
      const first = await signIn(serviceProvider(idp))
      expect(first.action).toBe(ACS_URL)
      const otherSp = other()
      const posted = [await signIn(otherSp), await signIn(otherSp)]
      expect(posted[0]!.action).toBe(OTHER_ACS_URL)
      const profiles = await Promise.all(posted.map((form) => validate(otherSp, form)))
      expect(profiles.map((p) => p.profile?.nameIDFormat)).toEqual([TRANSIENT, TRANSIENT])
      // Transient: a fresh opaque NameID each time, never the email.
      expect(profiles[0]!.profile?.nameID).not.toBe(profiles[1]!.profile?.nameID)
      expect(profiles[0]!.profile?.nameID).not.toContain("@")
      expect(profiles[0]!.profile?.email).toBe("alice@example.test")
    })

    it("an assertion for one SP is refused by the other (audience)", async () => {
      const forFirst = await signIn(serviceProvider(idp))
      expect(xmlOf(forFirst)).toContain(`<saml:Audience>${SP_ENTITY_ID}</saml:Audience>`)
      // InResponseTo unchecked here, so the audience is the only thing that can refuse it.
      const otherSp = serviceProvider(idp, { audience: OTHER_ENTITY_ID, validateInResponseTo: ValidateInResponseTo.never })
      await expect(validate(otherSp, forFirst)).rejects.toThrow(/audience/i)
      const firstSp = serviceProvider(idp, { validateInResponseTo: ValidateInResponseTo.never })
      await expect(validate(firstSp, forFirst)).resolves.toMatchObject({ profile: { nameID: "alice@example.test" } })
    })
  })

  describe("SPs the IdP knows, and responses nobody asked for", () => {
    const LATE_ENTITY_ID = "https://late.portcullis.test/saml/metadata"
    const LATE_ACS_URL = "https://late.portcullis.test/saml/acs"
    let idp: SimpleSamlPhpIdp
    beforeAll(async () => {
      idp = await startSimpleSamlPhp({ sp: { entityId: SP_ENTITY_ID, acsUrl: ACS_URL } })
    })
    afterAll(() => idp?.stop())

    const late = () => serviceProvider(idp, { issuer: LATE_ENTITY_ID, audience: LATE_ENTITY_ID, callbackUrl: LATE_ACS_URL })

    it("answers no SP it does not know, and the one registered after start", async () => {
      const unknown = await signIn(late()).catch((cause: unknown) => cause)
      expect(unknown).toBeInstanceOf(IdpLoginError)
      expect((unknown as IdpLoginError).code).toBe("unexpected_page")
      expect((unknown as IdpLoginError).message).toContain(`Unable to locate metadata for '${LATE_ENTITY_ID}'`)

      await idp.setServiceProviders([
        { entityId: SP_ENTITY_ID, acsUrl: ACS_URL },
        { entityId: LATE_ENTITY_ID, acsUrl: LATE_ACS_URL },
      ])
      const sp = late()
      const posted = await signIn(sp)
      expect(posted.action).toBe(LATE_ACS_URL)
      await expect(validate(sp, posted)).resolves.toMatchObject({ profile: { nameID: "alice@example.test" } })
    })

    it("sends an IdP-initiated response without InResponseTo, which an SP that always checks it refuses", async () => {
      const posted = await loginThroughIdp(idp.unsolicitedUrl(SP_ENTITY_ID, "deep-link"), "alice", "alice-password")
      expect(posted.action).toBe(ACS_URL)
      expect(posted.RelayState).toBe("deep-link")
      expect(xmlOf(posted)).not.toContain("InResponseTo=")
      await expect(validate(serviceProvider(idp), posted)).rejects.toThrow(/InResponseTo/i)
      const lenient = serviceProvider(idp, { validateInResponseTo: ValidateInResponseTo.ifPresent })
      await expect(validate(lenient, posted)).resolves.toMatchObject({ profile: { nameID: "alice@example.test" } })
    })
  })

  describe("many sign-ins at once", () => {
    let idp: SimpleSamlPhpIdp
    beforeAll(async () => {
      idp = await startSimpleSamlPhp({ sp: { entityId: SP_ENTITY_ID, acsUrl: ACS_URL } })
    })
    afterAll(() => idp?.stop())

    it("serves 50 concurrent browsers, each its own session and response, each accepted once", async () => {
      const saml = serviceProvider(idp)
      const users = Array.from({ length: 50 }, (_, i) => (i % 2 ? "bob" : "alice"))
      const posted = await Promise.all(users.map((user) => signIn(saml, user)))
      const profiles = await Promise.all(posted.map((form) => validate(saml, form)))
      expect(profiles.map((p) => p.profile?.nameID)).toEqual(users.map((user) => `${user}@example.test`))
      expect(new Set(profiles.map((p) => p.profile?.sessionIndex)).size).toBe(50)
      const replays = await Promise.allSettled(posted.map((form) => validate(saml, form)))
      expect(replays.every((r) => r.status === "rejected")).toBe(true)
    })
  })

  describe("two IdPs at once", () => {
    let first: SimpleSamlPhpIdp
    let second: SimpleSamlPhpIdp
    beforeAll(async () => {
      const [a, b] = await Promise.all([selfSignedPair("idp-first"), selfSignedPair("idp-second")])
      ;[first, second] = await Promise.all([
        startSimpleSamlPhp({ sp: { entityId: SP_ENTITY_ID, acsUrl: ACS_URL }, signingKeys: [a] }),
        startSimpleSamlPhp({ sp: { entityId: SP_ENTITY_ID, acsUrl: ACS_URL }, signingKeys: [b] }),
      ])
    })
    afterAll(() => Promise.all([first?.stop(), second?.stop()]))

    it("run apart: an SP of the first refuses what the second IdP signed", async () => {
      expect(first.origin).not.toBe(second.origin)
      const ofFirst = serviceProvider(first)
      // The second IdP answers a request the first IdP's SP really made (so InResponseTo matches).
      const request = new URL(await ofFirst.getAuthorizeUrlAsync("", undefined, {}))
      const forged = await loginThroughIdp(`${second.ssoUrl}${request.search}`, "alice", "alice-password")
      await expect(validate(ofFirst, forged)).rejects.toThrow(/signature/i)
    })
  })

  describe("faults", () => {
    it("a stopped IdP is a clear 'unreachable', not a hang", async () => {
      const idp = await startSimpleSamlPhp({ sp: { entityId: SP_ENTITY_ID, acsUrl: ACS_URL } })
      const url = await serviceProvider(idp).getAuthorizeUrlAsync("", undefined, {})
      await idp.stop()
      const error = await loginThroughIdp(url, "alice", "alice-password").catch((cause: unknown) => cause)
      expect(error).toBeInstanceOf(IdpLoginError)
      expect((error as IdpLoginError).code).toBe("unreachable")
      await expect(fetch(idp.metadataUrl)).rejects.toThrow()
    })

    it("refuses options SimpleSAMLphp would misread, before starting anything", async () => {
      const refused = (options: Parameters<typeof startSimpleSamlPhp>[0]) =>
        startSimpleSamlPhp(options).then(
          () => "started",
          (cause: unknown) => (cause instanceof SimpleSamlPhpError ? cause.code : String(cause)),
        )
      const sp = { entityId: SP_ENTITY_ID, acsUrl: ACS_URL }
      expect(await refused({ sp, users: [{ username: "a:b", password: "x", attributes: {} }] })).toBe("bad_options")
      expect(await refused({ sp, encryptAssertions: true })).toBe("bad_options")
      expect(await refused({ sp: { ...sp, acsUrl: "/relative" } })).toBe("bad_options")
    })

    it("the gate fails in CI and skips elsewhere when PHP is missing", () => {
      const missing = { PHP_BINARY: "/nonexistent/php" }
      const inCi = simpleSamlPhpAvailable({ ...missing, CI: "true" })
      expect(inCi.available).toBe(false)
      expect(inCi.error?.message).toMatch(/apt-get install/)
      expect(simpleSamlPhpAvailable({ ...missing, SIMPLESAMLPHP_DIR: "/nonexistent" }).error?.message).toMatch(/not found/)
      expect(simpleSamlPhpAvailable({}).available).toBe(true)
    })
  })
})
