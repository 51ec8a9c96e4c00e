/**
 * Logto (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Logto ID token / userinfo claims (https://docs.logto.io/docs/references/openid-connect/). */
export interface LogtoProfile {
  /** The Logto user id. */
  sub: string
  name?: string | null
  username?: string | null
  picture?: string | null
  email?: string | null
  email_verified?: boolean
  phone_number?: string | null
  phone_number_verified?: boolean
  created_at?: number
  updated_at?: number
  [key: string]: unknown
}

/**
 * Sign in with Logto (Logto Cloud or self-hosted).
 *
 * - Env: `AUTH_LOGTO_ID`, `AUTH_LOGTO_SECRET`, `AUTH_LOGTO_ISSUER`.
 * - **Required** `issuer`: the OIDC issuer of your tenant, ending in `/oidc`, e.g.
 *   `https://<tenant>.logto.app/oidc`.
 * - Create a "Traditional web" application; Redirect URI `[origin]/auth/callback/logto`.
 * - Scope `offline_access openid email profile`.
 * - Logto signs ID tokens with ES384 by default (RSA after a key rotation to RSA); the
 *   algorithm is taken from its discovery document, so both work without configuration.
 *
 * @example
 * ```ts
 * import Logto from "@portcullis/core/providers/logto"
 * Logto({ issuer: "https://example.logto.app/oidc" })
 * ```
 */
export default function Logto(options: OAuthUserConfig<LogtoProfile> = {}): OAuthConfig<LogtoProfile> {
  return {
    id: "logto",
    name: "Logto",
    type: "oidc",
    // No default issuer: each tenant has its own (options or AUTH_LOGTO_ISSUER).
    authorization: { params: { scope: "offline_access openid email profile" } },
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.username ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#6200EE", text: "#fff" },
    options,
  }
}
