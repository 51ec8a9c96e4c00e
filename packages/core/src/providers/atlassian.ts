/**
 * Atlassian account sign-in (OAuth 2.0 "3LO").
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET https://api.atlassian.com/me` (https://developer.atlassian.com/cloud/confluence/oauth-2-3lo-apps/#how-do-i-retrieve-the-public-profile-of-the-authenticated-user-). */
export interface AtlassianProfile {
  account_id: string
  account_type: string
  account_status: string
  email: string
  email_verified?: boolean
  name: string
  nickname?: string
  picture: string
  locale?: string
  zoneinfo?: string
  extended_profile?: Record<string, unknown>
  [key: string]: unknown
}

/**
 * Sign in with Atlassian.
 *
 * - Env: `AUTH_ATLASSIAN_ID`, `AUTH_ATLASSIAN_SECRET`.
 * - Callback URL of the OAuth 2.0 integration: `[origin]/auth/callback/atlassian`; add the
 *   User identity API with the `read:me` scope.
 * - Atlassian requires `audience=api.atlassian.com` and `prompt=consent`. For a refresh
 *   token add `offline_access` to the scope.
 *
 * @example
 * ```ts
 * import Atlassian from "@portcullis/core/providers/atlassian"
 * Auth(request, { providers: [Atlassian()] })
 * ```
 */
export default function Atlassian(options: OAuthUserConfig<AtlassianProfile> = {}): OAuthConfig<AtlassianProfile> {
  return {
    id: "atlassian",
    name: "Atlassian",
    type: "oauth",
    authorization: {
      url: "https://auth.atlassian.com/authorize",
      params: { audience: "api.atlassian.com", prompt: "consent", scope: "read:me" },
    },
    token: "https://auth.atlassian.com/oauth/token",
    userinfo: "https://api.atlassian.com/me",
    // Atlassian documents client_id/client_secret in the token request body.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return { id: profile.account_id, name: profile.name, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#0052CC", text: "#fff" },
    options,
  }
}
