/**
 * Duende IdentityServer (v6 and later) sign-in, OpenID Connect.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Standard OIDC claims as IdentityServer issues them for the `openid profile email` scopes. */
export interface DuendeISUser {
  sub: string
  name?: string
  given_name?: string
  family_name?: string
  email?: string
  email_verified?: boolean
  picture?: string
  /** Identity provider the user came through (`local` for the server's own accounts). */
  idp?: string
  [key: string]: unknown
}

/**
 * Sign in with a Duende IdentityServer.
 *
 * - Env: `AUTH_DUENDE_IDENTITY_SERVER6_ID`, `AUTH_DUENDE_IDENTITY_SERVER6_SECRET`,
 *   `AUTH_DUENDE_IDENTITY_SERVER6_ISSUER`.
 * - **Required** `issuer`: your IdentityServer's base URL, e.g. `https://demo.duendesoftware.com`.
 * - `RedirectUris` of the client: `[origin]/auth/callback/duende-identity-server6`; the
 *   client needs `AllowedGrantTypes = GrantTypes.Code` and the `openid profile email` scopes.
 *
 * @example
 * ```ts
 * import DuendeIDS6 from "@portcullis/core/providers/duende-identity-server6"
 * DuendeIDS6({ issuer: "https://demo.duendesoftware.com" })
 * ```
 */
export default function DuendeIdentityServer6(options: OAuthUserConfig<DuendeISUser> = {}): OAuthConfig<DuendeISUser> {
  return {
    id: "duende-identity-server6",
    name: "DuendeIdentityServer6",
    type: "oidc",
    // No default issuer: it is your server (options or AUTH_DUENDE_IDENTITY_SERVER6_ISSUER).
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#00416a", text: "#fff" },
    options,
  }
}
