/**
 * The sentences shown for error codes, and their lookup.
 *
 * Codes arrive in the query string, so they are attacker-controlled: a code is only ever
 * used as a key into these tables, and an unknown one gets the generic sentence. The
 * code itself is never turned into the message.
 * @module
 */
import type { SignInPageErrorParam } from "../../types.js"
import { en } from "../i18n/catalogs/en.js"

/** Codes the sign-in page explains (`?error=` on `/signin`). */
export type SigninErrorCode =
  | SignInPageErrorParam
  | "MissingCSRF"
  | "AccessDenied"
  | "Verification"
  | "WebAuthnVerificationError"
  | "AccountNotLinked"
  | "RateLimited"

/** Sign-in page alert text by error code, in English; `default` covers every other code. */
export const signinErrorMessages: Readonly<Record<SigninErrorCode | "default", string>> = Object.freeze({ ...en.signin.errors })

/** Codes the error page knows (`?error=` on `/error`). */
export type ErrorPageCode = "Configuration" | "AccessDenied" | "Verification" | "ServiceUnavailable"

/** Error page text by error code, in English; `default` covers every other code. */
export const errorPageMessages: Readonly<Record<ErrorPageCode | "default", string>> = Object.freeze(
  Object.fromEntries(Object.entries(en.error.pages).map(([code, page]) => [code, page.message])) as Record<ErrorPageCode | "default", string>,
)

/**
 * Whether `code` is one of `table`'s own keys (other than `default`). `Object.hasOwn`
 * matters: a plain index would find inherited members for `?error=constructor`.
 */
export function isKnownCode<K extends string>(table: Readonly<Record<K | "default", unknown>>, code: string | undefined): code is K {
  return code !== undefined && code !== "default" && Object.hasOwn(table, code)
}

/** `table[code]` for a known code, else `table.default`. */
export function messageFor<K extends string>(table: Readonly<Record<K | "default", string>>, code: string | undefined): string {
  return isKnownCode(table, code) ? table[code] : table.default
}
