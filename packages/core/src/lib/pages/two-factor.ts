/**
 * The second step of a sign-in with two-factor authentication: one field for the code from
 * the authenticator app (or a backup code), posted with the CSRF token.
 * @module
 */
import { attr } from "./forms.js"
import { html, safeUrl } from "./html.js"
import { renderDocument } from "./layout.js"
import { authRoute } from "./paths.js"
import type { PageBase } from "./types.js"
import { en } from "../i18n/catalogs/en.js"
import { fill } from "../i18n/format.js"

/** Input of {@link renderTwoFactor}. */
export interface TwoFactorPageOptions extends PageBase {
  /** Whether to offer "remember this device" (`twoFactor.rememberDevice` is set). */
  rememberDevice: boolean
  /** After a wrong code: how many attempts are left. */
  wrong?: { attemptsLeft: number }
}

/** Renders the two-factor code page as a complete HTML document. */
export function renderTwoFactor(page: TwoFactorPageOptions): string {
  const m = (page.messages ?? en).twoFactor
  const body = html`<h1>${m.heading}</h1>
${page.wrong ? html`<div class="alert" role="alert"><p>${m.wrongCode}</p><p>${fill(m.attemptsLeft, { count: String(page.wrong.attemptsLeft) })}</p></div>` : undefined}
<p class="center">${m.instructions}</p>
<form method="post"${attr("action", safeUrl(authRoute(page.basePath, "two-factor")))}>
<input type="hidden" name="csrfToken" value="${page.csrfToken}">
<div class="field">
<label for="two-factor-code">${m.codeLabel}</label>
<input id="two-factor-code" name="code" type="text" inputmode="text" autocomplete="one-time-code" autocapitalize="off" spellcheck="false" maxlength="64" required autofocus>
</div>
${page.rememberDevice ? html`<div class="field"><label><input type="checkbox" name="remember" value="1"> ${m.remember}</label></div>` : undefined}
<button type="submit">${m.button}</button>
</form>
<p class="center muted">${m.backupHint}</p>`
  return renderDocument({ title: m.title, theme: page.theme, body, locale: page.locale, messages: page.messages })
}
