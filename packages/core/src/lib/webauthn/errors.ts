import { WebAuthnVerificationError as AuthjsWebAuthnVerificationError, type ErrorKind } from "../../errors.js"

/**
 * The error every passkey refusal throws: a `WebAuthnVerificationError` (same class chain,
 * same `type` and name, so `instanceof` and `switch (error.type)` work) that sends the user
 * back to the sign-in page, where they can try again, instead of the error page where
 * Auth.js sends it.
 */
export class WebAuthnVerificationError extends AuthjsWebAuthnVerificationError {
  static override kind: ErrorKind = "signIn"
}
