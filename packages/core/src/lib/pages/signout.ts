/**
 * The sign-out confirmation page. Signing out is a POST with the CSRF token, so a link or
 * image pointing at the sign-out route cannot sign anyone out.
 * @module
 */
import { attr, hiddenFields } from "./forms.js"
import { html, safeUrl } from "./html.js"
import { renderDocument } from "./layout.js"
import { authRoute } from "./paths.js"
import type { PageBase } from "./types.js"
import { en } from "../i18n/catalogs/en.js"

/** Input of {@link renderSignOut}. */
export interface SignOutPageOptions extends PageBase {
  /** Where to go after signing out; posted back as the hidden `callbackUrl` field. */
  callbackUrl: string
}

/** Renders the sign-out confirmation page as a complete HTML document. */
export function renderSignOut(page: SignOutPageOptions): string {
  // If basePath is somehow not a usable URL the action is left out, and the form posts
  // back to the page's own URL, which is the sign-out route anyway.
  const m = (page.messages ?? en).signout
  const body = html`<h1>${m.heading}</h1>
<p class="center">${m.question}</p>
<form method="post"${attr("action", safeUrl(authRoute(page.basePath, "signout")))}>
${hiddenFields(page.csrfToken, page.callbackUrl)}
<button type="submit">${m.button}</button>
</form>`
  return renderDocument({ title: m.title, theme: page.theme, body, locale: page.locale, messages: page.messages })
}
