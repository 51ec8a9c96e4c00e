/**
 * Asgardeo (WSO2's identity-as-a-service) sign-in, OpenID Connect.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Asgardeo ID token / userinfo claims with the `openid profile email` scopes. */
export interface AsgardeoProfile {
  /** The user's id in the organization (a UUID). */
  sub: string
  given_name?: string
  family_name?: string
  email?: string
  email_verified?: boolean
  picture?: string
  username?: string
  [key: string]: unknown
}

/**
 * Sign in with Asgardeo.
 *
 * - Env: `AUTH_ASGARDEO_ID`, `AUTH_ASGARDEO_SECRET`, `AUTH_ASGARDEO_ISSUER`.
 * - **Required** `issuer`: the application's "Issuer" on its Info tab,
 *   `https://api.asgardeo.io/t/<organization>/oauth2/token` (that is Asgardeo's issuer value;
 *   discovery lives under it).
 * - Authorized redirect URL of the (traditional web) application:
 *   `[origin]/auth/callback/asgardeo`. Add the `given_name`, `family_name`, `email` and
 *   `picture` attributes to the application's user attributes so they reach the ID token.
 * - The name is given name and family name joined, as Auth.js does.
 *
 * @example
 * ```ts
 * import Asgardeo from "@portcullis/core/providers/asgardeo"
 * Asgardeo({ issuer: "https://api.asgardeo.io/t/acme/oauth2/token" })
 * ```
 */
export default function Asgardeo(options: OAuthUserConfig<AsgardeoProfile> = {}): OAuthConfig<AsgardeoProfile> {
  return {
    id: "asgardeo",
    name: "Asgardeo",
    type: "oidc",
    // No default issuer: it names your organization (options or AUTH_ASGARDEO_ISSUER).
    authorization: { params: { scope: "openid profile email" } },
    profile(profile) {
      const name = [profile.given_name, profile.family_name].filter(Boolean).join(" ")
      return { id: profile.sub, name: name || null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
