/**
 * The sentences shown for error codes, and their lookup.
 *
 * Codes arrive in the query string, so they are attacker-controlled: a code is only ever
 * used as a key into these tables, and an unknown one gets the generic sentence. The
 * code itself is never turned into the message.
 * @module
 */
import type { SignInPageErrorParam } from "../../types.js"

/** Codes the sign-in page explains (`?error=` on `/signin`). */
export type SigninErrorCode =
  | SignInPageErrorParam
  | "MissingCSRF"
  | "AccessDenied"
  | "Verification"
  | "WebAuthnVerificationError"
  | "AccountNotLinked"
  | "RateLimited"

const TRY_ANOTHER_ACCOUNT = "We could not sign you in with that account. Please try again, or use a different account."

/** Sign-in page alert text by error code; `default` covers every other code. */
export const signinErrorMessages: Readonly<Record<SigninErrorCode | "default", string>> = Object.freeze({
  default: "Something went wrong while signing you in. Please try again.",
  Signin: TRY_ANOTHER_ACCOUNT,
  OAuthSignin: TRY_ANOTHER_ACCOUNT,
  OAuthCallbackError: TRY_ANOTHER_ACCOUNT,
  OAuthCreateAccount: TRY_ANOTHER_ACCOUNT,
  EmailCreateAccount: TRY_ANOTHER_ACCOUNT,
  Callback: TRY_ANOTHER_ACCOUNT,
  OAuthAccountNotLinked:
    "This email address is already linked to another way of signing in. To keep your account safe, please sign in the way you used before.",
  EmailSignin: "We could not send the sign-in email. Please check the address and try again.",
  // Deliberately vague: naming the wrong field would tell an attacker which half was right.
  CredentialsSignin: "Sign-in failed. Please check the details you provided and try again.",
  SessionRequired: "Please sign in to see this page.",
  MissingCSRF: "This form has expired. Please try signing in again.",
  AccessDenied: "You do not have permission to sign in.",
  Verification: "That sign-in link is no longer valid. It may have expired or already been used. Please request a new one.",
  WebAuthnVerificationError: "We could not verify your passkey. Please try again.",
  AccountNotLinked: "This passkey or email belongs to another account. Sign in to that account first.",
  // The same words whether or not the account exists, and whether or not the password was right.
  RateLimited: "Too many sign-in attempts. For your security, please wait a few minutes before trying again.",
})

/** Codes the error page knows (`?error=` on `/error`). */
export type ErrorPageCode = "Configuration" | "AccessDenied" | "Verification" | "ServiceUnavailable"

/** Error page text by error code; `default` covers every other code. */
export const errorPageMessages: Readonly<Record<ErrorPageCode | "default", string>> = Object.freeze({
  default: "Something went wrong. Please try again later.",
  Configuration: "There is a problem with the server configuration. Check the server logs for more information.",
  AccessDenied: "You do not have permission to sign in.",
  Verification: "The sign-in link is no longer valid. It may have expired, or it may have been used already.",
  // An outage, not a refusal: nothing the user did was wrong, and nothing was changed.
  ServiceUnavailable: "We could not reach the sign-in service just now. Nothing was changed; please try again in a moment.",
})

/**
 * Whether `code` is one of `table`'s own keys (other than `default`). `Object.hasOwn`
 * matters: a plain index would find inherited members for `?error=constructor`.
 */
export function isKnownCode<K extends string>(table: Readonly<Record<K | "default", string>>, code: string | undefined): code is K {
  return code !== undefined && code !== "default" && Object.hasOwn(table, code)
}

/** `table[code]` for a known code, else `table.default`. */
export function messageFor<K extends string>(table: Readonly<Record<K | "default", string>>, code: string | undefined): string {
  return isKnownCode(table, code) ? table[code] : table.default
}
