/**
 * WebAuthn provider: sign in with a passkey or a security key.
 *
 * Needs `experimental: { enableWebAuthn: true }` and an adapter with the authenticator
 * methods (`createAuthenticator`, `getAuthenticator`, `listAuthenticatorsByUserId`,
 * `updateAuthenticatorCounter`) besides `createUser`, `getUser`, `getUserByEmail`,
 * `linkAccount` and `getAccount`. Most apps want the {@link Passkey} preset
 * (`@portcullis/core/providers/passkey`), which requires user verification and
 * discoverable credentials.
 *
 * The ceremony: the browser asks `GET {basePath}/webauthn-options/{id}` for options, runs
 * `navigator.credentials.create()` or `.get()`, and posts the result to
 * `POST {basePath}/callback/{id}` with `action` (`register` or `authenticate`), `data` (the
 * response as JSON) and `csrfToken`. The built-in sign-in page and
 * `@portcullis/core/webauthn`'s `signIn` do this for you.
 *
 * @example
 * ```ts
 * import WebAuthn from "@portcullis/core/providers/webauthn"
 *
 * export const config = {
 *   adapter: SqlAdapter(db),
 *   experimental: { enableWebAuthn: true },
 *   providers: [
 *     WebAuthn({
 *       relayingParty: { id: "example.com", name: "Example", origin: "https://example.com" },
 *       registrationOptions: { authenticatorSelection: { residentKey: "preferred" } },
 *     }),
 *   ],
 * }
 * ```
 * @module
 */
import { withKindModule } from "../lib/kinds/provided.js"
import { loadWebAuthnKind } from "../lib/kinds/webauthn-module.js"
import { DEFAULT_WEBAUTHN_TIMEOUT, type WebAuthnConfig, type WebAuthnUserConfig } from "../lib/webauthn/provider-types.js"

export { DEFAULT_WEBAUTHN_TIMEOUT } from "../lib/webauthn/provider-types.js"
export type {
  WebAuthnProviderType,
  RelyingParty,
  WebAuthnHookOptions,
  WebAuthnHookRequest,
  RelayingPartyOfRequest,
  RelayingParty,
  WebAuthnUserInfo,
  GetUserInfo,
  WebAuthnFormField,
  WebAuthnFields,
  WebAuthnConfig,
  WebAuthnUserConfig,
} from "../lib/webauthn/provider-types.js"

/**
 * Creates a WebAuthn provider (id `webauthn` unless you set one). Your options are merged
 * over the defaults key by key.
 *
 * @example
 * ```ts
 * import WebAuthn from "@portcullis/core/providers/webauthn"
 *
 * WebAuthn({ name: "Security key", authenticationOptions: { userVerification: "discouraged" } })
 * ```
 */
export default function WebAuthn(options: WebAuthnUserConfig = {}): WebAuthnConfig {
  // The WebAuthn sign-in code comes with this function, not with core: an app without
  // passkeys never bundles it (lib/kinds/provided.ts).
  return withKindModule({
    id: "webauthn",
    name: "WebAuthn",
    type: "webauthn",
    enableConditionalUI: true,
    formFields: { email: { label: "Email", required: true, autocomplete: "username webauthn" } },
    registrationOptions: { timeout: DEFAULT_WEBAUTHN_TIMEOUT },
    authenticationOptions: { timeout: DEFAULT_WEBAUTHN_TIMEOUT },
    options: options as Record<string, unknown>,
  }, loadWebAuthnKind)
}

export { WebAuthn }
