/**
 * One SAML connection seen from this app, the service provider: its metadata, the
 * AuthnRequest that starts a sign-in, and the checks a Response passes before it names a user.
 *
 * `completeSignIn` reads parse → check → act: the raw XML is checked first (size, DTD,
 * algorithms, shape), node-saml then verifies the signature with the connection's
 * certificates, decrypts, and checks the audience; the rest of the Web SSO profile (issuer,
 * recipient, destination, time window, InResponseTo) is checked here on the *signed*
 * assertion node-saml returns. Only then is state touched: the pending request is taken
 * (once, across instances) and the assertion ID recorded (once, across instances).
 * @module
 */
import { randomBytes } from "node:crypto"
import type { Profile } from "@node-saml/node-saml"
import { decryptXml } from "@node-saml/node-saml/lib/xml.js"
import type { Connection } from "../store/types.js"
import { nodeSaml, rejectionOf, type SamlOptions } from "./config.js"
import { SamlRejected } from "./errors.js"
import { logoutFlows, type SamlLogoutResult } from "./logout.js"
import { SAMLP_NS, SAML_NS, checkAlgorithms, children, decodeSamlMessage, descendants, parseStrictXml } from "./xml.js"

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

/** The service provider of one connection. */
export interface SamlServiceProvider {
  /** The SP metadata XML to give the IdP. */
  metadata(): string
  /** Starts an SP-initiated sign-in: the IdP URL to redirect to (HTTP-Redirect binding). */
  startSignIn(input: { relayState: string }): Promise<{ url: string; requestId: string }>
  /** Checks the IdP's HTTP-POST answer; throws {@link SamlRejected} for every refusal. */
  completeSignIn(form: { SAMLResponse?: unknown; RelayState?: unknown }): Promise<SamlAssertionResult>
  /**
   * Single logout, SP-initiated: the IdP URL to redirect to with a signed LogoutRequest for the
   * user's IdP session (from their sign-in's `nameId`, `nameIdFormat`, `sessionIndex`). Needs the
   * connection's `saml.sloUrl` and `spKey` (a `TypeError` otherwise: a configuration fault).
   */
  startLogout(input: { nameId: string; nameIdFormat: string | null; sessionIndex: string | null; relayState: string }): Promise<{ url: string; requestId: string }>
  /**
   * Checks the IdP's HTTP-Redirect logout message at the SP's SLO URL, from the raw query string
   * (exactly as received: its signature covers those bytes). Throws {@link SamlRejected}.
   */
  completeLogout(rawQuery: string): Promise<SamlLogoutResult>
}

export type { SamlOptions, SamlLogoutResult }

const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer"
const SUCCESS = "urn:oasis:names:tc:SAML:2.0:status:Success"
const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"
const EMAIL_ATTRIBUTES = new Set(["mail", "email", "emailaddress", "urn:oid:0.9.2342.19200300.100.1.3", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"])
/** RelayState is 80 bytes in the binding spec; apps put a bit more in it, never kilobytes. */
const MAX_RELAY_STATE = 1024

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

function stringValues(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value]
  return list.flatMap((v) => (typeof v === "string" ? [v] : v && typeof (v as Xml2Js)._ === "string" ? [(v as Xml2Js)._!] : []))
}

/**
 * The service provider of a SAML `connection` (its `saml` settings must be present).
 *
 * @example
 * ```ts
 * const sp = serviceProvider(connection, {
 *   store,
 *   spEntityId: "https://app.example.com/auth/sso/saml",
 *   acsUrl: `https://app.example.com/auth/sso/saml/${connection.id}/acs`,
 * })
 * const { url } = await sp.startSignIn({ relayState: state })   // redirect there
 * // … on POST to the ACS URL:
 * const who = await sp.completeSignIn(request.body)             // or a SamlRejected
 * ```
 */
export function serviceProvider(connection: Connection, options: SamlOptions): SamlServiceProvider {
  const settings = connection.saml
  if (!settings) throw new TypeError(`Connection ${connection.id} has no SAML settings`)
  if (settings.certificates.length === 0) throw new TypeError(`Connection ${connection.id} has no IdP certificate`)
  const { store, spEntityId, acsUrl } = options
  const now = options.now ?? (() => new Date())
  const skewMs = (options.clockSkewSeconds ?? 60) * 1000
  const requestMaxAgeMs = (options.requestMaxAge ?? 600) * 1000
  const allowSha1 = settings.allowSha1 === true

  const saml = (requestId?: string) => nodeSaml(connection, options, requestId)

  const logout = logoutFlows(connection, options)

  return {
    startLogout: logout.startLogout,
    completeLogout: logout.completeLogout,

    metadata() {
      const cert = connection.spKey?.certificate ?? null
      const xml = saml().generateServiceProviderMetadata(cert, cert)
      // node-saml publishes its logout endpoint as HTTP-POST; `completeLogout` reads the
      // HTTP-Redirect binding, so that is the binding the IdP must be told to use.
      return xml.replace(/(<SingleLogoutService\b[^>]*Binding=")urn:oasis:names:tc:SAML:2\.0:bindings:HTTP-POST"/, "$1urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect\"")
    },

    async startSignIn({ relayState }) {
      if (relayState.length > MAX_RELAY_STATE) throw new TypeError("relayState is longer than 1024 characters")
      // A leading letter: an XML ID must be an NCName.
      const requestId = `_${randomBytes(20).toString("hex")}`
      const url = await saml(requestId).getAuthorizeUrlAsync(relayState, undefined, {})
      const expires = new Date(now().getTime() + requestMaxAgeMs)
      await store.put("saml-request", requestId, JSON.stringify({ connectionId: connection.id, relayState }), expires)
      return { url, requestId }
    },

    async completeSignIn(form) {
      // Parse and check the raw message before any library reads it.
      const xml = decodeSamlMessage(form.SAMLResponse)
      const formRelayState = typeof form.RelayState === "string" && form.RelayState.length <= MAX_RELAY_STATE ? form.RelayState : null
      const doc = parseStrictXml(xml)
      const root = doc.documentElement!
      if (root.namespaceURI !== SAMLP_NS || root.localName !== "Response") throw new SamlRejected("saml-malformed", "The message is not a SAML Response")
      checkAlgorithms(doc, allowSha1)
      const destination = root.getAttribute("Destination")
      if (destination && destination !== acsUrl) throw new SamlRejected("saml-destination", "The response is addressed to another service provider")
      const responseIssuer = children(root, SAML_NS, "Issuer")[0]
      if (responseIssuer && responseIssuer.textContent?.trim() !== settings.idpEntityId) throw new SamlRejected("saml-issuer", "The response comes from another identity provider")
      const statusCode = children(children(root, SAMLP_NS, "Status")[0] ?? root, SAMLP_NS, "StatusCode")[0]
      if (statusCode?.getAttribute("Value") !== SUCCESS) throw new SamlRejected("saml-idp-error", "The identity provider refused the sign-in")
      // Exactly one assertion in the whole document, as the Response's direct child: copies
      // hidden in Extensions, ds:Object or inside another assertion (signature wrapping) are refused outright.
      const assertions = [...descendants(doc, SAML_NS, "Assertion"), ...descendants(doc, SAML_NS, "EncryptedAssertion")]
      if (assertions.length !== 1 || assertions[0]!.parentNode !== root) throw new SamlRejected("saml-malformed", "The response must carry exactly one assertion")
      // A connection that asked for encryption takes no plaintext assertion: that would be a downgrade.
      if (settings.encryptAssertions === true && assertions[0]!.localName !== "EncryptedAssertion") throw new SamlRejected("saml-unencrypted", "The assertion must be encrypted for this connection")
      if (assertions[0]!.localName === "EncryptedAssertion") {
        if (!connection.spKey) throw new SamlRejected("saml-malformed", "The assertion is encrypted but the connection has no key")
        let decrypted: string
        try {
          decrypted = await decryptXml(assertions[0]!.toString(), connection.spKey.privateKey)
        } catch {
          throw new SamlRejected("saml-malformed", "The assertion could not be decrypted")
        }
        const inner = parseStrictXml(decrypted)
        checkAlgorithms(inner, allowSha1)
        if (descendants(inner, SAML_NS, "Assertion").length !== 1) throw new SamlRejected("saml-malformed", "The response must carry exactly one assertion")
      }

      // node-saml: signature (the connection's certificates, any of them: rollover), decryption, audience.
      let profile: Profile
      try {
        const result = await saml().validatePostResponseAsync({ SAMLResponse: form.SAMLResponse as string })
        if (!result.profile) throw new SamlRejected("saml-malformed", "The response carries no assertion")
        profile = result.profile
      } catch (error) {
        throw rejectionOf(error)
      }

      // The rest of the profile, on the signed assertion.
      const assertion = (profile.getAssertion?.() as { Assertion?: Xml2Js } | undefined)?.Assertion
      if (!assertion) throw new SamlRejected("saml-malformed", "The response carries no assertion")
      const issuer = first(assertion, "Issuer")?._?.trim()
      if (issuer !== settings.idpEntityId) throw new SamlRejected("saml-issuer", "The assertion comes from another identity provider")
      const assertionId = assertion.$?.ID
      if (!assertionId) throw new SamlRejected("saml-malformed", "The assertion has no ID")
      const t = now().getTime()
      const conditions = first(assertion, "Conditions")
      const notBefore = parseInstant(conditions?.$?.NotBefore, "NotBefore")
      const notOnOrAfter = parseInstant(conditions?.$?.NotOnOrAfter, "NotOnOrAfter")
      if (notBefore !== undefined && t + skewMs < notBefore) throw new SamlRejected("saml-not-yet-valid", "The assertion is not valid yet")
      if (notOnOrAfter !== undefined && t - skewMs >= notOnOrAfter) throw new SamlRejected("saml-expired", "The assertion has expired")
      const subject = first(assertion, "Subject")
      const bearer = all(subject, "SubjectConfirmation").find((c) => c.$?.Method === BEARER)
      const confirmation = first(bearer, "SubjectConfirmationData")?.$
      if (!confirmation) throw new SamlRejected("saml-malformed", "The assertion has no bearer subject confirmation")
      if (confirmation.Recipient !== acsUrl) throw new SamlRejected("saml-recipient", "The assertion is meant for another service provider")
      const confirmBefore = parseInstant(confirmation.NotOnOrAfter, "NotOnOrAfter")
      if (confirmBefore === undefined) throw new SamlRejected("saml-malformed", "The assertion's subject confirmation has no NotOnOrAfter")
      if (t - skewMs >= confirmBefore) throw new SamlRejected("saml-expired", "The assertion has expired")
      const confirmAfter = parseInstant(confirmation.NotBefore, "NotBefore")
      if (confirmAfter !== undefined && t + skewMs < confirmAfter) throw new SamlRejected("saml-not-yet-valid", "The assertion is not valid yet")
      // The binding to a request is the signed assertion's InResponseTo; the Response's may be unsigned,
      // so it can only agree, never stand in (else an unsolicited assertion wrapped in a Response
      // naming the attacker's own request would pass as solicited).
      const requestId = confirmation.InResponseTo ?? null
      const responseInResponseTo = root.getAttribute("InResponseTo") || null
      if (responseInResponseTo !== null && responseInResponseTo !== requestId) throw new SamlRejected("saml-unsolicited", "The response does not answer a sign-in request of this app")
      if (requestId === null && settings.allowIdpInitiated !== true) throw new SamlRejected("saml-unsolicited", "Sign-in started at the identity provider is not allowed for this connection")
      const nameId = typeof profile.nameID === "string" ? profile.nameID : ""
      if (!nameId) throw new SamlRejected("saml-malformed", "The assertion names no subject")

      // Act: state is touched only now, each step single-use across instances.
      let relayState = requestId === null ? formRelayState : null
      if (requestId !== null) {
        const pending = await store.take("saml-request", requestId)
        const request = pending === null ? null : (JSON.parse(pending) as { connectionId?: string; relayState?: string })
        if (request?.connectionId !== connection.id) throw new SamlRejected("saml-unsolicited", "The response does not answer a sign-in request of this app")
        // An empty relay state is sent as none (node-saml leaves the parameter out), so the two are one.
        relayState = request.relayState || null
        if (relayState !== (formRelayState || null)) throw new SamlRejected("saml-relay-state", "The response's relay state is not the request's")
      }
      const remember = new Date(Math.max(confirmBefore, notOnOrAfter ?? 0) + skewMs)
      if (!(await store.useOnce("saml-assertion", `${issuer}\n${assertionId}`, remember))) throw new SamlRejected("saml-replayed", "The assertion was already used")

      const attributes: Record<string, string[]> = {}
      for (const [name, value] of Object.entries((profile.attributes ?? {}) as Record<string, unknown>)) {
        const values = stringValues(value)
        if (values.length) attributes[name] = values
      }
      const emailAttribute = Object.keys(attributes).find((name) => EMAIL_ATTRIBUTES.has(name.toLowerCase()))
      const nameIdFormat = typeof profile.nameIDFormat === "string" ? profile.nameIDFormat : null
      const email = (emailAttribute ? attributes[emailAttribute]![0] : nameIdFormat === EMAIL_FORMAT ? nameId : undefined)?.trim() || null
      return {
        nameId,
        nameIdFormat,
        sessionIndex: typeof profile.sessionIndex === "string" ? profile.sessionIndex : null,
        issuer,
        attributes,
        email,
        requestId,
        relayState,
      }
    },
  }
}
