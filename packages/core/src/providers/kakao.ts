/**
 * Kakao Login.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /v2/user/me` (https://developers.kakao.com/docs/latest/en/kakaologin/rest-api#req-user-info). */
/** An ISO 8601 date and time in UTC, e.g. `2024-01-31T09:00:00Z`. */
export type DateTime = string

/** `kakao_account.gender`. */
export type Gender = "female" | "male"

/** `kakao_account.birthday_type`: which calendar `birthday` is in. */
export type Birthday = "SOLAR" | "LUNAR"

/** `kakao_account.age_range`. */
export type AgeRange = "1-9" | "10-14" | "15-19" | "20-29" | "30-39" | "40-49" | "50-59" | "60-69" | "70-79" | "80-89" | "90-"

export interface KakaoProfile {
  /** Service user id (a 64-bit integer). */
  id: number
  has_signed_up?: boolean
  connected_at?: DateTime
  synched_at?: DateTime
  properties?: { nickname?: string; profile_image?: string; thumbnail_image?: string }
  kakao_account?: {
    profile?: { nickname?: string; profile_image_url?: string; thumbnail_image_url?: string; is_default_image?: boolean }
    name?: string
    email?: string
    is_email_valid?: boolean
    is_email_verified?: boolean
    age_range?: AgeRange
    birthyear?: string
    /** `MMDD`. */
    birthday?: string
    birthday_type?: Birthday
    gender?: Gender
    phone_number?: string
    ci?: string
    ci_authenticated_at?: DateTime
    [key: string]: unknown
  }
  [key: string]: unknown
}

/**
 * Sign in with Kakao.
 *
 * - Env: `AUTH_KAKAO_ID` (REST API key), `AUTH_KAKAO_SECRET` (Client Secret, if enabled).
 * - Redirect URI of Kakao Login: `[origin]/auth/callback/kakao`.
 * - Kakao asks for the consent items configured in the console (nickname, profile image,
 *   account email), so no scope is sent. The email is kept only when Kakao says it is
 *   valid and verified.
 *
 * @example
 * ```ts
 * import Kakao from "@portcullis/core/providers/kakao"
 * Auth(request, { providers: [Kakao()] })
 * ```
 */
export default function Kakao(options: OAuthUserConfig<KakaoProfile> = {}): OAuthConfig<KakaoProfile> {
  return {
    id: "kakao",
    name: "Kakao",
    type: "oauth",
    authorization: "https://kauth.kakao.com/oauth/authorize",
    token: "https://kauth.kakao.com/oauth/token",
    userinfo: "https://kapi.kakao.com/v2/user/me",
    // Kakao takes client_secret as a form field of the token request.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      const account = profile.kakao_account
      const email = account?.is_email_valid && account.is_email_verified ? account.email ?? null : null
      return {
        id: String(profile.id),
        name: account?.profile?.nickname ?? profile.properties?.nickname ?? null,
        email,
        image: account?.profile?.profile_image_url ?? profile.properties?.profile_image ?? null,
      }
    },
    style: { bg: "#FEE500", text: "#000" },
    options,
  }
}
