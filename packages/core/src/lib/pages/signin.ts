/**
 * The sign-in page. The default layout is identifier-first: redirect providers (OAuth, OIDC)
 * as buttons, then ONE email field; its "Continue" leads to the methods configured for email
 * addresses (passkey, password, magic link). The second step is the same for every address —
 * nothing is looked up, so it says nothing about who has an account, and takes no longer for
 * one address than another. `theme.layout: "authjs"` renders Auth.js's page instead.
 *
 * Without JavaScript the first step is a POST (CSRF-checked) that renders the second. With
 * it, the second step is already in the page (hidden) and an inline script reveals it.
 * @module
 */
import { field, hiddenFields } from "./forms.js"
import { html, raw, safeUrl, type SafeHtml } from "./html.js"
import { renderDocument } from "./layout.js"
import { en } from "../i18n/catalogs/en.js"
import { fill } from "../i18n/format.js"
import type { Messages } from "../i18n/catalog.js"
import { authRoute } from "./paths.js"
import { renderAuthjsSignIn } from "./signin-authjs.js"
import { signinAlert } from "./signin-alert.js"
import { credentialsForm, IdAllocator, identifiedEmail, isRedirect, oauthForm, passwordLinks, webauthnForm, type FormContext } from "./signin-forms.js"
import type { PageProvider, SignInPageOptions } from "./types.js"

export type { SignInPageOptions } from "./types.js"

/** The kinds the identifier step leads to: each signs in with the email address. */
const ADDRESS_KINDS = new Set<PageProvider["type"]>(["email", "password", "webauthn"])

/**
 * The English names the built-in providers are given (`Password()`, `Passkey()`,
 * `WebAuthn()`, the email providers): while a provider keeps one, the page shows the
 * kind's name in the page's language. A name the app chose is shown as written.
 */
const DEFAULT_NAMES: Readonly<Record<string, readonly string[]>> = {
  password: ["Password"],
  webauthn: ["Passkey", "WebAuthn"],
  email: ["Email"],
}

/**
 * Renders the sign-in page as a complete HTML document, in the layout `theme.layout` picks.
 *
 * @example
 * renderSignIn({ theme: {}, basePath: "/auth", origin: "https://example.com", csrfToken, providers, callbackUrl: "/" })
 */
export function renderSignIn(page: SignInPageOptions): string {
  const m = page.messages ?? en
  const localized = { ...page, providers: page.providers.map((p) => localizeName(p, m)) }
  return page.theme.layout === "authjs" ? renderAuthjsSignIn(localized) : renderIdentifierFirst(localized, m)
}

function localizeName(provider: PageProvider, m: Messages): PageProvider {
  if (!DEFAULT_NAMES[provider.type]?.includes(provider.name)) return provider
  const kind = provider.type === "webauthn" ? "passkey" : (provider.type as "password" | "email")
  // English keeps the provider's own name, so Auth.js's layout reads exactly as Auth.js's.
  return m.identifier.kinds[kind] === en.identifier.kinds[kind] ? provider : { ...provider, name: m.identifier.kinds[kind] }
}

function renderIdentifierFirst(page: SignInPageOptions, m: Messages): string {
  const ctx: FormContext = { page, ids: new IdAllocator(), m }
  const redirects = page.providers.filter(isRedirect)
  const addressed = page.providers.filter((p) => ADDRESS_KINDS.has(p.type))
  const credentials = page.providers.filter((p) => p.type === "credentials")
  const second = page.identified !== undefined && addressed.length > 0

  const sections: SafeHtml[] = []
  if (!second) {
    const buttons = redirects.map((p) => oauthForm(p, ctx)).filter((b) => b !== undefined)
    if (buttons.length > 0) sections.push(html`<div class="provider-list">${buttons}</div>`)
  }
  if (addressed.length > 0) sections.push(second ? methodsStep(addressed, ctx, page.identified!, false) : identifierStep(addressed, ctx))
  if (!second) {
    for (const p of credentials) {
      const form = credentialsForm(p, ctx)
      if (form) sections.push(form)
    }
  }
  const separated = sections.map((block, i) => (i === 0 ? block : html`<p class="divider">${m.signin.or}</p>
${block}`))
  const invalid = page.invalidIdentifier ? html`<div class="alert" role="alert"><p>${m.password.errors.InvalidEmail}</p></div>` : undefined
  // The forms' scripts are inlined once per page: the CSP allows inline scripts and nothing from elsewhere.
  const body = html`<h1>${m.signin.heading}</h1>
${signinAlert(page, m) ?? invalid}
${separated.length > 0 ? separated : html`<p class="muted center">${m.signin.noProviders}</p>`}
${page.scripts?.map((code) => html`<script>${raw(code)}</script>`)}
${second || addressed.length === 0 || page.routed ? undefined : html`<script>${raw(IDENTIFIER_STEP_SCRIPT)}</script>`}`
  return renderDocument({ title: m.identifier.title, theme: page.theme, body, locale: page.locale, messages: m })
}

/**
 * The first step: one email field. A passkey provider with conditional UI puts `webauthn` in
 * its `autocomplete`, so the browser offers passkeys right there. The second step follows,
 * hidden, for the script to reveal without a round trip.
 */
function identifierStep(addressed: PageProvider[], ctx: FormContext): SafeHtml {
  const { page, ids, m } = ctx
  const conditional = addressed.some((p) => p.type === "webauthn" && p.enableConditionalUI !== false)
  return html`<form method="post" action="${safeUrl(authRoute(page.basePath, "signin"))}" data-identifier-step>
${hiddenFields(page.csrfToken, page.callbackUrl)}
${field({
  id: ids.next("identifier", "email"),
  name: "email",
  label: m.signin.emailLabel,
  type: "email",
  value: page.email,
  placeholder: "you@example.com",
  autocomplete: conditional ? "username webauthn" : "username",
  required: true,
})}
<button type="submit">${m.identifier.continue}</button>
</form>
${methodsStep(addressed, ctx, "", true)}`
}

/**
 * The second step: whose address this is, a way back, and one form per method, each
 * carrying the address. `template`: rendered hidden into the first step for the script.
 */
function methodsStep(addressed: PageProvider[], ctx: FormContext, email: string, template: boolean): SafeHtml {
  const { page, m } = ctx
  // The sentence is split around the address so the script can fill it in any language; the
  // address keeps its own direction inside a right-to-left sentence (`dir="auto"`).
  const [before = "", after = ""] = m.identifier.signingInAs.split("{email}")
  // One email provider is "the link by email", whatever service sends it (Nodemailer, Resend…).
  const emailKinds = addressed.filter((p) => p.type === "email").length
  const route = template ? undefined : page.route
  const forms = [
    ...(route ? [routeForm(route, ctx, email)] : []),
    ...(route?.only ? [] : addressed.map((p) => methodForm(p, ctx, email, template, emailKinds === 1))),
  ]
    .filter((f): f is SafeHtml => f !== undefined)
    .map((block, i) => (i === 0 ? block : html`<p class="divider">${m.signin.or}</p>
${block}`))
  return html`<div class="methods" data-identifier-methods${template ? html` hidden` : undefined}>
<p class="identity">${before}<strong dir="auto" data-identifier-shown>${email}</strong>${after} · <a href="${safeUrl(authRoute(page.basePath, "signin"))}">${m.identifier.changeEmail}</a></p>
${forms}
</div>`
}

/** An extension's way in for the address (its organization's SSO): the address posted to the extension's route. */
function routeForm(route: NonNullable<SignInPageOptions["route"]>, ctx: FormContext, email: string): SafeHtml | undefined {
  const action = safeUrl(route.action)
  if (!action) return undefined
  return html`<form method="post" action="${action}" data-signin-route>
${hiddenFields(ctx.page.csrfToken, ctx.page.callbackUrl)}
${identifiedEmail(email)}
<button type="submit">${route.label}</button>
</form>`
}

function methodForm(provider: PageProvider, ctx: FormContext, email: string, template: boolean, onlyEmail: boolean): SafeHtml | undefined {
  const { page, ids, m } = ctx
  switch (provider.type) {
    case "webauthn":
      // Conditional UI belongs to the first step's field; the second has none to offer it in.
      return webauthnForm(template ? provider : { ...provider, enableConditionalUI: false }, ctx, email)
    case "password": {
      const action = safeUrl(provider.callbackUrl)
      if (!action) return undefined
      return html`<form method="post" action="${action}">
${hiddenFields(page.csrfToken, page.callbackUrl)}
${identifiedEmail(email)}
${field({ id: ids.next(provider.id, "password"), name: "password", label: m.password.passwordLabel, type: "password", autocomplete: "current-password", required: true })}
<button type="submit">${fill(m.signin.signInWith, { provider: provider.name })}</button>
</form>
${passwordLinks(page.basePath, m)}`
    }
    case "email": {
      const action = safeUrl(provider.signinUrl)
      if (!action) return undefined
      const label = onlyEmail ? m.identifier.emailLink : fill(m.signin.signInWith, { provider: provider.name })
      return html`<form method="post" action="${action}">
${hiddenFields(page.csrfToken, page.callbackUrl)}
${identifiedEmail(email)}
<button type="submit">${label}</button>
</form>`
    }
    default:
      return undefined
  }
}

/**
 * Progressive enhancement of the first step: a valid address reveals the second step in
 * place (the same markup the POST would render) and moves focus to it. Invalid input is
 * left to the browser's own validation message. ES2020, no `</` sequence.
 */
export const IDENTIFIER_STEP_SCRIPT = `(() => {
  "use strict";
  const step = document.querySelector("form[data-identifier-step]");
  const methods = document.querySelector("[data-identifier-methods]");
  if (!step || !methods) return;
  step.addEventListener("submit", (event) => {
    const input = step.querySelector('input[name="email"]');
    if (!input || !input.checkValidity()) return;
    event.preventDefault();
    const email = input.value.trim();
    for (const el of methods.querySelectorAll("[data-identifier-email]")) el.value = email;
    for (const el of methods.querySelectorAll("[data-identifier-shown]")) el.textContent = email;
    for (const el of document.querySelectorAll(".card > .provider-list, .card > .divider, .card > form:not([data-webauthn-provider])")) {
      if (!methods.contains(el)) el.hidden = true;
    }
    methods.hidden = false;
    const first = methods.querySelector('input:not([type="hidden"]):not([hidden]), button');
    if (first) first.focus();
  });
})();`
