/**
 * Beyond Identity (passwordless, device-bound credentials) sign-in, OpenID Connect.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Beyond Identity ID token claims (https://developer.beyondidentity.com). */
export interface BeyondIdentityProfile {
  /** The user's id in the realm. */
  sub: string
  /** Display name. */
  name?: string
  preferred_username?: string
  email?: string
  [key: string]: unknown
}

/**
 * Sign in with Beyond Identity.
 *
 * - Env: `AUTH_BEYONDIDENTITY_ID`, `AUTH_BEYONDIDENTITY_SECRET`, `AUTH_BEYONDIDENTITY_ISSUER`.
 * - **Required** `issuer`: the application's issuer,
 *   `https://auth-<region>.beyondidentity.com/v1/tenants/<tenant>/realms/<realm>/applications/<application>`.
 * - Redirect URI of the application: `[origin]/auth/callback/beyondidentity`.
 * - Beyond Identity users have no picture.
 *
 * @example
 * ```ts
 * import BeyondIdentity from "@portcullis/core/providers/beyondidentity"
 * BeyondIdentity({ issuer: process.env.AUTH_BEYONDIDENTITY_ISSUER })
 * ```
 */
export default function BeyondIdentity(options: OAuthUserConfig<BeyondIdentityProfile> = {}): OAuthConfig<BeyondIdentityProfile> {
  return {
    id: "beyondidentity",
    name: "Beyond Identity",
    type: "oidc",
    // No default issuer: it names your tenant, realm and application.
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: null }
    },
    style: { bg: "#5077c5", text: "#fff" },
    options,
  }
}
