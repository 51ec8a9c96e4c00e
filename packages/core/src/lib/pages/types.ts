/**
 * The inputs of the page renderers. The core builds these from its configuration and the
 * request; the renderers never read configuration or the request themselves.
 * @module
 */
import type { CredentialsInputs } from "../../providers/credentials.js"
import type { ProviderStyle } from "../../providers/oauth.js"
import type { Theme } from "../../base-types.js"
import type { Messages } from "../i18n/catalog.js"

/** One provider as the sign-in page shows it. */
export interface PageProvider {
  id: string
  /** Shown in the button: "Sign in with {name}". */
  name: string
  type: "oauth" | "oidc" | "email" | "credentials" | "webauthn" | "password"
  /** Where OAuth, OIDC and email forms post (`{basePath}/signin/{id}`). */
  signinUrl: string
  /** Where credentials and WebAuthn forms post (`{basePath}/callback/{id}`). */
  callbackUrl: string
  /** Button colours and logo (OAuth/OIDC); invalid colours and non-http(s) logos are ignored. */
  style?: ProviderStyle
  /** Credentials providers: the form's fields, by input name. */
  credentials?: CredentialsInputs
  /** WebAuthn providers: the form's fields, by input name (default: one email field). */
  formFields?: Record<string, { label?: string; required?: boolean; autocomplete?: string }>
  /** WebAuthn providers: offer passkeys in the email field's autofill (default `true`). */
  enableConditionalUI?: boolean
}

/** What every page needs. */
export interface PageBase {
  theme: Theme
  /** Path the auth routes live under, e.g. `/auth`. */
  basePath: string
  /** The site's origin, e.g. `https://example.com`. */
  origin: string
  /** Token for the hidden `csrfToken` field of each form. */
  csrfToken: string
  /** The sentences to show, in the request's language. Default: English. */
  messages?: Messages
  /** The language tag of `messages`, for `<html lang>`. Default `"en"`. */
  locale?: string
}

/** Input of the sign-in page renderers (`renderSignIn`). */
export interface SignInPageOptions extends PageBase {
  providers: PageProvider[]
  /** Where to go after signing in; posted back as the hidden `callbackUrl` field. */
  callbackUrl: string
  /** An error code from the query string; shown as a fixed sentence, never echoed. */
  error?: string
  /** `CredentialsSignin`'s reason (`?code=`): only `unverified` changes the sentence shown. */
  code?: string
  /** Pre-fills the email field(s) (`?email=`). */
  email?: string
  /**
   * The identifier-first layout's second step: the address posted by its first step. The
   * methods shown are the configured ones, the same for every address: nothing is looked up.
   */
  identified?: string
  /** The identifier step refused the address posted (empty, too long): the first step again, with a hint. */
  invalidIdentifier?: boolean
  /**
   * At the second step: the way in an extension offers for the address (an organization's
   * SSO), a button posting the address to `action`, above the other methods — or alone, `only`.
   */
  route?: { action: string; label: string; only: boolean }
  /** An extension routes addresses (`Extension.signInRoute`): "Continue" is a round trip, no script reveals the methods in place. */
  routed?: boolean
  /**
   * Inline scripts the forms need, from the configured kinds (the passkey ceremony for
   * WebAuthn): loaded by the caller, so the page renderer carries no kind's code.
   */
  scripts?: readonly string[]
}
