/**
 * The interstitial between opening a sign-in link and being signed in (on unless the
 * provider sets `interstitial: false`).
 *
 * Mail security scanners (Outlook Safe Links, corporate gateways, chat unfurlers) fetch
 * every link in a message, often before the person does. When a GET consumes the token,
 * the scanner signs in — or at least burns the link, and the user sees "link no longer
 * valid" (next-auth issues #4965, #10383). With the interstitial, the GET only shows this
 * page; the token is consumed by the POST its button sends, which a scanner does not do.
 * @module
 */
import type { Theme } from "../../base-types.js"
import { linkConfirmForm } from "../pages/forms.js"
import { html } from "../pages/html.js"
import { renderDocument } from "../pages/layout.js"
import type { Messages } from "../i18n/catalog.js"
import { en } from "../i18n/catalogs/en.js"
import { fill } from "../i18n/format.js"

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
  /** The page's language. Default English. */
  locale?: string
  messages?: Messages
}

/** Renders the "continue signing in" page as a complete HTML document. */
export function renderConfirmPage(page: ConfirmPageOptions): string {
  const m = (page.messages ?? en).confirm
  const body = html`<h1>${fill(m.heading, { host: page.host })}</h1>
<p class="center">${fill(m.continueAs, { email: html`<strong>${page.email}</strong>` })}</p>
${linkConfirmForm(page.action, page, m.button)}
<p class="center muted">${m.ignore}</p>`
  return renderDocument({ title: m.title, theme: page.theme, body, locale: page.locale, messages: page.messages })
}
