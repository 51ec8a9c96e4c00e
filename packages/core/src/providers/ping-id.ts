/**
 * Ping Identity (PingOne) OpenID Connect sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** PingOne ID token claims with the `openid profile email` scopes (https://apidocs.pingidentity.com/pingone/platform/v1/api/#openid-connectoauth-2). */
export interface PingProfile {
  iss: string
  /** The PingOne user id (a UUID). */
  sub: string
  aud: string
  iat: number
  exp: number
  sid?: string
  preferred_username?: string
  name?: string
  given_name?: string
  family_name?: string
  email?: string
  picture?: string
  /** The PingOne environment id. */
  env?: string
  org?: string
  "p1.region"?: string
  [key: string]: unknown
}

/**
 * Sign in with Ping Identity (PingOne).
 *
 * - Env: `AUTH_PING_ID_ID`, `AUTH_PING_ID_SECRET`, `AUTH_PING_ID_ISSUER`.
 * - **Required** `issuer`: `https://auth.pingone.<region>/<environment-id>/as` (e.g.
 *   `https://auth.pingone.com/…/as`, `.eu`, `.ca`, `.asia`); copy it from the application's
 *   configuration, it must match the discovery document exactly.
 * - Redirect URI of the OIDC Web App: `[origin]/auth/callback/ping-id`.
 *
 * @example
 * ```ts
 * import PingId from "@portcullis/core/providers/ping-id"
 * PingId({ issuer: "https://auth.pingone.com/9a4b…/as" })
 * ```
 */
export default function PingId(options: OAuthUserConfig<PingProfile> = {}): OAuthConfig<PingProfile> {
  return {
    id: "ping-id",
    name: "Ping Identity",
    type: "oidc",
    // No default issuer: it names your PingOne environment (options or AUTH_PING_ID_ISSUER).
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.preferred_username ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#b3282d", text: "#fff" },
    options,
  }
}
