/**
 * Eventbrite sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /v3/users/me/` (https://www.eventbrite.com/platform/api#/reference/user/retrieve-your-user). */
export interface EventbriteProfile {
  id: string
  name: string
  first_name: string
  last_name: string
  /** Every address of the account; one is `primary`. */
  emails: Array<{ email: string; verified: boolean; primary: boolean }>
  /** Id of the profile picture on Eventbrite's image service, or null. */
  image_id: string | null
  is_public?: boolean
  [key: string]: unknown
}

/**
 * Sign in with Eventbrite.
 *
 * - Env: `AUTH_EVENTBRITE_ID` (the API key of the app), `AUTH_EVENTBRITE_SECRET` (its client secret).
 * - OAuth Redirect URI of the API key: `[origin]/auth/callback/eventbrite`.
 * - Scope `user.profile`. The email is the account's primary address. The token endpoint
 *   takes the client id and secret as form fields (`client_secret_post`).
 *
 * @example
 * ```ts
 * import Eventbrite from "@portcullis/core/providers/eventbrite"
 * Auth(request, { providers: [Eventbrite()] })
 * ```
 */
export default function Eventbrite(options: OAuthUserConfig<EventbriteProfile> = {}): OAuthConfig<EventbriteProfile> {
  return {
    id: "eventbrite",
    name: "Eventbrite",
    type: "oauth",
    authorization: { url: "https://www.eventbrite.com/oauth/authorize", params: { scope: "user.profile" } },
    token: "https://www.eventbrite.com/oauth/token",
    // Eventbrite documents client_id/client_secret as form fields of the token request.
    client: { token_endpoint_auth_method: "client_secret_post" },
    userinfo: "https://www.eventbriteapi.com/v3/users/me/",
    profile(profile) {
      const image = profile.image_id
        ? `https://img.evbuc.com/${encodeURIComponent(`https://cdn.evbuc.com/images/${profile.image_id}/1/original.jpg`)}`
        : null
      return { id: profile.id, name: profile.name, email: profile.emails?.find((e) => e.primary)?.email ?? null, image }
    },
    style: { bg: "#f05537", text: "#fff" },
    options,
  }
}
