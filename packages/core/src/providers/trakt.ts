/**
 * Trakt sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /users/me?extended=full` (https://trakt.docs.apiary.io/#reference/users/profile). */
export interface TraktUser {
  username: string
  private: boolean
  name: string | null
  vip: boolean
  vip_ep: boolean
  ids: { slug: string; [key: string]: unknown }
  joined_at?: string
  location?: string | null
  about?: string | null
  gender?: string | null
  age?: number | null
  images?: { avatar: { full: string } }
  [key: string]: unknown
}

/** Trakt options: the API lives on its own host (`https://api-staging.trakt.tv` for staging). */
export type TraktUserConfig = OAuthUserConfig<TraktUser> & {
  /** The site that shows the authorization page, default `https://trakt.tv`. */
  baseUrl?: string
  /** The API host, default `https://api.trakt.tv`. */
  apiUrl?: string
}

/**
 * Sign in with Trakt.
 *
 * - Env: `AUTH_TRAKT_ID`, `AUTH_TRAKT_SECRET`.
 * - Redirect URI of the API app: `[origin]/auth/callback/trakt`.
 * - Trakt has no scopes; the preset sends `scope=public` (Trakt's only scope) so the core's
 *   OIDC default is not sent. Every API call needs the `trakt-api-key` (the client id) and
 *   `trakt-api-version: 2` headers, so the profile is read by the preset itself.
 * - Staging: `Trakt({ baseUrl: "https://staging.trakt.tv", apiUrl: "https://api-staging.trakt.tv" })`.
 * - id = `ids.slug`, as Auth.js. Trakt gives no email, and does not allow hotlinking the
 *   avatar URL it returns as `image`.
 *
 * @example
 * ```ts
 * import Trakt from "@portcullis/core/providers/trakt"
 * Auth(request, { providers: [Trakt()] })
 * ```
 */
export default function Trakt(options: TraktUserConfig = {}): OAuthConfig<TraktUser> {
  const site = (options.baseUrl ?? "https://trakt.tv").replace(/\/+$/, "")
  const api = (options.apiUrl ?? "https://api.trakt.tv").replace(/\/+$/, "")
  const me = `${api}/users/me?extended=full`
  return {
    id: "trakt",
    name: "Trakt",
    type: "oauth",
    authorization: { url: `${site}/oauth/authorize`, params: { scope: "public" } },
    token: `${api}/oauth/token`,
    userinfo: {
      url: me,
      async request({ tokens, provider, fetch }) {
        const res = await fetch(provider.userinfo?.url ?? me, {
          headers: {
            Authorization: `Bearer ${tokens.access_token}`,
            "Content-Type": "application/json",
            "trakt-api-version": "2",
            "trakt-api-key": provider.clientId ?? "",
          },
        })
        if (!res.ok) throw new Error(`Trakt GET /users/me failed with ${res.status}`)
        return (await res.json()) as TraktUser
      },
    },
    profile(profile) {
      return { id: profile.ids.slug, name: profile.name || profile.username, email: null, image: profile.images?.avatar?.full ?? null }
    },
    style: { bg: "#ED2224", text: "#fff" },
    options,
  }
}
