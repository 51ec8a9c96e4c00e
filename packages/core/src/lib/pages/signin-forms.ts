/**
 * The provider forms of the sign-in page, shared by its two layouts (`signin.ts`,
 * `signin-authjs.ts`).
 * @module
 */
import { field, hiddenFields, IdAllocator } from "./forms.js"
import { html, safeUrl, type SafeHtml } from "./html.js"
import { en } from "../i18n/catalogs/en.js"
import { fill } from "../i18n/format.js"
import type { Messages } from "../i18n/catalog.js"
import { authRoute } from "./paths.js"
import { providerButtonStyle } from "./theme.js"
import type { PageProvider, SignInPageOptions } from "./types.js"

export { IdAllocator }

/** Everything a provider form needs besides the provider itself. */
export interface FormContext {
  page: SignInPageOptions
  ids: IdAllocator
  m: Messages
}

/**
 * Consecutive OAuth/OIDC providers share one group (a stack of buttons); each form-based
 * provider is a group of its own, so "or" sits between alternatives, not between buttons.
 */
export function groupProviders(providers: readonly PageProvider[]): PageProvider[][] {
  const groups: PageProvider[][] = []
  for (const provider of providers) {
    const last = groups.at(-1)
    if (isRedirect(provider) && last && isRedirect(last[0]!)) last.push(provider)
    else groups.push([provider])
  }
  return groups
}

export function isRedirect(provider: PageProvider): boolean {
  return provider.type === "oauth" || provider.type === "oidc"
}

// A form whose target is not http(s) or relative is left out entirely: posting the CSRF
// token to a `javascript:` or foreign-scheme action is never what the configuration meant.

export function oauthForm(provider: PageProvider, { page, m }: FormContext): SafeHtml | undefined {
  const action = safeUrl(provider.signinUrl)
  if (!action) return undefined
  const style = providerButtonStyle(provider.style)
  const logo = safeUrl(provider.style?.logo)
  return html`<form method="post" action="${action}">
${hiddenFields(page.csrfToken, page.callbackUrl)}
<button type="submit" class="provider-button"${style ? html` style="${style}"` : undefined}>${
    // The button text names the provider, so the logo is decorative (empty alt).
    logo ? html`<img src="${logo}" alt="" width="20" height="20" loading="lazy">` : undefined
  }<span>${fill(m.signin.signInWith, { provider: provider.name })}</span></button>
</form>`
}

/** The email address field of the email and password forms (`autocomplete` differs: a password manager keys its entry by `username`). */
export function emailField(provider: PageProvider, { page, ids, m }: FormContext, autocomplete: "email" | "username"): SafeHtml {
  return field({
    id: ids.next(provider.id, "email"),
    name: "email",
    label: m.signin.emailLabel,
    type: "email",
    value: page.email,
    placeholder: "you@example.com",
    autocomplete,
    required: true,
  })
}

export function emailForm(provider: PageProvider, context: FormContext): SafeHtml | undefined {
  const { page, m } = context
  const action = safeUrl(provider.signinUrl)
  if (!action) return undefined
  return html`<form method="post" action="${action}">
${hiddenFields(page.csrfToken, page.callbackUrl)}
${emailField(provider, context, "email")}
<button type="submit">${fill(m.signin.signInWith, { provider: provider.name })}</button>
</form>`
}

export function credentialsForm(provider: PageProvider, { page, ids, m }: FormContext): SafeHtml | undefined {
  const action = safeUrl(provider.callbackUrl)
  if (!action) return undefined
  const fields = Object.entries(provider.credentials ?? {}).map(([name, input]) =>
    field({
      id: ids.next(provider.id, name),
      name,
      label: input.label ?? name,
      type: input.type,
      placeholder: input.placeholder,
      autocomplete: input.autocomplete,
      required: input.required,
    }),
  )
  return html`<form method="post" action="${action}">
${hiddenFields(page.csrfToken, page.callbackUrl)}
${fields}
<button type="submit">${fill(m.signin.signInWith, { provider: provider.name })}</button>
</form>`
}

export function passwordForm(provider: PageProvider, context: FormContext): SafeHtml | undefined {
  const { page, ids, m } = context
  const action = safeUrl(provider.callbackUrl)
  if (!action) return undefined
  return html`<form method="post" action="${action}">
${hiddenFields(page.csrfToken, page.callbackUrl)}
${emailField(provider, context, "username")}
${field({
  id: ids.next(provider.id, "password"),
  name: "password",
  label: m.password.passwordLabel,
  type: "password",
  autocomplete: "current-password",
  required: true,
})}
<button type="submit">${fill(m.signin.signInWith, { provider: provider.name })}</button>
</form>
${passwordLinks(page.basePath, m)}`
}

// The passkey ceremony needs a client script, which reads the data attributes; until it
// runs, the form is an ordinary POST so the page still works without JavaScript.
function defaultWebauthnFields(m: Messages): NonNullable<PageProvider["formFields"]> {
  return { email: { label: m.signin.emailLabel, required: true, autocomplete: "username webauthn" } }
}

/**
 * The Passkey provider's own default field is labelled "Email" in English (as Auth.js's);
 * that label is shown in the page's language. A label the app wrote is shown as written.
 */
function localizedLabel(name: string, label: string | undefined, m: Messages): string {
  return name === "email" && (label === undefined || label === en.signin.emailLabel) ? m.signin.emailLabel : (label ?? name)
}

/**
 * The passkey form: one button signs in with any passkey the browser holds (or adds one when
 * signed in), the other signs up with the typed address. Two buttons, because the server no
 * longer picks the ceremony from whether the address has an account: that answer would tell
 * anyone who has one (lib/webauthn/options.ts).
 */
export function webauthnForm(provider: PageProvider, { page, ids, m }: FormContext, identified?: string): SafeHtml | undefined {
  const action = safeUrl(provider.callbackUrl)
  if (!action) return undefined
  const optionsUrl = safeUrl(authRoute(page.basePath, `webauthn-options/${encodeURIComponent(provider.id)}`))
  const formId = ids.claim(`${provider.id}-form`)
  const fields = Object.entries(provider.formFields ?? defaultWebauthnFields(m)).map(([name, input]) =>
    // The identifier-first layout's second step has the address already: carried, not asked again.
    identified !== undefined && name === "email"
      ? identifiedEmail(identified)
      : field({
      id: ids.next(provider.id, name),
      name,
      label: localizedLabel(name, input.label, m),
      // formFields carry no type; an `email` field is the one case worth the hint.
      type: name === "email" ? "email" : "text",
      value: name === "email" ? page.email : undefined,
      autocomplete: input.autocomplete,
      required: input.required,
    }),
  )
  return html`<form id="${formId}" method="post" action="${action}" data-webauthn-provider="${provider.id}"${
    optionsUrl ? html` data-options-url="${optionsUrl}"` : undefined
  }${provider.enableConditionalUI !== false ? html` data-conditional-ui` : undefined} data-messages="${JSON.stringify(m.passkey)}">
${hiddenFields(page.csrfToken, page.callbackUrl)}
${fields}
<button type="submit">${fill(m.signin.signInWith, { provider: provider.name })}</button>
<button type="submit" name="action" value="register">${fill(m.signin.signUpWith, { provider: provider.name })}</button>
</form>`
}

/**
 * The links under the password sign-in form. Here rather than with the password steps'
 * pages (`password.ts`), which only the password provider's actions load.
 */
export function passwordLinks(basePath: string, m: Messages): SafeHtml {
  return html`<p class="center muted"><a href="${safeUrl(authRoute(basePath, "password/signup"))}">${m.password.createAccount}</a> · <a href="${safeUrl(authRoute(basePath, "password/forgot"))}">${m.password.forgotPassword}</a></p>`
}

/**
 * The address of the identifier-first layout's second step inside a method's form: hidden
 * from view (the step says whose it is) but still the `username` a password manager files
 * the password under. The inline script of the page fills it (`data-identifier-email`).
 */
export function identifiedEmail(email: string): SafeHtml {
  return html`<input type="email" name="email" value="${email}" autocomplete="username" hidden data-identifier-email>`
}
