/**
 * The page shown after an email sign-in link has been sent.
 * @module
 */
import { html, safeUrl } from "./html.js"
import { renderDocument } from "./layout.js"
import type { PageBase } from "./types.js"
import { en } from "../i18n/catalogs/en.js"
import { fill } from "../i18n/format.js"

/** Input of {@link renderVerifyRequest}. */
export interface VerifyRequestPageOptions extends PageBase {
  /** The provider that sent the email; accepted for parity, not shown. */
  provider?: string
}

/** Renders the "check your email" page as a complete HTML document. */
export function renderVerifyRequest(page: VerifyRequestPageOptions): string {
  const m = (page.messages ?? en).verifyRequest
  const home = safeUrl(page.origin)
  const body = html`<h1>${m.heading}</h1>
<p class="center">${m.sent}</p>
<p class="center muted">${m.once}</p>
${home ? html`<p class="center actions"><a href="${home}">${fill(m.backTo, { site: siteLabel(home) ?? m.theSite })}</a></p>` : undefined}`
  return renderDocument({ title: m.title, theme: page.theme, body, locale: page.locale, messages: page.messages })
}

// The host reads better than a full URL ("Back to example.com").
function siteLabel(origin: string): string | undefined {
  try {
    return new URL(origin).host || undefined
  } catch {
    return undefined
  }
}
