/**
 * Zoom sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /v2/users/me` (https://developers.zoom.us/docs/api/users/#tag/users/GET/users/{userId}). */
export interface ZoomProfile {
  id: string
  first_name?: string
  last_name?: string
  display_name?: string
  email: string
  pic_url?: string
  account_id: string
  type?: number
  timezone?: string
  verified?: number
  language?: string
  status?: string
  [key: string]: unknown
}

/**
 * Sign in with Zoom.
 *
 * - Env: `AUTH_ZOOM_ID`, `AUTH_ZOOM_SECRET` (a "General app", user-managed).
 * - Redirect URL for OAuth, and the OAuth allow list: `[origin]/auth/callback/zoom`.
 * - Zoom grants the scopes selected on the app (`user:read:user` for granular-scope apps,
 *   `user:read` for classic ones), so the preset sends none.
 *
 * @example
 * ```ts
 * import Zoom from "@portcullis/core/providers/zoom"
 * Auth(request, { providers: [Zoom()] })
 * ```
 */
export default function Zoom(options: OAuthUserConfig<ZoomProfile> = {}): OAuthConfig<ZoomProfile> {
  return {
    id: "zoom",
    name: "Zoom",
    type: "oauth",
    authorization: "https://zoom.us/oauth/authorize",
    token: "https://zoom.us/oauth/token",
    userinfo: "https://api.zoom.us/v2/users/me",
    profile(profile) {
      const full = [profile.first_name, profile.last_name].filter(Boolean).join(" ")
      return { id: profile.id, name: profile.display_name || full || null, email: profile.email, image: profile.pic_url ?? null }
    },
    style: { bg: "#0B5CFF", text: "#fff" },
    options,
  }
}
