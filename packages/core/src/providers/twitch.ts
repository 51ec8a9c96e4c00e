/**
 * Twitch sign-in (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Twitch ID token claims (https://dev.twitch.tv/docs/authentication/getting-tokens-oidc/#requesting-claims). */
export interface TwitchProfile {
  iss: string
  /** The Twitch user id. */
  sub: string
  aud: string
  azp: string
  preferred_username?: string
  email?: string
  email_verified?: boolean
  picture?: string
  updated_at?: string
  [key: string]: unknown
}

/**
 * Sign in with Twitch.
 *
 * - Env: `AUTH_TWITCH_ID`, `AUTH_TWITCH_SECRET`.
 * - OAuth Redirect URL of the application: `[origin]/auth/callback/twitch`.
 * - Twitch puts only `sub` in the ID token unless the `claims` parameter asks for more, so
 *   the preset requests `email`, `picture` and `preferred_username`; `user:read:email` lets
 *   it see the address.
 * - Two Twitch quirks handled here: its token endpoint only takes `client_secret_post`, and
 *   its token response returns `scope` as a JSON array, which OAuth requires to be a string.
 *
 * @example
 * ```ts
 * import Twitch from "@portcullis/core/providers/twitch"
 * Auth(request, { providers: [Twitch()] })
 * ```
 */
export default function Twitch(options: OAuthUserConfig<TwitchProfile> = {}): OAuthConfig<TwitchProfile> {
  return {
    id: "twitch",
    name: "Twitch",
    type: "oidc",
    issuer: "https://id.twitch.tv/oauth2",
    authorization: {
      params: {
        scope: "openid user:read:email",
        claims: JSON.stringify({ id_token: { email: null, picture: null, preferred_username: null } }),
      },
    },
    token: {
      async conform(response) {
        const body = (await response.clone().json().catch(() => undefined)) as { scope?: unknown } | undefined
        if (!body || !Array.isArray(body.scope)) return response
        return new Response(JSON.stringify({ ...body, scope: body.scope.join(" ") }), {
          status: response.status,
          headers: response.headers,
        })
      },
    },
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return { id: profile.sub, name: profile.preferred_username ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#9146FF", text: "#fff" },
    options,
  }
}
