/**
 * OneLogin (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** OneLogin OIDC ID token / userinfo claims (https://developers.onelogin.com/openid-connect/api/user-info). */
export interface OneLoginProfile {
  /** The OneLogin user id. */
  sub: string
  name?: string
  preferred_username?: string
  given_name?: string
  family_name?: string
  email?: string
  updated_at?: number
  /** With the `groups` scope. */
  groups?: string[]
  [key: string]: unknown
}

/**
 * Sign in with OneLogin.
 *
 * - Env: `AUTH_ONELOGIN_ID`, `AUTH_ONELOGIN_SECRET`, `AUTH_ONELOGIN_ISSUER`.
 * - **Required** `issuer`: `https://<subdomain>.onelogin.com/oidc/2` (the OIDC v2 issuer of
 *   your account; its discovery document is under it).
 * - In the OpenId Connect app: Redirect URI `[origin]/auth/callback/onelogin`, Application
 *   Type "Web", and Token Endpoint authentication "Basic" (the default
 *   `client_secret_basic`) or "POST" with `client: { token_endpoint_auth_method: "client_secret_post" }`.
 * - OneLogin has no profile picture claim: `image` is always null.
 *
 * @example
 * ```ts
 * import OneLogin from "@portcullis/core/providers/onelogin"
 * OneLogin({ issuer: "https://example.onelogin.com/oidc/2" })
 * ```
 */
export default function OneLogin(options: OAuthUserConfig<OneLoginProfile> = {}): OAuthConfig<OneLoginProfile> {
  return {
    id: "onelogin",
    name: "OneLogin",
    type: "oidc",
    // No default issuer: each OneLogin account has its own (options or AUTH_ONELOGIN_ISSUER).
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.preferred_username ?? null, email: profile.email ?? null, image: null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
