/**
 * The optional interstitial between opening a sign-in link and being signed in.
 *
 * Mail security scanners (Outlook Safe Links, corporate gateways, chat unfurlers) fetch
 * every link in a message, often before the person does. When a GET consumes the token,
 * the scanner signs in — or at least burns the link, and the user sees "link no longer
 * valid" (next-auth issues #4965, #10383). With the interstitial, the GET only shows this
 * page; the token is consumed by the POST its button sends, which a scanner does not do.
 * @module
 */
import type { Theme } from "../../base-types.js"
import { hiddenFields } from "../pages/forms.js"
import { html } from "../pages/html.js"
import { renderDocument } from "../pages/layout.js"

/** Input of {@link renderConfirmPage}. */
export interface ConfirmPageOptions {
  theme: Theme
  /** The provider's absolute callback URL, where the form posts. */
  action: string
  csrfToken: string
  callbackUrl: string
  /** Raw token and address from the link, posted back unchanged. */
  token: string
  email: string
  /** The site's host, shown so the user knows where they are signing in. */
  host: string
}

/** Renders the "continue signing in" page as a complete HTML document. */
export function renderConfirmPage(page: ConfirmPageOptions): string {
  const body = html`<h1>Sign in to ${page.host}</h1>
<p class="center">Continue as <strong>${page.email}</strong>?</p>
<form method="post" action="${page.action}">
${hiddenFields(page.csrfToken, page.callbackUrl)}
<input type="hidden" name="token" value="${page.token}">
<input type="hidden" name="email" value="${page.email}">
<button type="submit">Sign in</button>
</form>
<p class="center muted">If you did not ask to sign in, close this page: nothing happens until you press the button.</p>`
  return renderDocument({ title: "Sign in", theme: page.theme, body })
}
