/**
 * Vipps MobilePay Login (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Vipps userinfo with `openid name email` (https://developer.vippsmobilepay.com/api/userinfo/). */
export interface VippsProfile {
  /** The user id for this merchant. */
  sub: string
  name?: string
  given_name?: string
  family_name?: string
  email?: string
  email_verified?: boolean
  phone_number?: string
  sid?: string
  [key: string]: unknown
}

/**
 * Sign in with Vipps MobilePay.
 *
 * - Env: `AUTH_VIPPS_ID`, `AUTH_VIPPS_SECRET`.
 * - Redirect URI in the Vipps portal (Login settings): `[origin]/auth/callback/vipps`.
 * - Issuer `https://api.vipps.no/access-management-1.0/access/` (production). The test
 *   environment is `issuer: "https://apitest.vipps.no/access-management-1.0/access/"`.
 *   Auth.js's preset defaults to the *test* issuer although its docs present it as the
 *   production one; apps that relied on that default must now pass the test issuer (or set
 *   `AUTH_VIPPS_ISSUER`) to keep using test credentials.
 * - Scope `openid name email`. The ID token only carries `sub`, so the profile is read from
 *   the userinfo endpoint (`idToken: false`).
 *
 * @example
 * ```ts
 * import Vipps from "@portcullis/core/providers/vipps"
 * Auth(request, { providers: [Vipps()] })
 * ```
 */
export default function Vipps(options: OAuthUserConfig<VippsProfile> = {}): OAuthConfig<VippsProfile> {
  return {
    id: "vipps",
    name: "Vipps",
    type: "oidc",
    issuer: "https://api.vipps.no/access-management-1.0/access/",
    authorization: { params: { scope: "openid name email" } },
    idToken: false,
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: null }
    },
    style: { bg: "#f05133", text: "#fff" },
    options,
  }
}
