/**
 * The checks a sign-in Response passes, in two halves around node-saml's signature check:
 * `checkResponseXml` on the raw message (nothing in it is trusted yet), and
 * `checkSignedAssertion` on the assertion node-saml verified (the Web SSO profile's rules).
 * Both are pure: they read, refuse with {@link SamlRejected}, and touch no state.
 * @module
 */
import type { Profile } from "@node-saml/node-saml"
import { decryptXml } from "@node-saml/node-saml/lib/xml.js"
import type { Connection } from "../store/types.js"
import { SamlRejected } from "./errors.js"
import { SAMLP_NS, SAML_NS, checkAlgorithms, children, descendants, parseStrictXml } from "./xml.js"

const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer"
const SUCCESS = "urn:oasis:names:tc:SAML:2.0:status:Success"
const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"
const EMAIL_ATTRIBUTES = new Set(["mail", "email", "emailaddress", "urn:oid:0.9.2342.19200300.100.1.3", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"])

/** What the checks compare against: the connection, this SP's ACS URL, the clock. */
export interface ResponseContext {
  connection: Connection
  acsUrl: string
  now: () => Date
  skewMs: number
}

/** node-saml's xml2js shape: attributes under `$`, text under `_`, children as arrays. */
type Xml2Js = Record<string, unknown> & { $?: Record<string, string>; _?: string }
const first = (node: unknown, name: string): Xml2Js | undefined => {
  const list = (node as Record<string, unknown> | undefined)?.[name]
  return Array.isArray(list) ? (list[0] as Xml2Js) : undefined
}
const all = (node: unknown, name: string): Xml2Js[] => {
  const list = (node as Record<string, unknown> | undefined)?.[name]
  return Array.isArray(list) ? (list as Xml2Js[]) : []
}

function parseInstant(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined
  const ms = Date.parse(value)
  if (!/^\d{4}-\d\d-\d\dT/.test(value) || Number.isNaN(ms)) throw new SamlRejected("saml-malformed", `The assertion's ${what} is not a time`)
  return ms
}

/**
 * The raw Response: a Response with a Success status, from the connection's IdP, for this
 * ACS URL, within the algorithm policy, carrying exactly one assertion as its direct child
 * (copies hidden in Extensions, ds:Object or inside another assertion — signature wrapping —
 * are refused outright). An encrypted assertion is decrypted to hold it to the same policy.
 * Returns the Response element.
 */
export async function checkResponseXml(xml: string, ctx: ResponseContext): Promise<Element> {
  const settings = ctx.connection.saml!
  const allowSha1 = settings.allowSha1 === true
  const doc = parseStrictXml(xml)
  const root = doc.documentElement!
  if (root.namespaceURI !== SAMLP_NS || root.localName !== "Response") throw new SamlRejected("saml-malformed", "The message is not a SAML Response")
  checkAlgorithms(doc, allowSha1)
  const destination = root.getAttribute("Destination")
  if (destination && destination !== ctx.acsUrl) throw new SamlRejected("saml-destination", "The response is addressed to another service provider")
  const responseIssuer = children(root, SAML_NS, "Issuer")[0]
  if (responseIssuer && responseIssuer.textContent?.trim() !== settings.idpEntityId) throw new SamlRejected("saml-issuer", "The response comes from another identity provider")
  const statusCode = children(children(root, SAMLP_NS, "Status")[0] ?? root, SAMLP_NS, "StatusCode")[0]
  if (statusCode?.getAttribute("Value") !== SUCCESS) throw new SamlRejected("saml-idp-error", "The identity provider refused the sign-in")
  const assertions = [...descendants(doc, SAML_NS, "Assertion"), ...descendants(doc, SAML_NS, "EncryptedAssertion")]
  if (assertions.length !== 1 || assertions[0]!.parentNode !== root) throw new SamlRejected("saml-malformed", "The response must carry exactly one assertion")
  const assertion = assertions[0]!
  const encrypted = assertion.localName === "EncryptedAssertion"
  // A connection that asked for encryption takes no plaintext assertion: that would be a downgrade.
  if (settings.encryptAssertions === true && !encrypted) throw new SamlRejected("saml-unencrypted", "The assertion must be encrypted for this connection")
  if (encrypted) {
    const key = ctx.connection.spKey
    if (!key) throw new SamlRejected("saml-malformed", "The assertion is encrypted but the connection has no key")
    let decrypted: string
    try {
      decrypted = await decryptXml(assertion.toString(), key.privateKey)
    } catch {
      throw new SamlRejected("saml-malformed", "The assertion could not be decrypted")
    }
    const inner = parseStrictXml(decrypted)
    checkAlgorithms(inner, allowSha1)
    if (descendants(inner, SAML_NS, "Assertion").length !== 1) throw new SamlRejected("saml-malformed", "The response must carry exactly one assertion")
  }
  return root
}

/** What the act step needs from a checked assertion. */
export interface CheckedAssertion {
  issuer: string
  assertionId: string
  /** The request the signed assertion answers; `null` for an (allowed) IdP-initiated one. */
  requestId: string | null
  /** Until when the assertion ID must be remembered as used. */
  useUntil: Date
}

/**
 * The signed assertion node-saml returned (signature and audience already checked): from the
 * connection's IdP, in its validity window, for this ACS URL by a bearer confirmation, and
 * answering a request — by the *signed* InResponseTo. The Response's InResponseTo may be
 * unsigned, so it can only agree, never stand in (else an unsolicited assertion wrapped in a
 * Response naming the attacker's own request would pass as solicited).
 */
export function checkSignedAssertion(profile: Profile, response: Element, ctx: ResponseContext): CheckedAssertion {
  const settings = ctx.connection.saml!
  const assertion = (profile.getAssertion?.() as { Assertion?: Xml2Js } | undefined)?.Assertion
  if (!assertion) throw new SamlRejected("saml-malformed", "The response carries no assertion")
  const issuer = first(assertion, "Issuer")?._?.trim()
  if (issuer !== settings.idpEntityId) throw new SamlRejected("saml-issuer", "The assertion comes from another identity provider")
  const assertionId = assertion.$?.ID
  if (!assertionId) throw new SamlRejected("saml-malformed", "The assertion has no ID")
  if (typeof profile.nameID !== "string" || !profile.nameID) throw new SamlRejected("saml-malformed", "The assertion names no subject")

  const t = ctx.now().getTime()
  const notYet = (instant: number | undefined) => instant !== undefined && t + ctx.skewMs < instant
  const over = (instant: number | undefined) => instant !== undefined && t - ctx.skewMs >= instant
  const conditions = first(assertion, "Conditions")
  const notBefore = parseInstant(conditions?.$?.NotBefore, "NotBefore")
  const notOnOrAfter = parseInstant(conditions?.$?.NotOnOrAfter, "NotOnOrAfter")
  if (notYet(notBefore)) throw new SamlRejected("saml-not-yet-valid", "The assertion is not valid yet")
  if (over(notOnOrAfter)) throw new SamlRejected("saml-expired", "The assertion has expired")

  const bearer = all(first(assertion, "Subject"), "SubjectConfirmation").find((c) => c.$?.Method === BEARER)
  const confirmation = first(bearer, "SubjectConfirmationData")?.$
  if (!confirmation) throw new SamlRejected("saml-malformed", "The assertion has no bearer subject confirmation")
  if (confirmation.Recipient !== ctx.acsUrl) throw new SamlRejected("saml-recipient", "The assertion is meant for another service provider")
  const confirmBefore = parseInstant(confirmation.NotOnOrAfter, "NotOnOrAfter")
  if (confirmBefore === undefined) throw new SamlRejected("saml-malformed", "The assertion's subject confirmation has no NotOnOrAfter")
  if (over(confirmBefore)) throw new SamlRejected("saml-expired", "The assertion has expired")
  if (notYet(parseInstant(confirmation.NotBefore, "NotBefore"))) throw new SamlRejected("saml-not-yet-valid", "The assertion is not valid yet")

  const requestId = confirmation.InResponseTo ?? null
  const responseInResponseTo = response.getAttribute("InResponseTo") || null
  if (responseInResponseTo !== null && responseInResponseTo !== requestId) throw new SamlRejected("saml-unsolicited", "The response does not answer a sign-in request of this app")
  if (requestId === null && settings.allowIdpInitiated !== true) throw new SamlRejected("saml-unsolicited", "Sign-in started at the identity provider is not allowed for this connection")
  return { issuer, assertionId, requestId, useUntil: new Date(Math.max(confirmBefore, notOnOrAfter ?? 0) + ctx.skewMs) }
}

function stringValues(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value]
  return list.flatMap((v) => (typeof v === "string" ? [v] : v && typeof (v as Xml2Js)._ === "string" ? [(v as Xml2Js)._!] : []))
}

/** Who the IdP says signed in, once every check passed. */
export interface SamlAssertionResult {
  nameId: string
  nameIdFormat: string | null
  sessionIndex: string | null
  /** The IdP's entity ID (equal to the connection's `idpEntityId`). */
  issuer: string
  /** Every attribute by its `Name`, values as strings (structured values are left out). */
  attributes: Record<string, string[]>
  /** From a mail/email/emailaddress attribute, else an `emailAddress`-format NameID; as sent, not verified further. */
  email: string | null
  /** The request this answers; `null` only for an IdP-initiated sign-in the connection allows. */
  requestId: string | null
  /** The relay state given to `startSignIn` (the request's, not the form's); the form's for IdP-initiated. */
  relayState: string | null
}

/** Who signed in, from the checked profile: attributes as string lists, the email where the IdP put it. */
export function assertionResult(profile: Profile, checked: CheckedAssertion, relayState: string | null): SamlAssertionResult {
  const attributes: Record<string, string[]> = {}
  for (const [name, value] of Object.entries((profile.attributes ?? {}) as Record<string, unknown>)) {
    const values = stringValues(value)
    if (values.length) attributes[name] = values
  }
  const nameId = profile.nameID
  const nameIdFormat = typeof profile.nameIDFormat === "string" ? profile.nameIDFormat : null
  const emailAttribute = Object.keys(attributes).find((name) => EMAIL_ATTRIBUTES.has(name.toLowerCase()))
  const email = (emailAttribute ? attributes[emailAttribute]![0] : nameIdFormat === EMAIL_FORMAT ? nameId : undefined)?.trim() || null
  return {
    nameId,
    nameIdFormat,
    sessionIndex: typeof profile.sessionIndex === "string" ? profile.sessionIndex : null,
    issuer: checked.issuer,
    attributes,
    email,
    requestId: checked.requestId,
    relayState,
  }
}
