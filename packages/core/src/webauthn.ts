/**
 * Browser-side passkey sign-in for apps and framework integrations:
 * `signIn("passkey")` fetches options from `{basePath}/webauthn-options/{provider}`, runs
 * the ceremony with `@simplewebauthn/browser`, and posts the result to
 * `{basePath}/callback/{provider}` with the CSRF token, asking for the redirect as JSON
 * (`X-Auth-Return-Redirect`). Import it only in browser code.
 *
 * @example
 * ```ts
 * import { signIn } from "@portcullis/core/webauthn"
 *
 * // Sign in with any passkey this browser holds for the site, then follow the redirect:
 * await signIn("passkey", { redirectTo: "/dashboard" })
 *
 * // Sign up with a new account's address:
 * await signIn("passkey", { action: "register", email: "ada@example.com", redirectTo: "/welcome" })
 *
 * // Signed in already: add another passkey to the account, and stay on the page.
 * const result = await signIn("passkey", { action: "register", redirect: false })
 * if (result.error) showError(result.error)
 * ```
 * @module
 */
import { browserSupportsWebAuthn, browserSupportsWebAuthnAutofill, startAuthentication, startRegistration } from "@simplewebauthn/browser"

export { browserSupportsWebAuthn, browserSupportsWebAuthnAutofill }

/** Options of {@link signIn}. */
export interface PasskeySignInOptions {
  /**
   * `register` a new passkey or `authenticate` with one. Default: `register` when signed in
   * (adding a passkey), else `authenticate`. Signing up takes `register` and an `email`: the
   * server never picks the ceremony from whether an address has an account, since that
   * answer would tell anyone who has one.
   */
  action?: "register" | "authenticate"
  /** The address to sign up with (`action: "register"`, not signed in). Sign-in ignores it: the browser offers every passkey it holds for the site. */
  email?: string
  /** Where to go after signing in (a path or a same-site URL). Default: the current page. */
  redirectTo?: string
  /** `false` returns the result instead of navigating. Default `true`. */
  redirect?: boolean
  /** Where the auth routes are mounted. Default `/auth` (Auth.js's Next.js apps use `/api/auth`). */
  basePath?: string
  /** Offer passkeys in an input's autofill (`autocomplete="username webauthn"`) instead of a dialog; authentication only. */
  autofill?: boolean
  /** Other fields for the options request (a provider's extra `formFields`). */
  fields?: Record<string, string>
}

/** What {@link signIn} resolves to when it does not navigate (or before it does). */
export interface PasskeySignInResult {
  /** Where the server sends the user: the callback URL, or the sign-in page with `?error=`. */
  url: string
  /** The `?error=` code when sign-in failed, e.g. `WebAuthnVerificationError`. */
  error: string | undefined
  ok: boolean
}

/**
 * Signs in (or signs up, or adds a passkey) with a WebAuthn provider. Rejects with the
 * browser's `DOMException` when the user cancels the dialog (`NotAllowedError`), and with
 * an `Error` when the server refuses to issue options.
 *
 * @example
 * ```ts
 * import { signIn } from "@portcullis/core/webauthn"
 *
 * signInButton.onclick = () => signIn("passkey")
 * signUpButton.onclick = () => signIn("passkey", { action: "register", email: emailInput.value })
 * ```
 */
export async function signIn(provider = "passkey", options: PasskeySignInOptions = {}): Promise<PasskeySignInResult> {
  const base = (options.basePath ?? "/auth").replace(/\/+$/, "")
  const id = encodeURIComponent(provider)

  const optionsUrl = new URL(`${base}/webauthn-options/${id}`, window.location.href)
  for (const [name, value] of Object.entries(options.fields ?? {})) optionsUrl.searchParams.set(name, value)
  if (options.email) optionsUrl.searchParams.set("email", options.email)
  if (options.action) optionsUrl.searchParams.set("action", options.action)
  const issued = await getJson<{ action: "register" | "authenticate"; options: any }>(optionsUrl)

  const response =
    issued.action === "register"
      ? await startRegistration({ optionsJSON: issued.options })
      : await startAuthentication({ optionsJSON: issued.options, useBrowserAutofill: !!options.autofill })

  const { csrfToken } = await getJson<{ csrfToken: string }>(new URL(`${base}/csrf`, window.location.href))
  const body = new URLSearchParams({
    action: issued.action,
    data: JSON.stringify(response),
    csrfToken,
    callbackUrl: options.redirectTo ?? window.location.href,
  })
  const res = await fetch(`${base}/callback/${id}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Return-Redirect": "1" },
    body,
  })
  const { url } = (await res.json()) as { url: string }
  const error = new URL(url, window.location.href).searchParams.get("error") ?? undefined
  if (options.redirect !== false) {
    window.location.href = url
    // A URL that differs only in its hash does not reload the page.
    if (url.includes("#")) window.location.reload()
  }
  return { url, error, ok: error === undefined }
}

async function getJson<T>(url: URL): Promise<T> {
  const res = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
  if (!res.ok) throw new Error(`${url.pathname} answered ${res.status}`)
  return (await res.json()) as T
}
