/**
 * Box sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /2.0/users/me` (https://developer.box.com/reference/get-users-me/). */
export interface BoxProfile {
  type: "user"
  /** Numeric id, as a string. */
  id: string
  name: string
  /** The primary login email. */
  login: string
  avatar_url?: string
  language?: string
  timezone?: string
  status?: string
  [key: string]: unknown
}

/**
 * Sign in with Box.
 *
 * - Env: `AUTH_BOX_ID`, `AUTH_BOX_SECRET` (a Custom App with "User Authentication (OAuth 2.0)").
 * - Redirect URI of the app: `[origin]/auth/callback/box`.
 * - Scopes are the application scopes configured on the app; none are sent.
 *
 * @example
 * ```ts
 * import Box from "@portcullis/core/providers/box"
 * Auth(request, { providers: [Box()] })
 * ```
 */
export default function Box(options: OAuthUserConfig<BoxProfile> = {}): OAuthConfig<BoxProfile> {
  return {
    id: "box",
    name: "Box",
    type: "oauth",
    authorization: "https://account.box.com/api/oauth2/authorize",
    token: "https://api.box.com/oauth2/token",
    userinfo: "https://api.box.com/2.0/users/me",
    // Box documents client_id/client_secret as form fields of the token request.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return { id: profile.id, name: profile.name, email: profile.login, image: profile.avatar_url ?? null }
    },
    style: { bg: "#0061D5", text: "#fff" },
    options,
  }
}
