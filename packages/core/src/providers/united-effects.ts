/**
 * United Effects Core EOS (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** United Effects ID token claims with `openid email profile` (https://docs.unitedeffects.com). */
export interface UnitedEffectsProfile {
  /** The account id. */
  sub: string
  email?: string
  email_verified?: boolean
  [key: string]: unknown
}

/**
 * Sign in with United Effects.
 *
 * - Env: `AUTH_UNITED_EFFECTS_ID`, `AUTH_UNITED_EFFECTS_SECRET`, `AUTH_UNITED_EFFECTS_ISSUER`.
 * - **Required** `issuer`: `https://auth.unitedeffects.com/<authGroupId>` (your auth group).
 * - Redirect URI of the client: `[origin]/auth/callback/united-effects`.
 * - Scope `openid email profile`; the issuer is also sent as the `resource` indicator, so
 *   the access token is for the same auth group. Accounts carry no name or picture.
 *
 * @example
 * ```ts
 * import UnitedEffects from "@portcullis/core/providers/united-effects"
 * UnitedEffects({ issuer: "https://auth.unitedeffects.com/k3vNj2Q" })
 * ```
 */
export default function UnitedEffects(options: OAuthUserConfig<UnitedEffectsProfile> = {}): OAuthConfig<UnitedEffectsProfile> {
  return {
    id: "united-effects",
    name: "United Effects",
    type: "oidc",
    authorization: {
      params: { scope: "openid email profile", ...(options.issuer && { resource: options.issuer }) },
    },
    profile(profile) {
      return { id: profile.sub, name: null, email: profile.email ?? null, image: null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
