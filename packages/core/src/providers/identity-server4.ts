/**
 * IdentityServer4 (OpenID Connect). Discontinued upstream: see Duende IdentityServer.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** IdentityServer4 ID token claims with the `openid profile email` identity resources. */
export interface IdentityServer4Profile {
  /** The subject id of the user in the server's user store. */
  sub: string
  name?: string
  preferred_username?: string
  given_name?: string
  family_name?: string
  email?: string
  email_verified?: boolean
  picture?: string
  idp?: string
  amr?: string[]
  [key: string]: unknown
}

/**
 * Sign in with an IdentityServer4 server.
 *
 * - Env: `AUTH_IDENTITY_SERVER4_ID`, `AUTH_IDENTITY_SERVER4_SECRET`,
 *   `AUTH_IDENTITY_SERVER4_ISSUER`.
 * - **Required** `issuer`: the server's base URL exactly as its discovery document names it
 *   (`https://demo.identityserver.io`, no trailing slash).
 * - Add `[origin]/auth/callback/identity-server4` to the client's `RedirectUris`; the client
 *   needs the `authorization_code` grant and the `openid profile email` scopes. Its
 *   `RequirePkce` may stay on: PKCE is sent.
 *
 * @deprecated IdentityServer4 reached end of life in December 2022 and gets no more security
 * fixes. Its successor is Duende IdentityServer (the `duende-identity-server6` preset); the
 * protocol is the same, so an existing IdentityServer4 keeps working with this preset.
 *
 * @example
 * ```ts
 * import IdentityServer4 from "@portcullis/core/providers/identity-server4"
 * IdentityServer4({ issuer: "https://id.example.com" })
 * ```
 */
export default function IdentityServer4(options: OAuthUserConfig<IdentityServer4Profile> = {}): OAuthConfig<IdentityServer4Profile> {
  return {
    id: "identity-server4",
    name: "IdentityServer4",
    type: "oidc",
    // No default issuer: it is your own server (options or AUTH_IDENTITY_SERVER4_ISSUER).
    authorization: { params: { scope: "openid profile email" } },
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.preferred_username ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#1a75bb", text: "#fff" },
    options,
  }
}
