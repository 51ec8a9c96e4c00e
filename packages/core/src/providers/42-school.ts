/**
 * 42 (the coding school network) intranet sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /v2/me` (https://api.intra.42.fr/apidoc/2.0/users/me.html), the fields sign-in uses. */
export interface FortyTwoProfile {
  id: number
  email: string
  login: string
  first_name: string
  last_name: string
  usual_full_name: string
  usual_first_name: string | null
  displayname: string
  url: string
  phone: string | null
  /** Profile picture: `link` is the original, `versions` holds resized copies. */
  image: { link: string | null; versions: { large: string | null; medium: string | null; small: string | null; micro: string | null } }
  "staff?": boolean
  correction_point: number
  pool_month: string | null
  pool_year: string | null
  wallet: number
  cursus_users: Array<Record<string, unknown>>
  campus: Array<Record<string, unknown>>
  [key: string]: unknown
}

/**
 * Sign in with a 42 intranet account.
 *
 * - Env: `AUTH_42_SCHOOL_ID`, `AUTH_42_SCHOOL_SECRET` (the application's UID and secret).
 * - Redirect URI of the application on profile.intra.42.fr: `[origin]/auth/callback/42-school`.
 * - Scope `public`, enough for `/v2/me`. The id is 42's numeric user id.
 *
 * @example
 * ```ts
 * import FortyTwo from "@portcullis/core/providers/42-school"
 * Auth(request, { providers: [FortyTwo()] })
 * ```
 */
export default function FortyTwo(options: OAuthUserConfig<FortyTwoProfile> = {}): OAuthConfig<FortyTwoProfile> {
  return {
    id: "42-school",
    name: "42 School",
    type: "oauth",
    authorization: { url: "https://api.intra.42.fr/oauth/authorize", params: { scope: "public" } },
    token: "https://api.intra.42.fr/oauth/token",
    userinfo: "https://api.intra.42.fr/v2/me",
    profile(profile) {
      return { id: String(profile.id), name: profile.usual_full_name, email: profile.email, image: profile.image?.link ?? null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
