/**
 * WordPress.com sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /rest/v1/me` (https://developer.wordpress.com/docs/api/1/get/me/). */
export interface WordPressProfile {
  ID: number
  display_name: string
  username: string
  email: string
  email_verified?: boolean
  primary_blog?: number
  language?: string
  avatar_URL: string
  profile_URL?: string
  verified?: boolean
  [key: string]: unknown
}

/**
 * Sign in with WordPress.com.
 *
 * - Env: `AUTH_WORDPRESS_ID`, `AUTH_WORDPRESS_SECRET`.
 * - Redirect URL of the app (developer.wordpress.com/apps): `[origin]/auth/callback/wordpress`.
 * - Scope `auth` (profile only, no blog access). `client_secret_post`.
 *
 * @example
 * ```ts
 * import WordPress from "@portcullis/core/providers/wordpress"
 * Auth(request, { providers: [WordPress()] })
 * ```
 */
export default function WordPress(options: OAuthUserConfig<WordPressProfile> = {}): OAuthConfig<WordPressProfile> {
  return {
    id: "wordpress",
    name: "WordPress.com",
    type: "oauth",
    authorization: { url: "https://public-api.wordpress.com/oauth2/authorize", params: { scope: "auth" } },
    token: "https://public-api.wordpress.com/oauth2/token",
    client: { token_endpoint_auth_method: "client_secret_post" },
    userinfo: "https://public-api.wordpress.com/rest/v1/me",
    profile(profile) {
      return { id: String(profile.ID), name: profile.display_name ?? null, email: profile.email ?? null, image: profile.avatar_URL ?? null }
    },
    style: { bg: "#3499cd", text: "#fff" },
    options,
  }
}
