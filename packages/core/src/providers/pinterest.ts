/**
 * Pinterest sign-in (API v5).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /v5/user_account` (https://developers.pinterest.com/docs/api/v5/user_account-get). */
export interface PinterestProfile {
  account_type: "PINNER" | "BUSINESS"
  /** Present on current API answers; the preset keys users by `username`, as Auth.js. */
  id?: string
  username: string
  profile_image: string
  website_url?: string
  business_name?: string | null
  board_count?: number
  pin_count?: number
  follower_count?: number
  following_count?: number
  monthly_views?: number
  [key: string]: unknown
}

/**
 * Sign in with Pinterest.
 *
 * - Env: `AUTH_PINTEREST_ID` (App id), `AUTH_PINTEREST_SECRET`.
 * - Redirect URI of the app: `[origin]/auth/callback/pinterest`.
 * - Scope `user_accounts:read`. Checks `state` only: Pinterest's web flow has no PKCE.
 * - id = `username`, as Auth.js does (so users keep their rows after a migration). A
 *   Pinterest username can be changed by its owner; map `profile.id` in your own `profile()`
 *   for a new app. Pinterest gives no email.
 *
 * @example
 * ```ts
 * import Pinterest from "@portcullis/core/providers/pinterest"
 * Auth(request, { providers: [Pinterest()] })
 * ```
 */
export default function Pinterest(options: OAuthUserConfig<PinterestProfile> = {}): OAuthConfig<PinterestProfile> {
  return {
    id: "pinterest",
    name: "Pinterest",
    type: "oauth",
    authorization: { url: "https://www.pinterest.com/oauth", params: { scope: "user_accounts:read" } },
    checks: ["state"],
    token: "https://api.pinterest.com/v5/oauth/token",
    userinfo: "https://api.pinterest.com/v5/user_account",
    profile(profile) {
      return { id: profile.username, name: profile.username, email: null, image: profile.profile_image ?? null }
    },
    style: { bg: "#e60023", text: "#fff" },
    options,
  }
}
