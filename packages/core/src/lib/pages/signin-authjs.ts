/**
 * The sign-in page in Auth.js's layout (`theme.layout: "authjs"`): one form per provider,
 * grouped, with "or" between groups. Kept as it was for apps that screenshot-test it.
 * @module
 */
import { html, raw, type SafeHtml } from "./html.js"
import { renderDocument } from "./layout.js"
import { en } from "../i18n/catalogs/en.js"
import { signinAlert } from "./signin-alert.js"
import { credentialsForm, emailForm, groupProviders, IdAllocator, isRedirect, oauthForm, passwordForm, webauthnForm, type FormContext } from "./signin-forms.js"
import type { PageProvider, SignInPageOptions } from "./types.js"

/** Renders the sign-in page in Auth.js's layout as a complete HTML document. */
export function renderAuthjsSignIn(page: SignInPageOptions): string {
  const m = page.messages ?? en
  const ctx: FormContext = { page, ids: new IdAllocator(), m }
  const groups = groupProviders(page.providers)
    .map((group) => renderGroup(group, ctx))
    .filter((block): block is SafeHtml => block !== undefined)
  const separated = groups.map((block, i) => (i === 0 ? block : html`<p class="divider">${m.signin.or}</p>
${block}`))
  const alert = signinAlert(page, m)
  // The forms' scripts are inlined once per page: the CSP allows inline scripts and nothing from elsewhere.
  const body = html`<h1>${m.signin.heading}</h1>
${alert}
${separated.length > 0 ? separated : html`<p class="muted center">${m.signin.noProviders}</p>`}
${page.scripts?.map((code) => html`<script>${raw(code)}</script>`)}`
  return renderDocument({ title: m.signin.title, theme: page.theme, body, locale: page.locale, messages: m })
}

function renderGroup(group: PageProvider[], ctx: FormContext): SafeHtml | undefined {
  const first = group[0]!
  if (isRedirect(first)) {
    const buttons = group.map((p) => oauthForm(p, ctx)).filter((b) => b !== undefined)
    return buttons.length > 0 ? html`<div class="provider-list">${buttons}</div>` : undefined
  }
  switch (first.type) {
    case "email":
      return emailForm(first, ctx)
    case "credentials":
      return credentialsForm(first, ctx)
    case "webauthn":
      return webauthnForm(first, ctx)
    case "password":
      return passwordForm(first, ctx)
    default:
      return undefined
  }
}

