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
import type { Connection } from "../store/types.js"
import { nodeSaml, rejectionOf, type SamlOptions } from "./config.js"
import { SamlRejected } from "./errors.js"
import { logoutFlows, type SamlLogoutResult } from "./logout.js"
import { assertionResult, checkResponseXml, checkSignedAssertion, type ResponseContext } from "./response.js"
import { DSIG_NS, children, decodeSamlMessage } from "./xml.js"
import type { SamlAssertionResult } from "./response.js"

export type { SamlAssertionResult }

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

/** RelayState is 80 bytes in the binding spec; apps put a bit more in it, never kilobytes. */
const MAX_RELAY_STATE = 1024

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
  const ctx: ResponseContext = { connection, acsUrl, now, skewMs }

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
      // Parse and check: the raw message, then node-saml's signature check (the connection's
      // certificates, any of them: rollover), decryption and audience, then the signed assertion.
      const xml = decodeSamlMessage(form.SAMLResponse)
      const formRelayState = typeof form.RelayState === "string" && form.RelayState.length <= MAX_RELAY_STATE ? form.RelayState : null
      const response = await checkResponseXml(xml, ctx)
      let profile: Profile
      try {
        const responseSigned = children(response, DSIG_NS, "Signature").length > 0
        const result = await nodeSaml(connection, options, undefined, { responseSigned }).validatePostResponseAsync({ SAMLResponse: form.SAMLResponse as string })
        if (!result.profile) throw new SamlRejected("saml-malformed", "The response carries no assertion")
        profile = result.profile
      } catch (error) {
        throw rejectionOf(error)
      }
      const checked = checkSignedAssertion(profile, response, ctx)

      // Act: state is touched only now, each step single-use across instances.
      let relayState = formRelayState
      if (checked.requestId !== null) {
        const pending = await store.take("saml-request", checked.requestId)
        const request = pending === null ? null : (JSON.parse(pending) as { connectionId?: string; relayState?: string })
        if (request?.connectionId !== connection.id) throw new SamlRejected("saml-unsolicited", "The response does not answer a sign-in request of this app")
        // An empty relay state is sent as none (node-saml leaves the parameter out), so the two are one.
        relayState = request.relayState || null
        if (relayState !== (formRelayState || null)) throw new SamlRejected("saml-relay-state", "The response's relay state is not the request's")
      }
      if (!(await store.useOnce("saml-assertion", `${checked.issuer}\n${checked.assertionId}`, checked.useUntil))) throw new SamlRejected("saml-replayed", "The assertion was already used")
      return assertionResult(profile, checked, relayState)
    },
  }
}
