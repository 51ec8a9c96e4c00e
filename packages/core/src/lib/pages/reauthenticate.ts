/**
 * The step-up page (`<basePath>/reauthenticate`): the ways this configuration offers to
 * prove a first factor again before a sensitive action — the password when the user has
 * one, and a fresh sign-in with any provider (passkey, magic link, OAuth) — then back to
 * where the user was going.
 * @module
 */
import { attr, hiddenFields } from "./forms.js"
import { html, safeUrl } from "./html.js"
import { renderDocument } from "./layout.js"
import { authRoute } from "./paths.js"
import type { PageBase } from "./types.js"
import { en } from "../i18n/catalogs/en.js"

/** Input of {@link renderReauthenticate}. */
export interface ReauthenticatePageOptions extends PageBase {
  callbackUrl: string
  /** Whether to offer the password form (a password provider, and the user has a password). */
  password: boolean
  /** The sign-in page with this `callbackUrl`: a fresh sign-in counts as a step-up too. */
  signInUrl: string
  /** `PasswordMismatch` or `RateLimited` after a failed attempt. */
  error?: string | undefined
}

/** Renders the step-up page as a complete HTML document. */
export function renderReauthenticate(page: ReauthenticatePageOptions): string {
  const m = (page.messages ?? en).reauthenticate
  const alert = page.error === "RateLimited" ? m.tooManyAttempts : page.error ? m.wrongPassword : undefined
  const body = html`<h1>${m.heading}</h1>
${alert ? html`<div class="alert" role="alert"><p>${alert}</p></div>` : undefined}
${page.password
    ? html`<p class="center">${m.instructions}</p>
<form method="post"${attr("action", safeUrl(authRoute(page.basePath, "reauthenticate")))}>
${hiddenFields(page.csrfToken, page.callbackUrl)}
<div class="field">
<label for="reauthenticate-password">${m.passwordLabel}</label>
<input id="reauthenticate-password" name="password" type="password" autocomplete="current-password" required autofocus>
</div>
<button type="submit">${m.button}</button>
</form>
<p class="center muted">${m.otherWays}</p>`
    : html`<p class="center">${m.otherWays}</p>`}
<p class="center"><a${attr("href", safeUrl(page.signInUrl))}>${m.signInAgain}</a></p>`
  return renderDocument({ title: m.title, theme: page.theme, body, locale: page.locale, messages: page.messages })
}
