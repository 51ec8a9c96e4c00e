/**
 * The alert at the top of the sign-in page, from `?error=` (and `?code=`), in either layout.
 * @module
 */
import { html, type SafeHtml } from "./html.js"
import { messageFor } from "./messages.js"
import type { Messages } from "../i18n/catalog.js"
import type { SignInPageOptions } from "./types.js"

/**
 * The `code` the password sign-in sets on `CredentialsSignin` when the password was right
 * but the address is not confirmed yet. Only someone who knew the password sees it, so it
 * tells nobody else whether the account exists.
 */
export const UNVERIFIED_CODE = "unverified"

/** The alert for the page's error code, or nothing. Codes are keys, never echoed. */
export function signinAlert(page: Pick<SignInPageOptions, "error" | "code">, m: Messages): SafeHtml | undefined {
  if (page.error === undefined) return undefined
  const text =
    page.error === "TwoFactorChallengeInvalid"
      ? m.twoFactor.expired
      : page.error === "CredentialsSignin" && page.code === UNVERIFIED_CODE
        ? m.identifier.unverified
        : messageFor(m.signin.errors, page.error)
  return html`<div class="alert" role="alert"><p>${text}</p></div>`
}
