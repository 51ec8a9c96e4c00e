/**
 * Concept2 Logbook sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /api/users/me` (https://log.concept2.com/developers/documentation/#logbook-users-get): the user is under `data`. */
export interface Concept2Profile {
  data: {
    id: number
    username: string
    first_name: string
    last_name: string
    gender: "M" | "F" | string
    dob: string
    email: string
    country: string
    /** URL of the profile picture, empty when none. */
    profile_image: string
    age_restricted: boolean
    email_permission: boolean | null
    max_heart_rate: number | null
    weight: number | null
    logbook_privacy: string | null
    [key: string]: unknown
  }
  [key: string]: unknown
}

/**
 * Sign in with a Concept2 Logbook account.
 *
 * - Env: `AUTH_CONCEPT2_ID`, `AUTH_CONCEPT2_SECRET`.
 * - Redirect URI of the Logbook API application: `[origin]/auth/callback/concept2`.
 * - Scope `user:read,results:write` (Concept2 separates scopes with commas). The token
 *   endpoint takes the client id and secret as form fields (`client_secret_post`).
 * - The name is the Logbook username.
 *
 * @example
 * ```ts
 * import Concept2 from "@portcullis/core/providers/concept2"
 * Auth(request, { providers: [Concept2()] })
 * ```
 */
export default function Concept2(options: OAuthUserConfig<Concept2Profile> = {}): OAuthConfig<Concept2Profile> {
  return {
    id: "concept2",
    name: "Concept2",
    type: "oauth",
    authorization: { url: "https://log.concept2.com/oauth/authorize", params: { scope: "user:read,results:write" } },
    token: "https://log.concept2.com/oauth/access_token",
    // Concept2 documents client_id/client_secret as form fields of the token request.
    client: { token_endpoint_auth_method: "client_secret_post" },
    userinfo: "https://log.concept2.com/api/users/me",
    profile({ data }) {
      return { id: String(data.id), name: data.username, email: data.email ?? null, image: data.profile_image || null }
    },
    style: { bg: "#003a70", text: "#fff" },
    options,
  }
}
