/**
 * How node-saml is set up for a connection, and how its errors become refusals. One place, so
 * sign-in and logout trust the IdP the same way.
 * @module
 */
import { SAML, SamlStatusError, ValidateInResponseTo, type SamlConfig } from "@node-saml/node-saml"
import type { Connection, SsoStore } from "../store/types.js"
import { SamlRejected } from "./errors.js"

/** How the service provider of a connection is set up; the same for every connection of an app but the URLs. */
export interface SamlOptions {
  store: SsoStore
  /** This SP's entity ID: the `Issuer` of its requests and the audience its assertions must name. */
  spEntityId: string
  /** This connection's Assertion Consumer Service URL (HTTP-POST): the `Destination` and `Recipient` responses must name. */
  acsUrl: string
  /** This connection's single logout URL, published in the metadata when given. */
  sloUrl?: string
  /** Tolerated clock difference with the IdP. Default 60. */
  clockSkewSeconds?: number
  /** How long a sign-in request waits for its answer. Default 600. */
  requestMaxAge?: number
  now?: () => Date
}

/**
 * A node-saml instance for one call; `uniqueId` is the ID this call chose for the message it
 * builds (node-saml asks `generateUniqueId` for it); `responseSigned` when the Response to
 * check carries its own signature. Instances are cheap and hold no timers.
 */
export function nodeSaml(connection: Connection, options: SamlOptions, uniqueId?: string, check: { responseSigned?: boolean } = {}): SAML {
  const settings = connection.saml!
  const config: SamlConfig = {
    issuer: options.spEntityId,
    callbackUrl: options.acsUrl,
    entryPoint: settings.ssoUrl,
    idpCert: settings.certificates,
    idpIssuer: settings.idpEntityId,
    audience: options.spEntityId,
    wantAssertionsSigned: true,
    // A Response may be unsigned (its assertion must be signed), but one that carries a
    // signature must carry a valid one: node-saml would otherwise ignore a broken one.
    wantAuthnResponseSigned: check.responseSigned === true,
    // InResponseTo and the time window are checked by the callers, against the store and `now`.
    validateInResponseTo: ValidateInResponseTo.never,
    acceptedClockSkewMs: -1,
    identifierFormat: null,
    // Asking for a password context would fail sign-ins at IdPs that used a passkey or MFA.
    disableRequestedAuthnContext: true,
    signatureAlgorithm: "sha256",
    digestAlgorithm: "sha256",
    ...(connection.spKey ? { decryptionPvk: connection.spKey.privateKey, privateKey: connection.spKey.privateKey } : {}),
    ...(settings.sloUrl ? { logoutUrl: settings.sloUrl } : {}),
    ...(options.sloUrl ? { logoutCallbackUrl: options.sloUrl } : {}),
    ...(uniqueId ? { generateUniqueId: () => uniqueId } : {}),
  }
  return new SAML(config)
}

/** node-saml throws plain errors; their messages are mapped to codes here and never shown. */
export function rejectionOf(error: unknown): SamlRejected {
  if (error instanceof SamlRejected) return error
  if (error instanceof SamlStatusError) return new SamlRejected("saml-idp-error", "The identity provider refused the sign-in")
  const message = error instanceof Error ? error.message : ""
  if (/audience/i.test(message)) return new SamlRejected("saml-audience", "The assertion is meant for another service provider")
  if (/signature|signed/i.test(message)) return new SamlRejected("saml-invalid-signature", "The response's signature is missing or invalid")
  if (/expired/i.test(message)) return new SamlRejected("saml-expired", "The assertion has expired")
  if (/not yet valid/i.test(message)) return new SamlRejected("saml-not-yet-valid", "The assertion is not valid yet")
  return new SamlRejected("saml-malformed", "The SAML response could not be read")
}

