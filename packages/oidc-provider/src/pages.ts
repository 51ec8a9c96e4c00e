/**
 * The provider's pages, as SafeHtml fragments rendered by core (`req.page`): the consent page,
 * the sign-out confirmation, the list of apps with access, and an error card. No script:
 * plain forms posting the CSRF token, so they work everywhere and core's CSP holds.
 * @module
 */
import { html, type ExtensionResponse, type ExtensionRequest, type SafeHtml } from "@portcullis/core/extension"
import type { Client } from "./clients.js"
import type { Consent } from "./store/types.js"

type Req = Pick<ExtensionRequest, "t" | "page">

/** A scope as a sentence for people. */
export function scopeSentence(t: Req["t"], scope: string): string {
  const key = `scope.${scope}`
  const known = t(key)
  return known === key ? t("scope.other", { scope }) : known
}

export function errorPage(req: Req, code: string, status = 400): ExtensionResponse {
  const title = req.t("error.title")
  return req.page(title, html`<h1>${title}</h1><p role="alert">${req.t(`error.${code}`)}</p>`, status)
}

export function consentPage(req: Req, input: { client: Client; scopes: string[]; resources: string[]; user: string; action: string; interaction: string; csrfToken: string; redirectUri?: string }): ExtensionResponse {
  const name = input.client.name ?? input.client.clientId
  const title = req.t("consent.title", { client: name })
  const body = html`<h1>${title}</h1>
    ${input.client.dynamic ? unverifiedNotice(req, name, input.redirectUri) : ""}
    <p>${req.t("consent.signedInAs", { user: input.user })}</p>
    <p>${req.t("consent.intro", { client: name })}</p>
    <ul>${input.scopes.map((s) => html`<li>${scopeSentence(req.t, s)}</li>`)}</ul>
    ${input.resources.length ? html`<p>${req.t("consent.resources")}</p><ul>${input.resources.map((r) => html`<li><code>${r}</code></li>`)}</ul>` : ""}
    <form method="post" action="${input.action}">
      <input type="hidden" name="csrfToken" value="${input.csrfToken}">
      <input type="hidden" name="interaction" value="${input.interaction}">
      <button type="submit" name="decision" value="allow">${req.t("consent.allow")}</button>
      <button type="submit" name="decision" value="deny">${req.t("consent.deny")}</button>
    </form>
    <p><small>${req.t("consent.note")}</small></p>`
  return req.page(title, body)
}

/** A self-registered client chose its own name: say so, and show where the answer goes (the one thing it cannot fake). */
function unverifiedNotice(req: Req, name: string, redirectUri: string | undefined): SafeHtml {
  let host = redirectUri ?? ""
  try {
    const url = new URL(host)
    host = url.host || `${url.protocol}${url.pathname}`
  } catch {}
  return html`<p role="note"><strong>${req.t("consent.unverified", { client: name, host })}</strong></p>`
}

export function logoutPage(req: Req, input: { client?: Client; action: string; csrfToken: string; fields: Record<string, string> }): ExtensionResponse {
  const title = req.t("logout.title")
  const body = html`<h1>${req.t("logout.question")}</h1>
    ${input.client ? html`<p>${req.t("logout.from", { client: input.client.name ?? input.client.clientId })}</p>` : ""}
    <form method="post" action="${input.action}">
      <input type="hidden" name="csrfToken" value="${input.csrfToken}">
      ${Object.entries(input.fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
      <button type="submit">${req.t("logout.confirm")}</button>
    </form>`
  return req.page(title, body)
}

/** The list of apps with access, with a revoke button each: a fragment, for this page and an account center. */
export function consentsFragment(t: Req["t"], input: { consents: Consent[]; names: Map<string, string>; action: string; csrfToken: string }): SafeHtml {
  if (!input.consents.length) return html`<section aria-labelledby="oidc-consents"><h2 id="oidc-consents">${t("consents.title")}</h2><p>${t("consents.none")}</p></section>`
  return html`<section aria-labelledby="oidc-consents"><h2 id="oidc-consents">${t("consents.title")}</h2><ul>${input.consents.map(
    (c) => html`<li><strong>${input.names.get(c.clientId) ?? c.clientId}</strong>
      <p>${t("consents.allowed", { scopes: c.scope.split(" ").filter(Boolean).map((s) => scopeSentence(t, s)).join(", ") })}</p>
      <form method="post" action="${input.action}">
        <input type="hidden" name="csrfToken" value="${input.csrfToken}">
        <input type="hidden" name="clientId" value="${c.clientId}">
        <button type="submit">${t("consents.revoke")}</button>
      </form></li>`,
  )}</ul></section>`
}
