/**
 * Netlify sign-in (OAuth 2).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /api/v1/user` (https://open-api.netlify.com/#tag/user/operation/getCurrentUser). */
export interface NetlifyProfile {
  id: string
  uid?: string
  full_name: string | null
  avatar_url: string | null
  email: string
  affiliate_id?: string
  site_count?: number
  created_at?: string
  last_login?: string
  login_providers?: string[]
  [key: string]: unknown
}

/**
 * Sign in with Netlify.
 *
 * - Env: `AUTH_NETLIFY_ID`, `AUTH_NETLIFY_SECRET`.
 * - Register an OAuth application (User settings → Applications → OAuth) with the redirect
 *   URI `[origin]/auth/callback/netlify`.
 * - Netlify tokens carry no scopes: the app gets the user's full API access.
 *
 * @example
 * ```ts
 * import Netlify from "@portcullis/core/providers/netlify"
 * Auth(request, { providers: [Netlify()] })
 * ```
 */
export default function Netlify(options: OAuthUserConfig<NetlifyProfile> = {}): OAuthConfig<NetlifyProfile> {
  return {
    id: "netlify",
    name: "Netlify",
    type: "oauth",
    authorization: "https://app.netlify.com/authorize",
    token: "https://api.netlify.com/oauth/token",
    userinfo: "https://api.netlify.com/api/v1/user",
    // Netlify's token endpoint takes the client id and secret as form fields.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return { id: profile.id, name: profile.full_name ?? null, email: profile.email ?? null, image: profile.avatar_url ?? null }
    },
    style: { bg: "#05BDBA", text: "#fff" },
    options,
  }
}
