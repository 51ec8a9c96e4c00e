/**
 * Roblox OAuth 2.0 / OpenID Connect sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Roblox ID token / userinfo claims with `openid profile` (https://create.roblox.com/docs/cloud/reference/oauth2). */
export interface RobloxProfile {
  /** The Roblox user id. */
  sub: string
  /** Display name. */
  name: string
  /** Display name. */
  nickname: string
  /** Username. */
  preferred_username: string
  /** Account creation time (Unix seconds). */
  created_at: number
  /** Profile page URL. */
  profile: string
  /** Avatar headshot; null until generated or when moderated. */
  picture: string | null
  [key: string]: unknown
}

/**
 * Sign in with Roblox.
 *
 * - Env: `AUTH_ROBLOX_ID`, `AUTH_ROBLOX_SECRET`.
 * - Redirect URL of the OAuth app (Creator Hub → Credentials): `[origin]/auth/callback/roblox`.
 * - Issuer `https://apis.roblox.com/oauth/` (with the trailing slash); scope `openid profile`.
 * - Checks `pkce` + `state`, as Auth.js. Roblox gives no email.
 *
 * @example
 * ```ts
 * import Roblox from "@portcullis/core/providers/roblox"
 * Auth(request, { providers: [Roblox()] })
 * ```
 */
export default function Roblox(options: OAuthUserConfig<RobloxProfile> = {}): OAuthConfig<RobloxProfile> {
  return {
    id: "roblox",
    name: "Roblox",
    type: "oidc",
    issuer: "https://apis.roblox.com/oauth/",
    authorization: { params: { scope: "openid profile" } },
    checks: ["pkce", "state"],
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.nickname ?? profile.preferred_username ?? null, email: null, image: profile.picture ?? null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
