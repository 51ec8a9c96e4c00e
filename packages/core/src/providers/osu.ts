/**
 * osu! sign-in (osu! API v2).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /api/v2/me` (https://osu.ppy.sh/docs/#get-own-data): a UserExtended. */
/** The fields every osu! user object carries (API v2 `UserCompact`); dates are ISO 8601 strings. */
export interface OsuUserCompact {
  id: number
  username: string
  avatar_url: string
  country_code: string
  default_group?: string
  is_active?: boolean
  is_bot?: boolean
  is_deleted?: boolean
  is_online?: boolean
  is_supporter?: boolean
  last_visit?: string | null
  pm_friends_only?: boolean
  profile_colour?: string | null
}

export interface OsuProfile extends OsuUserCompact {
  playmode?: string
  cover_url?: string
  join_date?: string
  [key: string]: unknown
}

/**
 * Sign in with osu!.
 *
 * - Env: `AUTH_OSU_ID`, `AUTH_OSU_SECRET`.
 * - Application Callback URL (account settings → OAuth): `[origin]/auth/callback/osu`.
 * - Scope `identify`. osu! gives no email.
 *
 * @example
 * ```ts
 * import Osu from "@portcullis/core/providers/osu"
 * Auth(request, { providers: [Osu()] })
 * ```
 */
export default function Osu(options: OAuthUserConfig<OsuProfile> = {}): OAuthConfig<OsuProfile> {
  return {
    id: "osu",
    name: "Osu!",
    type: "oauth",
    authorization: { url: "https://osu.ppy.sh/oauth/authorize", params: { scope: "identify" } },
    token: "https://osu.ppy.sh/oauth/token",
    userinfo: "https://osu.ppy.sh/api/v2/me",
    profile(profile) {
      return { id: String(profile.id), name: profile.username, email: null, image: profile.avatar_url ?? null }
    },
    style: { bg: "#FF66AA", text: "#000" },
    options,
  }
}
