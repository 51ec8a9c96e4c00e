/**
 * FreshBooks sign-in (OAuth 2).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/**
 * `GET /auth/api/v1/users/me` (https://www.freshbooks.com/api/me_endpoint): the identity is
 * under `response`.
 */
export interface FreshbooksProfile {
  response: {
    /** The identity id, the same across all the businesses the user belongs to. */
    id: number
    identity_id?: number
    first_name: string | null
    last_name: string | null
    email: string
    confirmed_at?: string | null
    created_at?: string
    language?: string | null
    business_memberships?: { id: number; role: string; business: { id: number; name: string; account_id: string | null } }[]
    [key: string]: unknown
  }
  [key: string]: unknown
}

/**
 * Sign in with FreshBooks.
 *
 * - Env: `AUTH_FRESHBOOKS_ID`, `AUTH_FRESHBOOKS_SECRET`.
 * - Redirect URI of the app (FreshBooks developer page): `[origin]/auth/callback/freshbooks`.
 *   FreshBooks only accepts `https` redirect URIs.
 * - The profile is `response` of `/auth/api/v1/users/me`; the name joins first and last name.
 *
 * @example
 * ```ts
 * import Freshbooks from "@portcullis/core/providers/freshbooks"
 * Auth(request, { providers: [Freshbooks()] })
 * ```
 */
export default function Freshbooks(options: OAuthUserConfig<FreshbooksProfile> = {}): OAuthConfig<FreshbooksProfile> {
  return {
    id: "freshbooks",
    name: "Freshbooks",
    type: "oauth",
    authorization: "https://auth.freshbooks.com/oauth/authorize",
    token: "https://api.freshbooks.com/auth/oauth/token",
    userinfo: "https://api.freshbooks.com/auth/api/v1/users/me",
    // FreshBooks documents client_id/client_secret in the token request body.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile({ response }) {
      const name = [response.first_name, response.last_name].filter(Boolean).join(" ") || null
      return { id: String(response.id), name, email: response.email ?? null, image: null }
    },
    style: { bg: "#0075DD", text: "#fff" },
    options,
  }
}
