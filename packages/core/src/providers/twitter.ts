/**
 * X (Twitter) sign-in with OAuth 2.0 Authorization Code and PKCE.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /2/users/me` (https://docs.x.com/x-api/users/get-my-user): the user is under `data`. */
export interface TwitterProfile {
  data: {
    id: string
    name: string
    username: string
    profile_image_url?: string
    /** Only when requested in `user.fields` and the app has email access. */
    confirmed_email?: string
    [key: string]: unknown
  }
  [key: string]: unknown
}

const ME = "https://api.x.com/2/users/me?user.fields=profile_image_url"

/**
 * Sign in with X.
 *
 * - Env: `AUTH_TWITTER_ID`, `AUTH_TWITTER_SECRET` (the OAuth 2.0 Client ID and Secret, not
 *   the OAuth 1.0a API key).
 * - Callback URI in the app's User authentication settings: `[origin]/auth/callback/twitter`.
 * - Scope `users.read tweet.read offline.access` (X requires `tweet.read` for `users/me`).
 *   PKCE is mandatory on X, and is on by default.
 * - No email by default. If X gave your app email access, override `userinfo.url` with
 *   `user.fields=profile_image_url,confirmed_email`: the request below follows it.
 *
 * @example
 * ```ts
 * import Twitter from "@portcullis/core/providers/twitter"
 * Auth(request, { providers: [Twitter()] })
 * ```
 */
export default function Twitter(options: OAuthUserConfig<TwitterProfile> = {}): OAuthConfig<TwitterProfile> {
  return {
    id: "twitter",
    name: "X",
    type: "oauth",
    authorization: { url: "https://x.com/i/oauth2/authorize", params: { scope: "users.read tweet.read offline.access" } },
    token: "https://api.x.com/2/oauth2/token",
    userinfo: {
      url: ME,
      async request({ tokens, provider, fetch }) {
        // Honour a user-overridden URL (e.g. more user.fields).
        const url = provider.userinfo?.url ?? ME
        const res = await fetch(url, { headers: { Authorization: `Bearer ${tokens.access_token}` } })
        if (!res.ok) throw new Error(`X GET /2/users/me failed with ${res.status}`)
        return (await res.json()) as TwitterProfile
      },
    },
    profile({ data }) {
      return { id: data.id, name: data.name, email: data.confirmed_email ?? null, image: data.profile_image_url ?? null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
