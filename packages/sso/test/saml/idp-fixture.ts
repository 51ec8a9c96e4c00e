/**
 * A test identity provider: real keys (node:crypto), real XML signatures (xml-crypto's
 * SignedXml), real encryption (xml-encryption, node-saml's own). It builds each part of a
 * Response on its own so the attacker suite can take them apart and rewrap them.
 */
import { createPublicKey } from "node:crypto"
import { SignedXml } from "xml-crypto"
import * as xmlenc from "xml-encryption"
import { generateSpKey, type SpKey } from "../../src/saml/keys.js"
import { memorySsoStore } from "../../src/store/memory.js"
import type { Connection, SsoStore } from "../../src/store/types.js"
import { serviceProvider, type SamlOptions } from "../../src/saml/index.js"

export const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
export const RSA_SHA1 = "http://www.w3.org/2000/09/xmldsig#rsa-sha1"
export const SHA256 = "http://www.w3.org/2001/04/xmlenc#sha256"
export const SHA1 = "http://www.w3.org/2000/09/xmldsig#sha1"
const EXC_C14N = "http://www.w3.org/2001/10/xml-exc-c14n#"
const ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"

export const SP_ENTITY_ID = "https://app.test/auth/sso/saml"
export const acsUrlOf = (connectionId: string) => `https://app.test/auth/sso/saml/${connectionId}/acs`

/** A test clock both the store and the service provider read. */
export function testClock(start = Date.now()) {
  let t = start
  return { now: () => new Date(t), ms: () => t, advance: (seconds: number) => { t += seconds * 1000 } }
}
export type TestClock = ReturnType<typeof testClock>

const iso = (ms: number) => new Date(ms).toISOString()
const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
let counter = 0
const newId = () => `_id${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2)}`

export interface AssertionOptions {
  id?: string
  issuer?: string
  nameId?: string
  /** Raw XML for the NameID's content (a comment inside it); wins over `nameId`. */
  nameIdXml?: string
  nameIdFormat?: string
  sessionIndex?: string
  /** `null` leaves SubjectConfirmationData's InResponseTo out (IdP-initiated). */
  inResponseTo?: string | null
  recipient?: string
  audience?: string
  /** Seconds from the clock's now. */
  notBefore?: number
  notOnOrAfter?: number
  /** The bearer confirmation's own NotOnOrAfter (seconds from now); `notOnOrAfter` when absent. */
  confirmationNotOnOrAfter?: number
  attributes?: Record<string, string[]>
}

export interface ResponseOptions {
  id?: string
  issuer?: string
  destination?: string | null
  /** `undefined` copies the assertion's; `null` leaves it out. */
  inResponseTo?: string | null
  /** The top-level StatusCode; Success when absent. */
  status?: string
}

export interface SignOptions {
  signatureAlgorithm?: string
  digestAlgorithm?: string
}

/** One IdP: an entity ID and a signing key (a second for rollover is just a second `testIdp`). */
export function testIdp(entityId: string, clock: TestClock, key: SpKey = generateSpKey({ commonName: entityId })) {
  const self = {
    entityId,
    key,
    /** The certificate as metadata carries it: bare base64. */
    certificate: key.certificate.replace(/-----[^-]+-----|\s/g, ""),

    assertion(acsUrl: string, o: AssertionOptions = {}): string {
      const t = clock.ms()
      const id = o.id ?? newId()
      const irt = o.inResponseTo === null || o.inResponseTo === undefined ? "" : ` InResponseTo="${escapeXml(o.inResponseTo)}"`
      const nameId = o.nameIdXml ?? escapeXml(o.nameId ?? "ada@acme.test")
      const attributes = Object.entries(o.attributes ?? { mail: ["ada@acme.test"], groups: ["eng", "admins"] })
        .map(([name, values]) => `<saml:Attribute Name="${escapeXml(name)}">${values.map((v) => `<saml:AttributeValue>${escapeXml(v)}</saml:AttributeValue>`).join("")}</saml:Attribute>`)
        .join("")
      return (
        `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${iso(t)}">` +
        `<saml:Issuer>${escapeXml(o.issuer ?? entityId)}</saml:Issuer>` +
        `<saml:Subject><saml:NameID Format="${o.nameIdFormat ?? "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"}">${nameId}</saml:NameID>` +
        `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${irt} NotOnOrAfter="${iso(t + (o.confirmationNotOnOrAfter ?? o.notOnOrAfter ?? 300) * 1000)}" Recipient="${escapeXml(o.recipient ?? acsUrl)}"/></saml:SubjectConfirmation></saml:Subject>` +
        `<saml:Conditions NotBefore="${iso(t + (o.notBefore ?? -30) * 1000)}" NotOnOrAfter="${iso(t + (o.notOnOrAfter ?? 300) * 1000)}"><saml:AudienceRestriction><saml:Audience>${escapeXml(o.audience ?? SP_ENTITY_ID)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
        `<saml:AuthnStatement AuthnInstant="${iso(t)}" SessionIndex="${o.sessionIndex ?? "_session1"}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
        `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` +
        `</saml:Assertion>`
      )
    },

    /** Signs the document's root element (an Assertion or a Response), the signature after its Issuer. */
    sign(xml: string, o: SignOptions = {}): string {
      const sig = new SignedXml({ privateKey: key.privateKey, publicCert: key.certificate, signatureAlgorithm: o.signatureAlgorithm ?? RSA_SHA256, canonicalizationAlgorithm: EXC_C14N })
      sig.addReference({ xpath: "/*", digestAlgorithm: o.digestAlgorithm ?? SHA256, transforms: [ENVELOPED, EXC_C14N] })
      sig.computeSignature(xml, { prefix: "ds", location: { reference: "/*/*[local-name(.)='Issuer']", action: "after" } })
      return sig.getSignedXml()
    },

    /** Encrypts an assertion to the SP certificate: AES-256-GCM, the key by RSA-OAEP. */
    async encrypt(assertionXml: string, spCertificate: string): Promise<string> {
      const encrypted = await new Promise<string>((resolve, reject) =>
        xmlenc.encrypt(
          assertionXml,
          {
            rsa_pub: createPublicKey(spCertificate).export({ type: "spki", format: "pem" }) as string,
            pem: spCertificate,
            encryptionAlgorithm: "http://www.w3.org/2009/xmlenc11#aes256-gcm",
            keyEncryptionAlgorithm: "http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p",
            disallowEncryptionWithInsecureAlgorithm: true,
          },
          (error, result) => (error ? reject(error) : resolve(result)),
        ),
      )
      return `<saml:EncryptedAssertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">${encrypted}</saml:EncryptedAssertion>`
    },

    /** Wraps assertion XML (signed or not, or several pieces) in a Response. */
    response(acsUrl: string, inner: string, o: ResponseOptions = {}): string {
      const irtMatch = /SubjectConfirmationData[^>]*InResponseTo="([^"]+)"/.exec(inner)
      const irt = o.inResponseTo === undefined ? irtMatch?.[1] : o.inResponseTo
      const destination = o.destination === undefined ? acsUrl : o.destination
      return (
        `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${o.id ?? newId()}" Version="2.0" IssueInstant="${iso(clock.ms())}"` +
        (destination === null ? "" : ` Destination="${escapeXml(destination)}"`) +
        (irt ? ` InResponseTo="${escapeXml(irt)}"` : "") +
        `><saml:Issuer>${escapeXml(o.issuer ?? entityId)}</saml:Issuer>` +
        `<samlp:Status><samlp:StatusCode Value="${o.status ?? "urn:oasis:names:tc:SAML:2.0:status:Success"}"/></samlp:Status>` +
        inner +
        `</samlp:Response>`
      )
    },
  }
  return self
}
export type TestIdp = ReturnType<typeof testIdp>

export const encode = (xml: string) => Buffer.from(xml, "utf8").toString("base64")

/** A SAML connection of `organizationId` trusting `certificates`. */
export function samlConnection(id: string, idp: { entityId: string; certificate: string }, extra: Partial<Connection["saml"]> & { spKey?: SpKey; certificates?: string[] } = {}): Connection {
  const { spKey, certificates, ...saml } = extra
  return {
    id,
    organizationId: `org-${id}`,
    kind: "saml",
    name: `SAML ${id}`,
    enabled: true,
    saml: { idpEntityId: idp.entityId, ssoUrl: `${idp.entityId}/sso`, certificates: certificates ?? [idp.certificate], ...saml },
    ...(spKey ? { spKey } : {}),
    roleRules: [],
    defaultRole: "member",
    createdAt: new Date(0),
  }
}

/** A world: a clock, a store, one IdP and a connection trusting it, and its service provider. */
export function world(o: { store?: SsoStore; clock?: TestClock; idpKey?: SpKey; connection?: Partial<Connection["saml"]> & { spKey?: SpKey }; sp?: Partial<SamlOptions> } = {}) {
  const clock = o.clock ?? testClock()
  const store = o.store ?? memorySsoStore({ now: clock.ms })
  const idp = testIdp("https://idp.acme.test", clock, o.idpKey)
  const connection = samlConnection("acme", idp, o.connection)
  const acsUrl = acsUrlOf(connection.id)
  const sp = serviceProvider(connection, { store, spEntityId: SP_ENTITY_ID, acsUrl, now: clock.now, ...o.sp })
  /** Starts a sign-in and returns its request ID, the way the IdP would see it. */
  const start = async (relayState = "state-1") => (await sp.startSignIn({ relayState })).requestId
  /** The usual good answer: a Response carrying a signed assertion for the request. */
  const signedResponse = (requestId: string | null, a: AssertionOptions = {}, r: ResponseOptions = {}) =>
    encode(idp.response(acsUrl, idp.sign(idp.assertion(acsUrl, { inResponseTo: requestId, ...a })), r))
  return { clock, store, idp, connection, acsUrl, sp, start, signedResponse }
}
