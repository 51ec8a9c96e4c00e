/**
 * Strava sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /api/v3/athlete` (https://developers.strava.com/docs/reference/#api-Athletes-getLoggedInAthlete). */
export interface StravaProfile {
  id: number
  username: string | null
  firstname: string
  lastname: string
  city?: string | null
  country?: string | null
  /** Large avatar URL. */
  profile: string
  profile_medium: string
  premium?: boolean
  created_at?: string
  [key: string]: unknown
}

/**
 * Sign in with Strava.
 *
 * - Env: `AUTH_STRAVA_ID`, `AUTH_STRAVA_SECRET`.
 * - "Authorization Callback Domain" of the API application: your origin's host; the callback
 *   path is `/auth/callback/strava`.
 * - Scope `read` (Strava separates scopes with commas, e.g. `read,activity:read`).
 *   Strava never shares the email, so `email` is null.
 *
 * @example
 * ```ts
 * import Strava from "@portcullis/core/providers/strava"
 * Auth(request, { providers: [Strava()] })
 * ```
 */
export default function Strava(options: OAuthUserConfig<StravaProfile> = {}): OAuthConfig<StravaProfile> {
  return {
    id: "strava",
    name: "Strava",
    type: "oauth",
    authorization: { url: "https://www.strava.com/oauth/authorize", params: { scope: "read", approval_prompt: "auto" } },
    token: "https://www.strava.com/api/v3/oauth/token",
    userinfo: "https://www.strava.com/api/v3/athlete",
    // Strava documents client_id/client_secret as form fields of the token request.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      const name = [profile.firstname, profile.lastname].filter(Boolean).join(" ")
      return { id: String(profile.id), name: name || profile.username, email: null, image: profile.profile }
    },
    style: { bg: "#FC4C02", text: "#fff" },
    options,
  }
}
