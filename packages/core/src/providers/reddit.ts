/**
 * Reddit sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /api/v1/me` (https://www.reddit.com/dev/api/#GET_api_v1_me). */
export interface RedditProfile {
  /** Base-36 account id (without the `t2_` prefix). */
  id: string
  name: string
  /** HTML-escaped URL (`&amp;` in the query). */
  icon_img?: string
  snoovatar_img?: string
  has_verified_email?: boolean
  created_utc?: number
  [key: string]: unknown
}

const ME = "https://oauth.reddit.com/api/v1/me"

/**
 * Sign in with Reddit.
 *
 * - Env: `AUTH_REDDIT_ID`, `AUTH_REDDIT_SECRET` (a "web app" on reddit.com/prefs/apps).
 * - Redirect URI of the app: `[origin]/auth/callback/reddit`.
 * - Scope `identity`. Reddit never shares the email, so `email` is null. For a refresh token
 *   add `authorization: { params: { duration: "permanent" } }`.
 * - Reddit's API rules require a descriptive User-Agent, which the userinfo request sends.
 *
 * @example
 * ```ts
 * import Reddit from "@portcullis/core/providers/reddit"
 * Auth(request, { providers: [Reddit()] })
 * ```
 */
export default function Reddit(options: OAuthUserConfig<RedditProfile> = {}): OAuthConfig<RedditProfile> {
  return {
    id: "reddit",
    name: "Reddit",
    type: "oauth",
    authorization: { url: "https://www.reddit.com/api/v1/authorize", params: { scope: "identity" } },
    token: "https://www.reddit.com/api/v1/access_token",
    userinfo: {
      url: ME,
      async request({ tokens, fetch }) {
        const res = await fetch(ME, {
          headers: { Authorization: `Bearer ${tokens.access_token}`, "User-Agent": "web:portcullis-auth:v1 (sign-in)" },
        })
        if (!res.ok) throw new Error(`Reddit GET /api/v1/me failed with ${res.status}`)
        return (await res.json()) as RedditProfile
      },
    },
    profile(profile) {
      const image = profile.icon_img?.replaceAll("&amp;", "&") || profile.snoovatar_img || null
      return { id: profile.id, name: profile.name, email: null, image }
    },
    style: { bg: "#FF4500", text: "#fff" },
    options,
  }
}
