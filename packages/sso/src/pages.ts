/**
 * The SSO settings page of an organization, in the configuration's theme and the request's
 * language (`req.page`): its connections (with what to give the IdP), their SCIM tokens, its
 * domains (with the TXT record to publish). Every form posts to a `forms/…` route with the CSRF
 * token; every value shown goes through `html`, which escapes it. Nothing secret is shown: a
 * connection is rendered from its {@link ConnectionView}, which has no client secret or key.
 * @module
 */
import { html, raw, type ExtensionRequest, type ExtensionResponse, type SafeHtml } from "@portcullis/core/extension"
import type { SsoLocals } from "./locals.js"
import type { ConnectionView, DomainView } from "./operations.js"

type Request = ExtensionRequest<SsoLocals>

/** What the settings page shows: read by the route through `ssoOperations`. */
export interface SettingsData {
  organizationId: string
  connections: ConnectionView[]
  /** SCIM tokens by connection id (ids and dates only: a token's value is never kept readable). */
  scimTokens: Record<string, Array<{ id: string; createdAt: string; lastUsedAt: string | null }>>
  domains: DomainView[]
}

/** Something to show atop the page once, for an answer that is not a redirect. */
export type SettingsNotice =
  | { kind: "test"; ok: boolean; detail: string }
  /** A SCIM token just made: its only showing. */
  | { kind: "scimToken"; connectionName: string; token: string; scimBaseUrl: string }

/** The page's own styles: a wider card and tables — colours from the theme's properties. */
const STYLE = raw(`<style>
.card:has(.pc-sso) { max-width: 64rem; width: 100%; }
.pc-sso a { color: var(--pc-text); text-decoration: underline; }
.pc-sso .pc-table { width: 100%; border-collapse: collapse; margin: 0.5rem 0 1.5rem; }
.pc-sso .pc-table caption { text-align: start; font-weight: 600; padding: 0.25rem 0; }
.pc-sso .pc-table th, .pc-sso .pc-table td { text-align: start; padding: 0.35rem 0.5rem; border-bottom: 1px solid var(--pc-border); vertical-align: top; overflow-wrap: anywhere; }
.pc-sso .pc-table th[scope="col"] { overflow-wrap: normal; }
.pc-sso .pc-row-actions { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.pc-sso .pc-row-actions form { margin: 0; }
.pc-sso fieldset { border: 1px solid var(--pc-border); border-radius: var(--pc-radius); padding: 0.75rem 1rem; margin: 0 0 1rem; }
.pc-sso textarea { width: 100%; min-height: 6rem; font-family: monospace; }
.pc-sso code { overflow-wrap: anywhere; }
</style>`)

/** The base of the page's URLs: `<authUrl>/sso/organizations/<id>`. */
export function settingsUrl(authUrl: string, organizationId: string): string {
  return `${authUrl}/sso/organizations/${encodeURIComponent(organizationId)}`
}

/** `?done=` / `?error=` from the redirect after a form: a known key's sentence only (never the query's text). */
function noticeOf(req: Request): SafeHtml | "" {
  const known = (key: string) => req.t(key) !== key
  const done = req.query.done
  if (done && /^[a-zA-Z]+$/.test(done) && known(`done.${done}`)) return html`<p role="status">${req.t(`done.${done}`)}</p>`
  const error = req.query.error
  if (error && /^[a-zA-Z-]+$/.test(error) && known(`error.${error}`)) return html`<p role="alert">${req.t(`error.${error}`)}</p>`
  return ""
}

function shownNotice(req: Request, notice: SettingsNotice | undefined): SafeHtml | "" {
  if (!notice) return ""
  if (notice.kind === "test") {
    return notice.ok ? html`<p role="status">${req.t("settings.testPassed", { detail: notice.detail })}</p>` : html`<p role="alert">${req.t("settings.testFailed", { detail: notice.detail })}</p>`
  }
  return html`<div role="status"><p>${req.t("settings.scimTokenOnce", { name: notice.connectionName })}</p>
<p><label for="new-scim-token">${req.t("settings.scimToken")}</label><br><input id="new-scim-token" readonly value="${notice.token}" size="48" autocomplete="off" spellcheck="false"></p>
<p>${req.t("settings.scimBaseUrl")}: <code>${notice.scimBaseUrl}</code></p></div>`
}

function date(req: Request, value: string | null): string {
  if (!value) return req.t("settings.never")
  const at = new Date(value)
  return Number.isNaN(at.getTime()) ? "—" : new Intl.DateTimeFormat(req.locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }).format(at) + " UTC"
}

/** A form of one button (and hidden fields), posting to `action` with the CSRF token. */
function button(action: string, csrfToken: string, label: string, accessibleName?: string): SafeHtml {
  return html`<form method="post" action="${action}"><input type="hidden" name="csrfToken" value="${csrfToken}"><button type="submit"${accessibleName ? html` aria-label="${accessibleName}"` : ""}>${label}</button></form>`
}

/** What to give the IdP: for SAML the SP's entity ID, ACS URL and metadata; for OIDC the redirect URI. */
function setup(req: Request, c: ConnectionView): SafeHtml {
  if (c.saml) {
    return html`<dl><dt>${req.t("settings.spEntityId")}</dt><dd><code>${c.saml.spEntityId}</code></dd>
<dt>${req.t("settings.acsUrl")}</dt><dd><code>${c.saml.acsUrl}</code></dd>
<dt>${req.t("settings.spMetadata")}</dt><dd><a href="${c.saml.spMetadataUrl}">${c.saml.spMetadataUrl}</a></dd></dl>`
  }
  return html`<dl><dt>${req.t("settings.redirectUri")}</dt><dd><code>${c.oidc?.redirectUri ?? ""}</code></dd></dl>`
}

function connectionsSection(req: Request, data: SettingsData, base: string, csrfToken: string): SafeHtml {
  const rows = data.connections.map((c) => {
    const at = `${base}/forms/connections/${encodeURIComponent(c.id)}`
    const named = (key: string) => `${req.t(key)}: ${c.name}`
    return html`<tr><th scope="row">${c.name}</th><td>${c.kind === "saml" ? "SAML" : "OpenID Connect"}</td><td>${c.enabled ? req.t("settings.enabled") : req.t("settings.disabled")}</td><td>${setup(req, c)}</td>
<td><div class="pc-row-actions">${c.enabled ? button(`${at}/disable`, csrfToken, req.t("settings.disable"), named("settings.disable")) : button(`${at}/enable`, csrfToken, req.t("settings.enable"), named("settings.enable"))}
${button(`${at}/test`, csrfToken, req.t("settings.test"), named("settings.test"))}
${button(`${at}/delete`, csrfToken, req.t("settings.delete"), named("settings.delete"))}</div></td></tr>`
  })
  const table = data.connections.length
    ? html`<table class="pc-table"><caption>${req.t("settings.connections")}</caption><thead><tr><th scope="col">${req.t("settings.name")}</th><th scope="col">${req.t("settings.kind")}</th><th scope="col">${req.t("settings.status")}</th><th scope="col">${req.t("settings.setup")}</th><th scope="col">${req.t("settings.actions")}</th></tr></thead><tbody>${rows}</tbody></table>`
    : html`<p>${req.t("settings.noConnections")}</p>`
  const addSaml = html`<form method="post" action="${`${base}/forms/saml`}"><fieldset><legend>${req.t("settings.addSaml")}</legend>
<input type="hidden" name="csrfToken" value="${csrfToken}">
<p><label for="saml-name">${req.t("settings.name")}</label><br><input id="saml-name" name="name" required maxlength="100"></p>
<p><label for="saml-metadata-url">${req.t("settings.metadataUrl")}</label><br><input id="saml-metadata-url" name="metadataUrl" type="url" maxlength="2048"></p>
<p><label for="saml-metadata-xml">${req.t("settings.metadataXml")}</label><br><textarea id="saml-metadata-xml" name="metadataXml" maxlength="200000"></textarea></p>
<button type="submit">${req.t("settings.add")}</button></fieldset></form>`
  const addOidc = html`<form method="post" action="${`${base}/forms/oidc`}"><fieldset><legend>${req.t("settings.addOidc")}</legend>
<input type="hidden" name="csrfToken" value="${csrfToken}">
<p><label for="oidc-name">${req.t("settings.name")}</label><br><input id="oidc-name" name="name" required maxlength="100"></p>
<p><label for="oidc-issuer">${req.t("settings.issuer")}</label><br><input id="oidc-issuer" name="issuer" type="url" required maxlength="2048"></p>
<p><label for="oidc-client-id">${req.t("settings.clientId")}</label><br><input id="oidc-client-id" name="clientId" required maxlength="512" autocomplete="off"></p>
<p><label for="oidc-client-secret">${req.t("settings.clientSecret")}</label><br><input id="oidc-client-secret" name="clientSecret" type="password" maxlength="1024" autocomplete="off"></p>
<button type="submit">${req.t("settings.add")}</button></fieldset></form>`
  return html`<h2>${req.t("settings.connections")}</h2>${table}${addSaml}${addOidc}`
}

function scimSection(req: Request, data: SettingsData, base: string, csrfToken: string): SafeHtml | "" {
  if (!data.connections.length) return ""
  const parts = data.connections.map((c) => {
    const at = `${base}/forms/connections/${encodeURIComponent(c.id)}/scim-tokens`
    const tokens = data.scimTokens[c.id] ?? []
    const caption = req.t("settings.scimTokensOf", { name: c.name })
    const table = tokens.length
      ? html`<table class="pc-table"><caption>${caption}</caption><thead><tr><th scope="col">${req.t("settings.created")}</th><th scope="col">${req.t("settings.lastUsed")}</th><th scope="col">${req.t("settings.actions")}</th></tr></thead><tbody>${tokens.map(
          (t) => html`<tr><th scope="row">${date(req, t.createdAt)}</th><td>${date(req, t.lastUsedAt)}</td><td><div class="pc-row-actions">${button(`${at}/${encodeURIComponent(t.id)}/revoke`, csrfToken, req.t("settings.revoke"), `${req.t("settings.revoke")}: ${c.name}, ${date(req, t.createdAt)}`)}</div></td></tr>`,
        )}</tbody></table>`
      : html`<p>${caption}: ${req.t("settings.noScimTokens")}</p>`
    return html`${table}<div class="pc-row-actions">${button(at, csrfToken, req.t("settings.createScimToken"), `${req.t("settings.createScimToken")}: ${c.name}`)}</div>`
  })
  return html`<h2>${req.t("settings.scim")}</h2>${parts}`
}

function domainsSection(req: Request, data: SettingsData, base: string, csrfToken: string): SafeHtml {
  const rows = data.domains.map((d) => {
    const at = `${base}/forms/domains/${encodeURIComponent(d.domain)}`
    const named = (key: string) => `${req.t(key)}: ${d.domain}`
    const policy = d.requireSso
      ? button(`${at}/allow`, csrfToken, req.t("settings.stopRequiringSso"), named("settings.stopRequiringSso"))
      : d.verified
        ? button(`${at}/require`, csrfToken, req.t("settings.requireSso"), named("settings.requireSso"))
        : ""
    return html`<tr><th scope="row">${d.domain}</th><td>${d.verified ? req.t("settings.verified") : req.t("settings.pending")}${d.requireSso ? html`<br>${req.t("settings.ssoRequired")}` : ""}</td>
<td><dl><dt>${req.t("settings.recordName")}</dt><dd><code>${d.record.name}</code></dd><dt>${req.t("settings.recordValue")}</dt><dd><code>${d.record.value}</code></dd></dl></td>
<td><div class="pc-row-actions">${d.verified ? "" : button(`${at}/verify`, csrfToken, req.t("settings.verify"), named("settings.verify"))}${policy}
${button(`${at}/delete`, csrfToken, req.t("settings.remove"), named("settings.remove"))}</div></td></tr>`
  })
  const table = data.domains.length
    ? html`<table class="pc-table"><caption>${req.t("settings.domains")}</caption><thead><tr><th scope="col">${req.t("settings.domain")}</th><th scope="col">${req.t("settings.status")}</th><th scope="col">${req.t("settings.record")}</th><th scope="col">${req.t("settings.actions")}</th></tr></thead><tbody>${rows}</tbody></table>`
    : html`<p>${req.t("settings.noDomains")}</p>`
  const claim = html`<form method="post" action="${`${base}/forms/domains`}"><fieldset><legend>${req.t("settings.claim")}</legend>
<input type="hidden" name="csrfToken" value="${csrfToken}">
<p><label for="domain-name">${req.t("settings.domain")}</label><br><input id="domain-name" name="domain" required maxlength="253" autocomplete="off"></p>
<button type="submit">${req.t("settings.claimButton")}</button></fieldset></form>`
  return html`<h2>${req.t("settings.domains")}</h2>${table}${claim}`
}

/**
 * The settings page of `data.organizationId`: connections, SCIM tokens, domains, and a notice —
 * from `?done=`/`?error=` (catalog keys only) or `notice`, the answer of a form that shows
 * something once (a test's result, a new SCIM token).
 */
export async function settingsPage(req: Request, data: SettingsData, notice?: SettingsNotice, status = 200): Promise<ExtensionResponse> {
  const base = settingsUrl(req.authUrl, data.organizationId)
  const csrfToken = await req.csrfToken()
  const title = req.t("settings.title")
  const body = html`${STYLE}<div class="pc-sso"><h1>${title}</h1>
${noticeOf(req)}${shownNotice(req, notice)}
${connectionsSection(req, data, base, csrfToken)}
${scimSection(req, data, base, csrfToken)}
${domainsSection(req, data, base, csrfToken)}
</div>`
  return req.page(title, body, status)
}
