/**
 * The one error a SAML refusal is: a client-caused 400 with a stable code the integrator can
 * switch on and a message safe to show (it never echoes the XML it refused).
 * @module
 */
import { ExtensionRequestError } from "@portcullis/core/extension"

/**
 * The reasons a SAML message is refused; stable strings, part of the public API.
 *
 * - `saml-malformed`: not base64/UTF-8/well-formed XML, not a Response, not exactly one assertion, undecryptable;
 * - `saml-too-large`: over the size cap (256 KiB of base64; 256 KiB inflated for logout messages);
 * - `saml-doctype`: a document type declaration (XXE, entity expansion);
 * - `saml-weak-algorithm`: a signature, digest or encryption algorithm outside the policy (SHA-1 unless allowed, HMAC, unknown);
 * - `saml-invalid-signature`: unsigned, or not signed by one of the connection's certificates;
 * - `saml-issuer`: another IdP's entity ID; `saml-audience`, `saml-recipient`, `saml-destination`: meant for someone else;
 * - `saml-expired`, `saml-not-yet-valid`: outside its validity window (with the clock skew);
 * - `saml-unsolicited`: answers no pending request of this connection (or IdP-initiated where not allowed);
 * - `saml-replayed`: an assertion (or IdP logout request) already used; `saml-relay-state`: not the request's relay state;
 * - `saml-unencrypted`: a plaintext assertion for a connection that asked for encryption;
 * - `saml-idp-error`: the IdP answered with a non-Success status; `saml-metadata`: unusable IdP metadata.
 */
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
