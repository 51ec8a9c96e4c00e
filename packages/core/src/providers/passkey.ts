/**
 * Passkey provider: the {@link WebAuthn} provider with id `passkey`, set up for passkeys —
 * discoverable credentials (`residentKey: "required"`) and user verification (a PIN,
 * fingerprint or face) required both when a passkey is created and when it is used.
 *
 * Needs `experimental: { enableWebAuthn: true }` and an adapter with the authenticator
 * methods; see `@portcullis/core/providers/webauthn`.
 *
 * @example
 * ```ts
 * import Passkey from "@portcullis/core/providers/passkey"
 * import { SqlAdapter } from "@portcullis/sql-adapter"
 *
 * export const config = {
 *   adapter: SqlAdapter(db),
 *   experimental: { enableWebAuthn: true },
 *   providers: [Passkey],
 * }
 * ```
 * @module
 */
import { DEFAULT_WEBAUTHN_TIMEOUT, type WebAuthnConfig, type WebAuthnUserConfig } from "./webauthn.js"
import { withKindModule } from "../lib/kinds/provided.js"
import { loadWebAuthnKind } from "../lib/kinds/webauthn-module.js"

export type { WebAuthnConfig, WebAuthnUserConfig }

/**
 * Creates the passkey provider. Options are merged over the preset key by key, so
 * `Passkey({ relayingParty: { name: "Example" } })` keeps the other defaults.
 *
 * @example
 * ```ts
 * import Passkey from "@portcullis/core/providers/passkey"
 *
 * Passkey({ name: "Passkey", relayingParty: { id: "example.com", origin: "https://example.com" } })
 * ```
 */
export default function Passkey(options: WebAuthnUserConfig = {}): WebAuthnConfig {
  // The WebAuthn sign-in code comes with this function, not with core: an app without
  // passkeys never bundles it (lib/kinds/provided.ts).
  return withKindModule({
    id: "passkey",
    name: "Passkey",
    type: "webauthn",
    enableConditionalUI: true,
    formFields: { email: { label: "Email", required: true, autocomplete: "username webauthn" } },
    registrationOptions: {
      timeout: DEFAULT_WEBAUTHN_TIMEOUT,
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
    },
    authenticationOptions: { timeout: DEFAULT_WEBAUTHN_TIMEOUT, userVerification: "required" },
    verifyRegistrationOptions: { requireUserVerification: true },
    verifyAuthenticationOptions: { requireUserVerification: true },
    options: options as Record<string, unknown>,
  }, loadWebAuthnKind)
}

export { Passkey }
