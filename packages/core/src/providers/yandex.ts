/**
 * Yandex ID sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET https://login.yandex.ru/info?format=json` (https://yandex.com/dev/id/doc/en/user-information). */
export interface YandexProfile {
  /** The Yandex user id. */
  id: string
  login: string
  client_id: string
  psuid: string
  /** With `login:email`. */
  default_email?: string
  emails?: string[]
  /** With `login:avatar`. */
  is_avatar_empty?: boolean
  default_avatar_id?: string
  /** With `login:info`. */
  first_name?: string
  last_name?: string
  display_name?: string
  real_name?: string
  sex?: "male" | "female" | null
  birthday?: string | null
  default_phone?: { id: number; number: string }
  [key: string]: unknown
}

const INFO = "https://login.yandex.ru/info?format=json"

/**
 * Sign in with Yandex.
 *
 * - Env: `AUTH_YANDEX_ID`, `AUTH_YANDEX_SECRET`.
 * - Redirect URI of the app (oauth.yandex.com): `[origin]/auth/callback/yandex`.
 * - Scope `login:info login:email login:avatar` (the app must have these permissions).
 * - Yandex wants the token as `Authorization: OAuth <token>`, so the preset reads the profile
 *   itself. Image = the `islands-200` size of the default avatar, when the user has one.
 *
 * @example
 * ```ts
 * import Yandex from "@portcullis/core/providers/yandex"
 * Auth(request, { providers: [Yandex()] })
 * ```
 */
export default function Yandex(options: OAuthUserConfig<YandexProfile> = {}): OAuthConfig<YandexProfile> {
  return {
    id: "yandex",
    name: "Yandex",
    type: "oauth",
    authorization: { url: "https://oauth.yandex.ru/authorize", params: { scope: "login:info login:email login:avatar" } },
    token: "https://oauth.yandex.ru/token",
    userinfo: {
      url: INFO,
      async request({ tokens, provider, fetch }) {
        const res = await fetch(provider.userinfo?.url ?? INFO, { headers: { Authorization: `OAuth ${tokens.access_token}` } })
        if (!res.ok) throw new Error(`Yandex /info failed with ${res.status}`)
        return (await res.json()) as YandexProfile
      },
    },
    profile(profile) {
      return {
        id: profile.id,
        name: profile.display_name ?? profile.real_name ?? profile.first_name ?? profile.login ?? null,
        email: profile.default_email ?? profile.emails?.[0] ?? null,
        image:
          !profile.is_avatar_empty && profile.default_avatar_id
            ? `https://avatars.yandex.net/get-yapic/${profile.default_avatar_id}/islands-200`
            : null,
      }
    },
    style: { bg: "#ffcc00", text: "#000" },
    options,
  }
}
