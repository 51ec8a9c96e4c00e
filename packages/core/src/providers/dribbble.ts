/**
 * Dribbble sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /v2/user` (https://developer.dribbble.com/v2/user/). */
export interface DribbbleProfile {
  id: number
  name: string
  login: string
  html_url: string
  avatar_url: string
  bio: string
  location: string | null
  /** Not in Dribbble's documented response: only present for some applications. */
  email?: string | null
  links: Record<string, string>
  can_upload_shot: boolean
  pro: boolean
  followers_count: number
  created_at: string
  [key: string]: unknown
}

/**
 * Sign in with Dribbble.
 *
 * - Env: `AUTH_DRIBBBLE_ID`, `AUTH_DRIBBBLE_SECRET`.
 * - Callback URL of the application: `[origin]/auth/callback/dribbble`.
 * - Scope `public`, or `public upload` with `scope: "public upload"`. Dribbble's user object documents no email, so `email` is usually null.
 *
 * @example
 * ```ts
 * import Dribbble from "@portcullis/core/providers/dribbble"
 * Auth(request, { providers: [Dribbble()] })
 * ```
 */
export default function Dribbble(
  options: OAuthUserConfig<DribbbleProfile> & {
    /** Scope requested at authorization (https://developer.dribbble.com/v2/oauth/#scopes): `public` (default) or `public upload`. */
    scope?: "public" | "public upload"
  } = {},
): OAuthConfig<DribbbleProfile> {
  const { scope = "public", ...rest } = options
  return {
    id: "dribbble",
    name: "Dribbble",
    type: "oauth",
    authorization: { url: "https://dribbble.com/oauth/authorize", params: { scope } },
    token: "https://dribbble.com/oauth/token",
    userinfo: "https://api.dribbble.com/v2/user",
    profile(profile) {
      return { id: String(profile.id), name: profile.name, email: profile.email ?? null, image: profile.avatar_url ?? null }
    },
    style: { bg: "#ea4c89", text: "#fff" },
    options: "scope" in options ? rest : options,
  }
}
