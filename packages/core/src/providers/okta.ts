/**
 * Okta (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Okta ID token / userinfo claims (https://developer.okta.com/docs/reference/api/oidc/#claims-in-the-payload-section). */
export interface OktaProfile {
  /** The Okta user id (`00u…`). */
  sub: string
  name?: string
  preferred_username?: string
  email?: string
  email_verified?: boolean
  given_name?: string
  family_name?: string
  picture?: string
  locale?: string
  zoneinfo?: string
  [key: string]: unknown
}

/**
 * Sign in with Okta.
 *
 * - Env: `AUTH_OKTA_ID`, `AUTH_OKTA_SECRET`, `AUTH_OKTA_ISSUER`.
 * - **Required** `issuer`: a custom authorization server such as
 *   `https://<org>.okta.com/oauth2/default`, or the org server `https://<org>.okta.com`.
 * - Sign-in redirect URI of the app integration: `[origin]/auth/callback/okta`.
 *
 * @example
 * ```ts
 * import Okta from "@portcullis/core/providers/okta"
 * Okta({ issuer: "https://example.okta.com/oauth2/default" })
 * ```
 */
export default function Okta(options: OAuthUserConfig<OktaProfile> = {}): OAuthConfig<OktaProfile> {
  return {
    id: "okta",
    name: "Okta",
    type: "oidc",
    // No default issuer: each Okta org has its own (options or AUTH_OKTA_ISSUER).
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.preferred_username ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#00297A", text: "#fff" },
    options,
  }
}
