/**
 * Spotify sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /v1/me` (https://developer.spotify.com/documentation/web-api/reference/get-current-users-profile). */
/** One size of the user's profile picture; Spotify does not always know the dimensions. */
export interface SpotifyImage {
  url: string
  height: number | null
  width: number | null
}

export interface SpotifyProfile {
  id: string
  display_name: string | null
  /** Requires `user-read-email`; Spotify does not verify it. */
  email?: string
  images: SpotifyImage[]
  country?: string
  product?: string
  uri: string
  [key: string]: unknown
}

/**
 * Sign in with Spotify.
 *
 * - Env: `AUTH_SPOTIFY_ID`, `AUTH_SPOTIFY_SECRET`.
 * - Redirect URI of the app: `[origin]/auth/callback/spotify`. Spotify rejects `localhost`
 *   redirect URIs: use `http://127.0.0.1:<port>` in development, https otherwise.
 * - Scope `user-read-email`.
 *
 * @example
 * ```ts
 * import Spotify from "@portcullis/core/providers/spotify"
 * Auth(request, { providers: [Spotify()] })
 * ```
 */
export default function Spotify(options: OAuthUserConfig<SpotifyProfile> = {}): OAuthConfig<SpotifyProfile> {
  return {
    id: "spotify",
    name: "Spotify",
    type: "oauth",
    authorization: { url: "https://accounts.spotify.com/authorize", params: { scope: "user-read-email" } },
    token: "https://accounts.spotify.com/api/token",
    userinfo: "https://api.spotify.com/v1/me",
    profile(profile) {
      return { id: profile.id, name: profile.display_name, email: profile.email ?? null, image: profile.images?.[0]?.url ?? null }
    },
    style: { bg: "#1ED760", text: "#000" },
    options,
  }
}
