/**
 * Keycloak (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Keycloak ID token claims with the default client scopes (profile, email). */
export interface KeycloakProfile {
  /** The Keycloak user id (a UUID). */
  sub: string
  name?: string
  preferred_username?: string
  given_name?: string
  family_name?: string
  email?: string
  email_verified?: boolean
  picture?: string
  [key: string]: unknown
}

/**
 * Sign in with Keycloak.
 *
 * - Env: `AUTH_KEYCLOAK_ID`, `AUTH_KEYCLOAK_SECRET`, `AUTH_KEYCLOAK_ISSUER`.
 * - **Required** `issuer`: `https://<host>/realms/<realm>` (Keycloak 17+; older versions put
 *   `/auth` before `/realms`).
 * - Valid redirect URI of the client: `[origin]/auth/callback/keycloak`. Enable
 *   "Client authentication" so the client is confidential.
 *
 * @example
 * ```ts
 * import Keycloak from "@portcullis/core/providers/keycloak"
 * Keycloak({ issuer: "https://sso.example.com/realms/main" })
 * ```
 */
export default function Keycloak(options: OAuthUserConfig<KeycloakProfile> = {}): OAuthConfig<KeycloakProfile> {
  return {
    id: "keycloak",
    name: "Keycloak",
    type: "oidc",
    // No default issuer: it names your server and realm (options or AUTH_KEYCLOAK_ISSUER).
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.preferred_username ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#008AAA", text: "#fff" },
    options,
  }
}
