/**
 * Kinde (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Kinde ID token claims (https://docs.kinde.com/build/tokens/about-id-tokens/). */
export interface KindeProfile {
  /** The Kinde user id (`kp_…`). */
  sub: string
  name?: string
  given_name?: string
  family_name?: string
  email?: string
  email_verified?: boolean
  picture?: string | null
  org_codes?: string[]
  updated_at?: number
  [key: string]: unknown
}

/**
 * Sign in with Kinde.
 *
 * - Env: `AUTH_KINDE_ID`, `AUTH_KINDE_SECRET`, `AUTH_KINDE_ISSUER`.
 * - **Required** `issuer`: your Kinde domain, `https://<business>.kinde.com` (or your custom
 *   domain), without a trailing slash.
 * - Create a "Back-end web" application; Allowed callback URL
 *   `[origin]/auth/callback/kinde`.
 * - Scope `openid profile email`, the core's default, as Auth.js asks. Add `offline` for a
 *   refresh token: `Kinde({ authorization: { params: { scope: "openid profile email offline" } } })`.
 *
 * @example
 * ```ts
 * import Kinde from "@portcullis/core/providers/kinde"
 * Kinde({ issuer: "https://example.kinde.com" })
 * ```
 */
export default function Kinde(options: OAuthUserConfig<KindeProfile> = {}): OAuthConfig<KindeProfile> {
  return {
    id: "kinde",
    name: "Kinde",
    type: "oidc",
    // No default issuer: each Kinde business has its own domain (options or AUTH_KINDE_ISSUER).
    profile(profile) {
      const name = profile.name ?? ([profile.given_name, profile.family_name].filter(Boolean).join(" ") || null)
      return { id: profile.sub, name, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#fff", text: "#0F0F0F" },
    options,
  }
}
