/**
 * Naver Login.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /v1/nid/me` (https://developers.naver.com/docs/login/profile/profile.md): the user is under `response`. */
export interface NaverProfile {
  resultcode: string
  message: string
  response: {
    /** Unique per app and user. */
    id: string
    nickname?: string
    name?: string
    email?: string
    gender?: "F" | "M" | "U"
    age?: string
    birthday?: string
    birthyear?: string
    mobile?: string
    profile_image?: string
    [key: string]: unknown
  }
  [key: string]: unknown
}

/**
 * Sign in with Naver.
 *
 * - Env: `AUTH_NAVER_ID`, `AUTH_NAVER_SECRET`.
 * - Callback URL of the application: `[origin]/auth/callback/naver`.
 * - The fields returned are the ones chosen on the application (name, email, profile image…).
 *
 * @example
 * ```ts
 * import Naver from "@portcullis/core/providers/naver"
 * Auth(request, { providers: [Naver()] })
 * ```
 */
export default function Naver(options: OAuthUserConfig<NaverProfile> = {}): OAuthConfig<NaverProfile> {
  return {
    id: "naver",
    name: "Naver",
    type: "oauth",
    authorization: "https://nid.naver.com/oauth2.0/authorize",
    token: "https://nid.naver.com/oauth2.0/token",
    userinfo: "https://openapi.naver.com/v1/nid/me",
    // Naver takes client_id/client_secret as parameters of the token request.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile({ response: r }) {
      return { id: r.id, name: r.name ?? r.nickname ?? null, email: r.email ?? null, image: r.profile_image ?? null }
    },
    style: { bg: "#03C75A", text: "#fff" },
    options,
  }
}
