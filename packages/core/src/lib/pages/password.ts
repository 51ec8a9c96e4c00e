/**
 * The password provider's pages: sign-up, forgot password, choose a new password, and the
 * one-sentence pages after each step. Same layout and theme as the sign-in page.
 * @module
 */
import { html, safeUrl, type SafeHtml } from "./html.js"
import { field, hiddenFields, IdAllocator, linkConfirmForm } from "./forms.js"
import { renderDocument } from "./layout.js"
import { authRoute } from "./paths.js"
import type { PageBase } from "./types.js"
import { en } from "../i18n/catalogs/en.js"
import { fill } from "../i18n/format.js"
import type { Messages, PasswordErrorMessages } from "../i18n/catalog.js"

/** Which password page to render, and what it shows. */
export type PasswordPage =
  | { step: "signup"; callbackUrl: string; email?: string; error?: string; minLength: number }
  | { step: "forgot"; callbackUrl: string; email?: string; error?: string }
  | { step: "reset"; callbackUrl: string; token: string; email: string; error?: string; minLength: number }
  /** The page a verification link opens: the sign-up's password (optional) and a button that posts the link back. `host`: the site's. */
  | { step: "verify"; callbackUrl: string; token: string; email: string; host: string }
  /** `passwordKept: false` after a confirmation without the sign-up's password (empty or wrong). */
  | { step: "verified"; passwordKept: boolean }
  | { step: "sent" | "done" }

/** Renders one of the password pages as a complete HTML document. */
export function renderPasswordPage(base: PageBase, page: PasswordPage): string {
  const m = base.messages ?? en
  const p = m.password
  const ids = new IdAllocator()
  const action = (step: string) => safeUrl(authRoute(base.basePath, `password/${step}`))
  const signin = safeUrl(authRoute(base.basePath, "signin"))
  const back = html`<p class="center actions"><a href="${signin}">${p.backToSignIn}</a></p>`
  const alert = (error: string | undefined, minLength?: number) =>
    error === undefined ? undefined : html`<div class="alert" role="alert"><p>${fill(messageFor(p.errors, error), { min: String(minLength ?? "") })}</p></div>`
  const emailField = (value: string | undefined) =>
    field({ id: ids.next("password", "email"), name: "email", label: m.signin.emailLabel, type: "email", value, placeholder: "you@example.com", autocomplete: "username", required: true })
  const newPassword = (label: string) =>
    field({ id: ids.next("password", "password"), name: "password", label, type: "password", autocomplete: "new-password", required: true })

  let title: string
  let body: SafeHtml
  switch (page.step) {
    case "signup":
      title = p.signupTitle
      body = html`<h1>${p.signupTitle}</h1>
${alert(page.error, page.minLength)}
<form method="post" action="${action("signup")}">
${hiddenFields(base.csrfToken, page.callbackUrl)}
${emailField(page.email)}
${newPassword(p.passwordLabel)}
<p class="muted">${fill(p.signupHint, { min: String(page.minLength) })}</p>
<button type="submit">${p.signupButton}</button>
</form>
${back}`
      break
    case "forgot":
      title = p.forgotTitle
      body = html`<h1>${p.forgotTitle}</h1>
${alert(page.error)}
<p>${p.forgotIntro}</p>
<form method="post" action="${action("forgot")}">
${hiddenFields(base.csrfToken, page.callbackUrl)}
${emailField(page.email)}
<button type="submit">${p.forgotButton}</button>
</form>
${back}`
      break
    case "reset":
      title = p.resetTitle
      body = html`<h1>${p.resetTitle}</h1>
${alert(page.error, page.minLength)}
<form method="post" action="${action("reset")}">
${hiddenFields(base.csrfToken, page.callbackUrl)}
<input type="hidden" name="token" value="${page.token}">
<input type="hidden" name="email" value="${page.email}">
${newPassword(p.newPasswordLabel)}
<p class="muted">${fill(p.signupHint, { min: String(page.minLength) })}</p>
<button type="submit">${p.resetButton}</button>
</form>`
      break
    case "sent":
      title = p.sentTitle
      body = html`<h1>${p.sentTitle}</h1>
<p class="center">${p.sent}</p>
${back}`
      break
    case "verify": {
      // Optional: the registrant keeps the password by typing it; anyone else leaves it empty.
      const signupPassword = html`${field({ id: ids.next("password", "password"), name: "password", label: p.verifyPasswordLabel, type: "password", autocomplete: "current-password" })}
<p class="muted">${p.verifyPasswordHint}</p>`
      title = p.verifyTitle
      body = html`<h1>${p.verifyTitle}</h1>
<p class="center">${fill(p.verifyIntro, { email: html`<strong>${page.email}</strong>`, host: page.host })}</p>
${linkConfirmForm(action("verify"), { csrfToken: base.csrfToken, callbackUrl: page.callbackUrl, token: page.token, email: page.email }, p.verifyButton, signupPassword)}
<p class="center muted">${p.verifyIgnore}</p>`
      break
    }
    case "verified":
      title = p.verifiedTitle
      body = page.passwordKept
        ? html`<h1>${p.verifiedTitle}</h1>
<p class="center">${p.verified}</p>
${back}`
        : html`<h1>${p.verifiedTitle}</h1>
<p class="center">${p.verifiedNoPassword}</p>
<p class="center actions"><a href="${action("forgot")}">${p.forgotPassword}</a></p>
${back}`
      break
    case "done":
      title = p.resetDoneTitle
      body = html`<h1>${p.resetDoneTitle}</h1>
<p class="center">${p.resetDone}</p>
${back}`
      break
  }
  return renderDocument({ title, theme: base.theme, body, locale: base.locale, messages: m })
}

function messageFor(errors: PasswordErrorMessages, code: string): string {
  return Object.hasOwn(errors, code) ? errors[code as keyof PasswordErrorMessages] : errors.default
}
