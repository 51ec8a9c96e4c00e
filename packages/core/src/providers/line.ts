/**
 * LINE Login v2.1 (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** LINE ID token claims (https://developers.line.biz/en/docs/line-login/verify-id-token/#payload). */
export interface LineProfile {
  iss: "https://access.line.me"
  /** The LINE user id (`U` + 32 hex digits), per provider (channel's provider). */
  sub: string
  /** The channel id. */
  aud: string
  exp: number
  iat: number
  auth_time?: number
  nonce?: string
  amr?: string[]
  /** Display name (scope `profile`). */
  name?: string
  /** Profile picture URL (scope `profile`). */
  picture?: string
  /** Only with the `email` scope, which needs "Email address permission" on the channel. */
  email?: string
  [key: string]: unknown
}

/**
 * Sign in with LINE.
 *
 * - Env: `AUTH_LINE_ID` (the LINE Login channel id), `AUTH_LINE_SECRET` (the channel secret).
 * - Callback URL of the LINE Login channel: `[origin]/auth/callback/line`.
 * - OpenID Connect with the issuer `https://access.line.me`; the profile is read from the ID
 *   token. Scope `openid profile`: add `email` only once the channel was granted "Email
 *   address permission", else LINE refuses the authorization request.
 * - For web login LINE signs ID tokens with HS256 keyed by the channel secret, which nobody
 *   can verify against a published key and Portcullis refuses. The preset asks the token
 *   endpoint for `id_token_key_type=JWK`, as LINE's own SDKs do, so the ID token is signed
 *   with ES256 and checked against `https://api.line.me/oauth2/v2.1/certs` (the algorithm
 *   LINE's discovery document lists).
 * - The token endpoint takes the channel id and secret in the body (`client_secret_post`).
 *
 * @example
 * ```ts
 * import Line from "@portcullis/core/providers/line"
 * Auth(request, { providers: [Line()] })
 * ```
 */
export default function Line(options: OAuthUserConfig<LineProfile> = {}): OAuthConfig<LineProfile> {
  return {
    id: "line",
    name: "LINE",
    type: "oidc",
    issuer: "https://access.line.me",
    authorization: { params: { scope: "openid profile" } },
    token: { params: { id_token_key_type: "JWK" } },
    // LINE's token endpoint documents client_id and client_secret as body parameters.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#06C755", text: "#fff" },
    options,
  }
}
