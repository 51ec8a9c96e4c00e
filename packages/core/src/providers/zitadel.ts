/**
 * ZITADEL (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** ZITADEL ID token / userinfo claims (https://zitadel.com/docs/apis/openidoauth/claims). */
export interface ZitadelProfile {
  /** The ZITADEL user id. */
  sub: string
  name?: string
  given_name?: string
  family_name?: string
  preferred_username?: string
  email?: string
  email_verified?: boolean
  picture?: string
  locale?: string
  updated_at?: number
  [key: string]: unknown
}

/**
 * Sign in with ZITADEL.
 *
 * - Env: `AUTH_ZITADEL_ID`, `AUTH_ZITADEL_SECRET`, `AUTH_ZITADEL_ISSUER`.
 * - **Required** `issuer`: your instance domain, e.g. `https://<instance>.zitadel.cloud` or
 *   your self-hosted/custom domain.
 * - Redirect URI of the (Web, "Code") application: `[origin]/auth/callback/zitadel`.
 *
 * @example
 * ```ts
 * import Zitadel from "@portcullis/core/providers/zitadel"
 * Zitadel({ issuer: "https://example-abc123.zitadel.cloud" })
 * ```
 */
export default function Zitadel(options: OAuthUserConfig<ZitadelProfile> = {}): OAuthConfig<ZitadelProfile> {
  return {
    id: "zitadel",
    name: "ZITADEL",
    type: "oidc",
    // No default issuer: it is your instance (options or AUTH_ZITADEL_ISSUER).
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.preferred_username ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#0A0A0A", text: "#fff" },
    options,
  }
}
