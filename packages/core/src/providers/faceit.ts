/**
 * FACEIT sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /auth/v1/resources/userinfo` (FACEIT Connect). */
export interface FaceitProfile {
  /** The FACEIT player id (a UUID). */
  guid: string
  nickname: string
  email?: string
  picture?: string
  given_name?: string
  family_name?: string
  locale?: string
  membership?: string
  [key: string]: unknown
}

/**
 * Sign in with FACEIT.
 *
 * - Env: `AUTH_FACEIT_ID`, `AUTH_FACEIT_SECRET` (the client of a FACEIT Connect app).
 * - Redirect URL of the app on developers.faceit.com: `[origin]/auth/callback/faceit`.
 * - The authorization page is `accounts.faceit.com` (with `redirect_popup=true` so it works
 *   as a full-page redirect); the token endpoint wants HTTP Basic client authentication.
 *
 * @example
 * ```ts
 * import FACEIT from "@portcullis/core/providers/faceit"
 * Auth(request, { providers: [FACEIT()] })
 * ```
 */
export default function FACEIT(options: OAuthUserConfig<FaceitProfile> = {}): OAuthConfig<FaceitProfile> {
  return {
    id: "faceit",
    name: "FACEIT",
    type: "oauth",
    authorization: { url: "https://accounts.faceit.com/accounts", params: { redirect_popup: "true" } },
    token: "https://api.faceit.com/auth/v1/oauth/token",
    client: { token_endpoint_auth_method: "client_secret_basic" },
    userinfo: "https://api.faceit.com/auth/v1/resources/userinfo",
    profile(profile) {
      return { id: profile.guid, name: profile.nickname, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#ff5500", text: "#fff" },
    options,
  }
}
