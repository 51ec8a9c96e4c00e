/**
 * Passage by 1Password (passkey login) over OpenID Connect. Retired by 1Password on
 * 16 January 2026; see the deprecation note on the preset.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Passage ID token claims (https://docs.passage.id/hosted-login/oidc-client-configuration). */
export interface PassageProfile {
  iss: string
  /** The Passage user id. */
  sub: string
  aud: string[] | string
  exp: number
  iat: number
  auth_time?: number
  azp?: string
  client_id?: string
  at_hash?: string
  c_hash?: string
  email?: string
  email_verified?: boolean
  phone?: string
  phone_number_verified?: boolean
  [key: string]: unknown
}

/**
 * Sign in with Passage.
 *
 * - Env: `AUTH_PASSAGE_ID`, `AUTH_PASSAGE_SECRET`, `AUTH_PASSAGE_ISSUER`.
 * - **Required** `issuer`: `https://<app-id>.withpassage.com` (the app's Hosted Login
 *   domain, as shown in the console).
 * - Redirect URI of the OIDC client: `[origin]/auth/callback/passage`.
 * - `client_secret_basic`. Passage users have no name or picture: only `email`.
 *
 * @example
 * ```ts
 * import Passage from "@portcullis/core/providers/passage"
 * Passage({ issuer: "https://my-app-id.withpassage.com" })
 * ```
 *
 * @deprecated 1Password retired Passage on 16 January 2026 (the service was shut down). The
 * preset is kept so configurations written for Auth.js still load. Move users to another
 * provider, or to passkeys served by the app itself (`@portcullis/core/providers/passkey`).
 */
export default function Passage(options: OAuthUserConfig<PassageProfile> = {}): OAuthConfig<PassageProfile> {
  return {
    id: "passage",
    name: "Passage",
    type: "oidc",
    client: { token_endpoint_auth_method: "client_secret_basic" },
    profile(profile) {
      return { id: profile.sub, name: null, email: profile.email ?? null, image: null }
    },
    style: { bg: "#fff", text: "#000" },
    options,
  }
}
