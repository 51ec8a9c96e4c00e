/**
 * The page shown after an email sign-in link has been sent.
 * @module
 */
import { html, safeUrl } from "./html.js"
import { renderDocument } from "./layout.js"
import type { PageBase } from "./types.js"

/** Input of {@link renderVerifyRequest}. */
export interface VerifyRequestPageOptions extends PageBase {
  /** The provider that sent the email; accepted for parity, not shown. */
  provider?: string
}

/** Renders the "check your email" page as a complete HTML document. */
export function renderVerifyRequest(page: VerifyRequestPageOptions): string {
  const home = safeUrl(page.origin)
  const body = html`<h1>Check your email</h1>
<p class="center">We have sent you a sign-in link. Open it on this device to finish signing in.</p>
<p class="center muted">The link can only be used once and expires after a while.</p>
${home ? html`<p class="center actions"><a href="${home}">Back to ${siteLabel(home)}</a></p>` : undefined}`
  return renderDocument({ title: "Verify Request", theme: page.theme, body })
}

// The host reads better than a full URL ("Back to example.com").
function siteLabel(origin: string): string {
  try {
    return new URL(origin).host || "the site"
  } catch {
    return "the site"
  }
}
