/**
 * The one error a SAML refusal is: a client-caused 400 with a stable code the integrator can
 * switch on and a message safe to show (it never echoes the XML it refused).
 * @module
 */
import { ExtensionRequestError } from "@portcullis/core/extension"

/** The reasons a SAML response is refused; stable strings, part of the public API. */
export type SamlRejectionCode =
  | "saml-malformed"
  | "saml-too-large"
  | "saml-doctype"
  | "saml-weak-algorithm"
  | "saml-invalid-signature"
  | "saml-issuer"
  | "saml-audience"
  | "saml-destination"
  | "saml-recipient"
  | "saml-expired"
  | "saml-not-yet-valid"
  | "saml-unsolicited"
  | "saml-replayed"
  | "saml-idp-error"
  | "saml-metadata"
  | "saml-relay-state"
  | "saml-unencrypted"

/**
 * A SAML response (or metadata) this service provider will not accept.
 *
 * @example
 * ```ts
 * try {
 *   await sp.completeSignIn(form)
 * } catch (error) {
 *   if (error instanceof SamlRejected && error.code === "saml-replayed") { ... }
 *   throw error
 * }
 * ```
 */
export class SamlRejected extends ExtensionRequestError {
  declare readonly code: SamlRejectionCode

  constructor(code: SamlRejectionCode, message: string) {
    super(code, message, 400)
  }
}
