/**
 * Auth0 (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Auth0 ID token claims (https://auth0.com/docs/secure/tokens/id-tokens/id-token-structure). */
export interface Auth0Profile {
  /** `<connection>|<id>`, e.g. `auth0|64f…` or `google-oauth2|10…`. */
  sub: string
  name?: string
  nickname?: string
  picture?: string
  email?: string
  email_verified?: boolean
  updated_at?: string
  [key: string]: unknown
}

/**
 * Sign in with Auth0.
 *
 * - Env: `AUTH_AUTH0_ID`, `AUTH_AUTH0_SECRET`, `AUTH_AUTH0_ISSUER`.
 * - **Required** `issuer`: `https://<tenant>.<region>.auth0.com/` or your custom domain,
 *   **with the trailing slash**, exactly as Auth0's discovery document spells it.
 * - Allowed Callback URL: `[origin]/auth/callback/auth0`.
 *
 * @example
 * ```ts
 * import Auth0 from "@portcullis/core/providers/auth0"
 * Auth0({ issuer: "https://example.us.auth0.com/" })
 * ```
 */
export default function Auth0(options: OAuthUserConfig<Auth0Profile> = {}): OAuthConfig<Auth0Profile> {
  return {
    id: "auth0",
    name: "Auth0",
    type: "oidc",
    // No default issuer: every tenant has its own (options or AUTH_AUTH0_ISSUER).
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.nickname ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#EB5424", text: "#fff" },
    options,
  }
}
