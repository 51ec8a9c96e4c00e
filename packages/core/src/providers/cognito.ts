/**
 * Amazon Cognito user pools (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Cognito ID token claims (https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-the-id-token.html). */
export interface CognitoProfile {
  /** The user's UUID in the pool. */
  sub: string
  "cognito:username": string
  "cognito:groups"?: string[]
  email?: string
  email_verified?: boolean
  name?: string
  given_name?: string
  family_name?: string
  picture?: string
  phone_number?: string
  [key: string]: unknown
}

/**
 * Sign in with a Cognito user pool.
 *
 * - Env: `AUTH_COGNITO_ID`, `AUTH_COGNITO_SECRET`, `AUTH_COGNITO_ISSUER`.
 * - **Required** `issuer`: `https://cognito-idp.<region>.amazonaws.com/<user-pool-id>`; its
 *   discovery document points at the pool's hosted (managed login) domain.
 * - Allowed callback URL of the app client: `[origin]/auth/callback/cognito`. The app client
 *   needs a client secret and the `openid`, `email` and `profile` scopes.
 *
 * @example
 * ```ts
 * import Cognito from "@portcullis/core/providers/cognito"
 * Cognito({ issuer: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123" })
 * ```
 */
export default function Cognito(options: OAuthUserConfig<CognitoProfile> = {}): OAuthConfig<CognitoProfile> {
  return {
    id: "cognito",
    name: "Cognito",
    type: "oidc",
    // No default issuer: it names your region and user pool (options or AUTH_COGNITO_ISSUER).
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? profile["cognito:username"] ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      }
    },
    style: { bg: "#FF9900", text: "#000" },
    options,
  }
}
