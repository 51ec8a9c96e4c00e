/**
 * authentik (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** authentik claims with the default scope mappings (openid, profile, email). */
export interface AuthentikProfile {
  /** Per the provider's "Subject mode"; the default is a hashed user id. */
  sub: string
  name?: string
  given_name?: string
  preferred_username?: string
  nickname?: string
  email?: string
  email_verified?: boolean
  groups?: string[]
  picture?: string
  [key: string]: unknown
}

/**
 * Sign in with authentik.
 *
 * - Env: `AUTH_AUTHENTIK_ID`, `AUTH_AUTHENTIK_SECRET`, `AUTH_AUTHENTIK_ISSUER`.
 * - **Required** `issuer`: `https://<host>/application/o/<application-slug>/`, **with the
 *   trailing slash**, as shown on the provider's overview page.
 * - Redirect URI of the OAuth2/OpenID provider: `[origin]/auth/callback/authentik`.
 * - Keep the default subject mode (hashed user id) or the user id: subjects based on email
 *   or username change when those do.
 *
 * @example
 * ```ts
 * import Authentik from "@portcullis/core/providers/authentik"
 * Authentik({ issuer: "https://auth.example.com/application/o/my-app/" })
 * ```
 */
export default function Authentik(options: OAuthUserConfig<AuthentikProfile> = {}): OAuthConfig<AuthentikProfile> {
  return {
    id: "authentik",
    name: "authentik",
    type: "oidc",
    // No default issuer: it names your host and application (options or AUTH_AUTHENTIK_ISSUER).
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.preferred_username ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#FD4B2D", text: "#fff" },
    options,
  }
}
