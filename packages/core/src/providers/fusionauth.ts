/**
 * FusionAuth (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/**
 * FusionAuth ID token claims (https://fusionauth.io/docs/lifecycle/authenticate-users/oauth/tokens#id-token).
 * A JWT populate lambda can add more.
 */
export interface FusionAuthProfile {
  /** The FusionAuth user id (a UUID). */
  sub: string
  iss: string
  aud: string
  exp: number
  iat: number
  jti?: string
  authenticationType?: string
  email?: string
  email_verified?: boolean
  preferred_username?: string
  name?: string
  given_name?: string
  middle_name?: string
  family_name?: string
  picture?: string
  at_hash?: string
  c_hash?: string
  scope?: string
  sid?: string
  [key: string]: unknown
}

/** FusionAuth options: the tenant, when the server has more than one. */
export type FusionAuthUserConfig = OAuthUserConfig<FusionAuthProfile> & {
  /** The tenant id; only needed on a multi-tenant server (it picks the tenant's theme and keys). */
  tenantId?: string
}

/**
 * Sign in with FusionAuth.
 *
 * - Env: `AUTH_FUSIONAUTH_ID`, `AUTH_FUSIONAUTH_SECRET`, `AUTH_FUSIONAUTH_ISSUER` (and pass
 *   `tenantId: process.env.AUTH_FUSIONAUTH_TENANT_ID` yourself if you use tenants).
 * - **Required** `issuer`: the server's URL, e.g. `https://auth.example.com`. The tenant's
 *   "Issuer" setting (Tenants → General) must be exactly that URL: FusionAuth's default is
 *   `acme.com`, which the discovery check refuses.
 * - Application → OAuth: Authorized redirect URL `[origin]/auth/callback/fusionauth`, with
 *   the Authorization Code and Refresh Token grants.
 * - FusionAuth signs ID tokens with HMAC (HS256) by default, which Portcullis refuses. Create an
 *   RSA or EC key in Key Master and pick it as the application's "Id Token signing key"
 *   (JWT tab).
 * - Scope `openid offline_access email profile`; with `tenantId`, discovery
 *   (`<issuer>/.well-known/openid-configuration?tenantId=…`) and the authorization URL carry
 *   `tenantId=`.
 *
 * @example
 * ```ts
 * import FusionAuth from "@portcullis/core/providers/fusionauth"
 * FusionAuth({ issuer: "https://auth.example.com", tenantId: process.env.AUTH_FUSIONAUTH_TENANT_ID })
 * ```
 */
export default function FusionAuth(options: FusionAuthUserConfig = {}): OAuthConfig<FusionAuthProfile> {
  const { tenantId } = options
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  const issuer = (options.issuer ?? env?.AUTH_FUSIONAUTH_ISSUER)?.replace(/\/+$/, "")
  return {
    id: "fusionauth",
    name: "FusionAuth",
    type: "oidc",
    // No default issuer: it is your server (options or AUTH_FUSIONAUTH_ISSUER).
    ...(tenantId && issuer && { wellKnown: `${issuer}/.well-known/openid-configuration?tenantId=${encodeURIComponent(tenantId)}` }),
    authorization: { params: { scope: "openid offline_access email profile", ...(tenantId && { tenantId }) } },
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.preferred_username ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#000", text: "#fff" },
    // `tenantId` stays in the options untouched; the core ignores keys it does not know.
    options,
  }
}
