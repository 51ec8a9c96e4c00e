/**
 * Patreon sign-in (API v2).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /api/oauth2/v2/identity` (https://docs.patreon.com/#get-api-oauth2-v2-identity), JSON:API shaped. */
export interface PatreonProfile {
  data: {
    id: string
    type: "user"
    attributes: {
      /** Requires the `identity[email]` scope. */
      email?: string
      is_email_verified?: boolean
      full_name?: string
      first_name?: string
      last_name?: string
      image_url?: string
      thumb_url?: string
      vanity?: string | null
      url?: string
      [key: string]: unknown
    }
  }
  [key: string]: unknown
}

/**
 * Sign in with Patreon.
 *
 * - Env: `AUTH_PATREON_ID`, `AUTH_PATREON_SECRET`.
 * - Redirect URI of the client: `[origin]/auth/callback/patreon`.
 * - Scope `identity identity[email]`. API v2 returns only the attributes named in
 *   `fields[user]`, which the userinfo URL lists.
 *
 * @example
 * ```ts
 * import Patreon from "@portcullis/core/providers/patreon"
 * Auth(request, { providers: [Patreon()] })
 * ```
 */
export default function Patreon(options: OAuthUserConfig<PatreonProfile> = {}): OAuthConfig<PatreonProfile> {
  return {
    id: "patreon",
    name: "Patreon",
    type: "oauth",
    authorization: { url: "https://www.patreon.com/oauth2/authorize", params: { scope: "identity identity[email]" } },
    token: "https://www.patreon.com/api/oauth2/token",
    userinfo: "https://www.patreon.com/api/oauth2/v2/identity?fields%5Buser%5D=email,full_name,image_url,is_email_verified",
    // Patreon documents client_id/client_secret as form fields of the token request.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile({ data }) {
      const a = data.attributes
      return { id: data.id, name: a.full_name ?? null, email: a.email ?? null, image: a.image_url ?? null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
