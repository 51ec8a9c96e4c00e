/**
 * Single logout over the HTTP-Redirect binding: this app asking the IdP to end the user's
 * session (`startLogout`, answered by a LogoutResponse), and the IdP asking this app to end
 * one (a LogoutRequest, answered with `responseUrl`). Both directions are signed: an unsigned
 * logout message is refused (node-saml alone would accept it), and the query is parsed here,
 * once, so the bytes whose signature is checked are the bytes that are read.
 * @module
 */
import { randomBytes } from "node:crypto"
import { inflateRawSync } from "node:zlib"
import type { Connection } from "../store/types.js"
import { nodeSaml, rejectionOf, type SamlOptions } from "./config.js"
import { SamlRejected } from "./errors.js"
import { MAX_BASE64_LENGTH, SAMLP_NS, SAML_NS, checkAlgorithms, checkRedirectAlgorithm, children, parseStrictXml } from "./xml.js"

/** What `completeLogout` found in the IdP's message. */
export type SamlLogoutResult =
  | {
      /** The IdP's answer to this app's `startLogout`: the IdP session is over. */
      kind: "response"
      requestId: string
      /** The relay state given to `startLogout`. */
      relayState: string | null
    }
  | {
      /** The IdP asks this app to end the user's sessions of this organization, then to answer. */
      kind: "request"
      requestId: string
      nameId: string
      nameIdFormat: string | null
      sessionIndex: string | null
      relayState: string | null
      /** The URL to redirect the browser to with the signed LogoutResponse (`success` false when the sessions could not be ended). */
      responseUrl(success: boolean): Promise<string>
    }

const SUCCESS = "urn:oasis:names:tc:SAML:2.0:status:Success"
const PARAMETERS = new Set(["SAMLRequest", "SAMLResponse", "RelayState", "SigAlg", "Signature"])
/** A logout message is a few hundred bytes inflated; the cap stops a deflate bomb before parsing. */
const MAX_INFLATED = 256 * 1024

/** The query as sent: each parameter once, no others (they would not be covered by the signature). */
function parseQuery(rawQuery: string): Record<string, string> {
  if (rawQuery.length > MAX_BASE64_LENGTH) throw new SamlRejected("saml-too-large", "The logout message is too large")
  const params: Record<string, string> = {}
  for (const token of rawQuery.replace(/^\?/, "").split("&")) {
    if (!token) continue
    const eq = token.indexOf("=")
    let key: string
    let value: string
    try {
      key = decodeURIComponent(eq < 0 ? token : token.slice(0, eq))
      value = decodeURIComponent((eq < 0 ? "" : token.slice(eq + 1)).replace(/\+/g, " "))
    } catch {
      throw new SamlRejected("saml-malformed", "The logout message's query is not well-formed")
    }
    if (!PARAMETERS.has(key) || key in params) throw new SamlRejected("saml-malformed", "The logout message's query is not well-formed")
    params[key] = value
  }
  return params
}

function inflate(base64: string): string {
  if (!/^[A-Za-z0-9+/\r\n]*={0,2}$/.test(base64)) throw new SamlRejected("saml-malformed", "The logout message is not base64")
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(inflateRawSync(Buffer.from(base64, "base64"), { maxOutputLength: MAX_INFLATED }))
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw new SamlRejected("saml-too-large", "The logout message is too large")
    throw new SamlRejected("saml-malformed", "The logout message could not be inflated")
  }
}

/** The logout half of a connection's service provider (see `serviceProvider`). */
export function logoutFlows(connection: Connection, options: SamlOptions) {
  const settings = connection.saml!
  const { store } = options
  const now = options.now ?? (() => new Date())
  const skewMs = (options.clockSkewSeconds ?? 60) * 1000
  const requestMaxAgeMs = (options.requestMaxAge ?? 600) * 1000

  function requireSlo(): void {
    if (!settings.sloUrl) throw new TypeError(`Connection ${connection.id} has no IdP single logout URL`)
    if (!connection.spKey) throw new TypeError(`Connection ${connection.id} has no SP key to sign logout messages with`)
  }

  return {
    async startLogout(input: { nameId: string; nameIdFormat: string | null; sessionIndex: string | null; relayState: string }): Promise<{ url: string; requestId: string }> {
      requireSlo()
      const requestId = `_${randomBytes(20).toString("hex")}`
      const profile = { issuer: settings.idpEntityId, nameID: input.nameId, nameIDFormat: input.nameIdFormat ?? "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified", ...(input.sessionIndex ? { sessionIndex: input.sessionIndex } : {}) }
      const url = await nodeSaml(connection, options, requestId).getLogoutUrlAsync(profile, input.relayState, {})
      await store.put("saml-logout", requestId, JSON.stringify({ connectionId: connection.id, relayState: input.relayState }), new Date(now().getTime() + requestMaxAgeMs))
      return { url, requestId }
    },

    async completeLogout(rawQuery: string): Promise<SamlLogoutResult> {
      requireSlo()
      // Parse and check before node-saml reads anything.
      const params = parseQuery(rawQuery)
      const kind = params.SAMLRequest !== undefined && params.SAMLResponse === undefined ? "request" : params.SAMLResponse !== undefined && params.SAMLRequest === undefined ? "response" : null
      if (!kind) throw new SamlRejected("saml-malformed", "The logout message carries neither a request nor a response")
      if (!params.Signature || !params.SigAlg) throw new SamlRejected("saml-invalid-signature", "The logout message is not signed")
      checkRedirectAlgorithm(params.SigAlg, settings.allowSha1 === true)
      const doc = parseStrictXml(inflate(kind === "request" ? params.SAMLRequest! : params.SAMLResponse!))
      const root = doc.documentElement!
      if (root.namespaceURI !== SAMLP_NS || root.localName !== (kind === "request" ? "LogoutRequest" : "LogoutResponse")) throw new SamlRejected("saml-malformed", "The message is not a SAML logout message")
      checkAlgorithms(doc, settings.allowSha1 === true)
      if (children(root, SAML_NS, "Issuer")[0]?.textContent?.trim() !== settings.idpEntityId) throw new SamlRejected("saml-issuer", "The logout message comes from another identity provider")
      const destination = root.getAttribute("Destination")
      if (destination && destination !== options.sloUrl) throw new SamlRejected("saml-destination", "The logout message is addressed to another service provider")
      const relayState = params.RelayState ?? null
      if (kind === "response") {
        const statusCode = children(children(root, SAMLP_NS, "Status")[0] ?? root, SAMLP_NS, "StatusCode")[0]
        if (statusCode?.getAttribute("Value") !== SUCCESS) throw new SamlRejected("saml-idp-error", "The identity provider could not end the session")
      } else {
        const notOnOrAfter = root.getAttribute("NotOnOrAfter")
        if (notOnOrAfter && !(now().getTime() - skewMs < Date.parse(notOnOrAfter))) throw new SamlRejected("saml-expired", "The logout request has expired")
      }

      // node-saml: the redirect signature with the connection's certificates.
      let profile: Record<string, unknown> | null
      try {
        profile = (await nodeSaml(connection, options).validateRedirectAsync(params, rawQuery.replace(/^\?/, ""))).profile as Record<string, unknown> | null
      } catch (error) {
        throw rejectionOf(error)
      }

      // Act: single use, across instances.
      if (kind === "response") {
        const requestId = root.getAttribute("InResponseTo")
        const pending = requestId ? await store.take("saml-logout", requestId) : null
        const request = pending === null ? null : (JSON.parse(pending) as { connectionId?: string; relayState?: string })
        if (!requestId || request?.connectionId !== connection.id) throw new SamlRejected("saml-unsolicited", "The logout response does not answer a logout request of this app")
        return { kind, requestId, relayState: request.relayState ?? null }
      }
      const requestId = root.getAttribute("ID")
      const nameId = typeof profile?.nameID === "string" ? profile.nameID : null
      if (!requestId || !nameId) throw new SamlRejected("saml-malformed", "The logout request has no ID or no subject")
      if (!(await store.useOnce("saml-logout-request", `${settings.idpEntityId}\n${requestId}`, new Date(now().getTime() + requestMaxAgeMs + skewMs)))) throw new SamlRejected("saml-replayed", "The logout request was already used")
      const logoutProfile = { ...(profile as object), ID: requestId, issuer: settings.idpEntityId, nameID: nameId } as Parameters<ReturnType<typeof nodeSaml>["getLogoutResponseUrlAsync"]>[0]
      return {
        kind,
        requestId,
        nameId,
        nameIdFormat: typeof profile?.nameIDFormat === "string" ? profile.nameIDFormat : null,
        sessionIndex: typeof profile?.sessionIndex === "string" ? profile.sessionIndex : null,
        relayState,
        responseUrl: (success) => nodeSaml(connection, options, `_${randomBytes(20).toString("hex")}`).getLogoutResponseUrlAsync(logoutProfile, relayState ?? "", {}, success),
      }
    },
  }
}
