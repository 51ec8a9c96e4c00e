/**
 * Ory Hydra / Ory Network OAuth2 (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/**
 * Ory Hydra ID token claims (https://www.ory.sh/docs/oauth2-oidc/userinfo-oidc). Beyond the
 * registered claims, what it holds is what your consent app put in the session's `id_token`.
 */
export interface OryHydraProfile {
  /** The subject the login app accepted. */
  sub: string
  iss: string
  aud: string[] | string
  iat: number
  exp: number
  auth_time?: number
  rat?: number
  sid?: string
  name?: string
  preferred_username?: string
  email?: string
  email_verified?: boolean
  picture?: string
  [key: string]: unknown
}

/**
 * Sign in with Ory Hydra (self-hosted) or Ory Network's OAuth2 service.
 *
 * - Env: `AUTH_ORY_HYDRA_ID`, `AUTH_ORY_HYDRA_SECRET`, `AUTH_ORY_HYDRA_ISSUER`.
 * - **Required** `issuer`: Hydra's public URL (`URLS_SELF_ISSUER`), e.g.
 *   `https://auth.example.com`, or `https://<slug>.projects.oryapis.com` on Ory Network.
 *   It must match `issuer` of `/.well-known/openid-configuration` exactly, trailing slash
 *   included.
 * - Register `[origin]/auth/callback/ory-hydra` in the client's `redirect_uris`, with the
 *   `authorization_code` grant and `code` response type.
 * - The profile comes from the ID token: the claims are whatever your consent app granted
 *   (`session.id_token` in the consent acceptance).
 *
 * @example
 * ```ts
 * import OryHydra from "@portcullis/core/providers/ory-hydra"
 * OryHydra({ issuer: "https://auth.example.com" })
 * ```
 */
export default function OryHydra(options: OAuthUserConfig<OryHydraProfile> = {}): OAuthConfig<OryHydraProfile> {
  return {
    id: "ory-hydra",
    name: "Ory Hydra",
    type: "oidc",
    // No default issuer: it is your Hydra or Ory Network project (options or AUTH_ORY_HYDRA_ISSUER).
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.preferred_username ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#0F172A", text: "#fff" },
    options,
  }
}
