/**
 * "Sign In with LinkedIn using OpenID Connect".
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** LinkedIn ID token / userinfo claims (https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2). */
export interface LinkedInProfile {
  sub: string
  name: string
  given_name: string
  family_name: string
  picture?: string
  locale?: { country: string; language: string } | string
  email?: string
  email_verified?: boolean
  [key: string]: unknown
}

/**
 * Sign in with LinkedIn.
 *
 * - Env: `AUTH_LINKEDIN_ID`, `AUTH_LINKEDIN_SECRET`.
 * - Authorized redirect URL: `[origin]/auth/callback/linkedin`. Add the product
 *   "Sign In with LinkedIn using OpenID Connect" to the app.
 * - Discovery lives at `https://www.linkedin.com/oauth/.well-known/openid-configuration`.
 * - Only `state` is checked: LinkedIn's web flow fails the token exchange when a
 *   `code_verifier` is sent (PKCE is for native apps only), and its ID tokens carry no `nonce`.
 *
 * @example
 * ```ts
 * import LinkedIn from "@portcullis/core/providers/linkedin"
 * Auth(request, { providers: [LinkedIn()] })
 * ```
 */
export default function LinkedIn(options: OAuthUserConfig<LinkedInProfile> = {}): OAuthConfig<LinkedInProfile> {
  return {
    id: "linkedin",
    name: "LinkedIn",
    type: "oidc",
    issuer: "https://www.linkedin.com/oauth",
    authorization: { params: { scope: "openid profile email" } },
    // The token endpoint only accepts client_id/client_secret in the body.
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      return { id: profile.sub, name: profile.name, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#0A66C2", text: "#fff" },
    options,
  }
}
