/**
 * Foursquare (Swarm/City Guide account) sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** A Foursquare user (https://docs.foursquare.com/developer/reference/personalization-apis-users), as in `response.user`. */
export interface FoursquareUser {
  id: string
  firstName: string
  lastName?: string
  gender?: string
  /** Build a URL as `<prefix><size><suffix>`, size e.g. `original` or `100x100`. */
  photo?: { prefix: string; suffix: string }
  contact?: { email?: string; phone?: string; twitter?: string; facebook?: string }
  homeCity?: string
  canonicalUrl?: string
  [key: string]: unknown
}

/** `GET /v2/users/self`: Foursquare's `meta`/`response` envelope. */
export interface FoursquareProfile {
  meta: { code: number; requestId?: string; [key: string]: unknown }
  response: { user: FoursquareUser }
  [key: string]: unknown
}

/** Foursquare options: the API version date sent as `v` (Auth.js's `apiVersion`). */
export type FoursquareUserConfig = OAuthUserConfig<FoursquareProfile> & {
  /** `YYYYMMDD`, the date of the API behaviour you expect. Default `20230131`. */
  apiVersion?: string
}

const SELF = "https://api.foursquare.com/v2/users/self"

/**
 * Sign in with Foursquare.
 *
 * - Env: `AUTH_FOURSQUARE_ID`, `AUTH_FOURSQUARE_SECRET`.
 * - Redirect URI of the app on foursquare.com/developers: `[origin]/auth/callback/foursquare`.
 * - The v2 API wants a version date `v` on every call (`apiVersion`, default `20230131`) and
 *   the user token as the `oauth_token` query parameter, as Foursquare documents it, so the
 *   profile is read with a custom request. The token endpoint takes the client id and
 *   secret as parameters (`client_secret_post`).
 *
 * @example
 * ```ts
 * import Foursquare from "@portcullis/core/providers/foursquare"
 * Auth(request, { providers: [Foursquare({ apiVersion: "20230131" })] })
 * ```
 */
export default function Foursquare(options: FoursquareUserConfig = {}): OAuthConfig<FoursquareProfile> {
  const apiVersion = options.apiVersion ?? "20230131"
  return {
    id: "foursquare",
    name: "Foursquare",
    type: "oauth",
    authorization: "https://foursquare.com/oauth2/authenticate",
    token: "https://foursquare.com/oauth2/access_token",
    client: { token_endpoint_auth_method: "client_secret_post" },
    userinfo: {
      url: SELF,
      async request({ tokens, provider, fetch }) {
        const url = new URL(provider.userinfo?.url?.href ?? SELF)
        url.searchParams.set("v", apiVersion)
        url.searchParams.set("oauth_token", String(tokens.access_token))
        const res = await fetch(url, { headers: { Accept: "application/json" } })
        if (!res.ok) throw new Error(`Foursquare GET /v2/users/self failed with ${res.status}`)
        return (await res.json()) as FoursquareProfile
      },
    },
    profile({ response: { user } }) {
      const name = [user.firstName, user.lastName].filter(Boolean).join(" ")
      return {
        id: user.id,
        name: name || null,
        email: user.contact?.email ?? null,
        image: user.photo ? `${user.photo.prefix}original${user.photo.suffix}` : null,
      }
    },
    style: { bg: "#3333ff", text: "#fff" },
    options,
  }
}
