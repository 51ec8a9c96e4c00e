/**
 * The impersonation banner as HTML, for the console's pages and (through the extension's
 * `banner` hook) every extension page — apart from the pages module, so the impersonation
 * code that shows it and the pages that import the operations tie no circle.
 * @module
 */
import { html, type ExtensionTools, type SafeHtml } from "@portcullis/core/extension"

type Request = Pick<ExtensionTools, "t" | "locale" | "authUrl">

/**
 * The impersonation banner: who is being impersonated, by whom, until when, and the one-click
 * end (a `POST` with the CSRF token). A landmark (`role="region"`, labelled) so a screen reader
 * finds it; shown atop the console's pages and the account center while impersonating.
 */
export function impersonationBanner(req: Request, field: { impersonatedBy: { id: string; email: string | null }; until: string }, user: string, csrfToken: string): SafeHtml {
  const until = new Intl.DateTimeFormat(req.locale, { timeStyle: "short", timeZone: "UTC" }).format(new Date(field.until)) + " UTC"
  return html`<div class="pc-impersonation" role="region" aria-label="${req.t("impersonation")}" style="border:2px solid var(--pc-alert-text);border-radius:var(--pc-radius);padding:0.5rem 0.75rem;margin:0 0 1rem">
<p>${req.t("impersonationBanner", { user, admin: field.impersonatedBy.email ?? field.impersonatedBy.id, until })}</p>
<form method="post" action="${`${req.authUrl}/admin/impersonation/end`}"><input type="hidden" name="csrfToken" value="${csrfToken}"><button type="submit">${req.t("endImpersonation")}</button></form>
</div>`
}
