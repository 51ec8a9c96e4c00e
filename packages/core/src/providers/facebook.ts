/**
 * Facebook Login.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /me?fields=id,name,email,picture` (https://developers.facebook.com/docs/graph-api/reference/user). */
export interface FacebookProfile {
  /** App-scoped user id. */
  id: string
  name?: string
  /** Absent when the user has no confirmed email or declined the permission. */
  email?: string
  picture?: { data: { url: string; height?: number; width?: number; is_silhouette?: boolean } }
  [key: string]: unknown
}

/** Graph API version the preset pins; Meta serves older calls from the oldest live version. */
const GRAPH = "v23.0"

/**
 * Sign in with Facebook.
 *
 * - Env: `AUTH_FACEBOOK_ID` (App ID), `AUTH_FACEBOOK_SECRET` (App Secret).
 * - Valid OAuth Redirect URI: `[origin]/auth/callback/facebook`.
 * - Scope `email` (`public_profile` is always granted). The fields are in the userinfo URL.
 *
 * @example
 * ```ts
 * import Facebook from "@portcullis/core/providers/facebook"
 * Auth(request, { providers: [Facebook()] })
 * ```
 */
export default function Facebook(options: OAuthUserConfig<FacebookProfile> = {}): OAuthConfig<FacebookProfile> {
  return {
    id: "facebook",
    name: "Facebook",
    type: "oauth",
    authorization: { url: `https://www.facebook.com/${GRAPH}/dialog/oauth`, params: { scope: "email" } },
    token: `https://graph.facebook.com/${GRAPH}/oauth/access_token`,
    userinfo: `https://graph.facebook.com/${GRAPH}/me?fields=id,name,email,picture`,
    // Meta documents client_id/client_secret as parameters of the token request.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return { id: profile.id, name: profile.name ?? null, email: profile.email ?? null, image: profile.picture?.data.url ?? null }
    },
    style: { bg: "#0866FF", text: "#fff" },
    options,
  }
}
