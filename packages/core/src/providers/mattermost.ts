/**
 * Mattermost sign-in (OAuth 2 service provider of a Mattermost server).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /api/v4/users/me` (https://api.mattermost.com/#tag/users/operation/GetUser). */
export interface MattermostProfile {
  /** The user id (26 characters). */
  id: string
  username: string
  first_name: string
  last_name: string
  nickname: string
  email: string
  email_verified: boolean
  auth_service: string
  roles: string
  locale: string
  position?: string
  create_at: number
  update_at: number
  delete_at: number
  [key: string]: unknown
}

/** The server URL from `issuer`, else `AUTH_MATTERMOST_ISSUER`, without a trailing slash. */
function serverOf(options: OAuthUserConfig<MattermostProfile>): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  return (options.issuer ?? env?.AUTH_MATTERMOST_ISSUER)?.replace(/\/+$/, "")
}

/**
 * Sign in with a Mattermost server.
 *
 * - Env: `AUTH_MATTERMOST_ID`, `AUTH_MATTERMOST_SECRET`, `AUTH_MATTERMOST_ISSUER`.
 * - **Required** `issuer`: the server, e.g. `https://chat.example.com`.
 * - Enable "OAuth 2.0 Service Provider" (System Console → Integrations), then add an OAuth 2.0
 *   application (Integrations → OAuth 2.0 Applications) with the callback URL
 *   `[origin]/auth/callback/mattermost`.
 * - The name is the username, else first and last name; there is no picture.
 *
 * @example
 * ```ts
 * import Mattermost from "@portcullis/core/providers/mattermost"
 * Mattermost({ issuer: "https://chat.example.com" })
 * ```
 */
export default function Mattermost(options: OAuthUserConfig<MattermostProfile> = {}): OAuthConfig<MattermostProfile> {
  const server = serverOf(options)
  return {
    id: "mattermost",
    name: "Mattermost",
    type: "oauth",
    ...(server && {
      authorization: `${server}/oauth/authorize`,
      token: `${server}/oauth/access_token`,
      userinfo: `${server}/api/v4/users/me`,
    }),
    // Mattermost reads client_id and client_secret from the token request body.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      const name = profile.username || [profile.first_name, profile.last_name].filter(Boolean).join(" ") || null
      return { id: profile.id, name, email: profile.email || null, image: null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
