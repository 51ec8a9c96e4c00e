/**
 * HubSpot sign-in (OAuth 2). HubSpot has no userinfo endpoint: the profile comes from the
 * access token's metadata.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/**
 * `GET /oauth/v1/access-tokens/{token}`
 * (https://developers.hubspot.com/docs/api-reference/legacy/authentication/oauth-tokens/v1/get-oauth-token-metadata):
 * who installed the app, in which account.
 */
export interface HubSpotProfile {
  token: string
  /** The email address of the HubSpot user who authorized the app. */
  user: string
  /** The HubSpot user id. */
  user_id: number
  hub_domain: string
  /** The HubSpot account (portal) id. */
  hub_id: number
  app_id: number
  scopes: string[]
  token_type: string
  expires_in: number
  [key: string]: unknown
}

/** The v1 token metadata endpoint; the token is appended as the last path segment. */
export const HUBSPOT_TOKEN_INFO = "https://api.hubapi.com/oauth/v1/access-tokens"

/**
 * Sign in with HubSpot.
 *
 * - Env: `AUTH_HUBSPOT_ID`, `AUTH_HUBSPOT_SECRET`.
 * - Redirect URL of the app (Auth tab): `[origin]/auth/callback/hubspot`. Scope `oauth`,
 *   the least a HubSpot app can ask for; add the CRM scopes your app needs.
 * - HubSpot has no userinfo endpoint. The profile is the token's metadata,
 *   `GET /oauth/v1/access-tokens/<token>` (no Authorization header: the token is the path),
 *   so the id is the HubSpot `user_id`, and `user` (the address) is both name and email.
 * - The token endpoint wants the client id and secret in the body (`client_secret_post`).
 * - HubSpot retires the v1 OAuth API on 2027-02-16 in favour of `/oauth/v3/token` and
 *   `/oauth/v3/token/introspect`; the ids do not change.
 *
 * @example
 * ```ts
 * import HubSpot from "@portcullis/core/providers/hubspot"
 * Auth(request, { providers: [HubSpot()] })
 * ```
 */
export default function HubSpot(options: OAuthUserConfig<HubSpotProfile> = {}): OAuthConfig<HubSpotProfile> {
  return {
    id: "hubspot",
    name: "HubSpot",
    type: "oauth",
    authorization: { url: "https://app.hubspot.com/oauth/authorize", params: { scope: "oauth" } },
    token: "https://api.hubapi.com/oauth/v1/token",
    client: { token_endpoint_auth_method: "client_secret_post" },
    userinfo: {
      url: HUBSPOT_TOKEN_INFO,
      async request({ tokens, provider, fetch }) {
        const base = String(provider.userinfo?.url ?? HUBSPOT_TOKEN_INFO).replace(/\/+$/, "")
        const res = await fetch(`${base}/${encodeURIComponent(String(tokens.access_token))}`, { headers: { Accept: "application/json" } })
        if (!res.ok) throw new Error(`HubSpot token metadata request failed with ${res.status}`)
        return (await res.json()) as HubSpotProfile
      },
    },
    profile(profile) {
      return { id: String(profile.user_id), name: profile.user ?? null, email: profile.user ?? null, image: null }
    },
    style: { bg: "#FF7A59", text: "#fff" },
    options,
  }
}
