/**
 * Frontegg hosted login (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Frontegg ID token claims (https://developers.frontegg.com/guides/authentication/tokens). */
export interface FronteggProfile {
  /** The Frontegg user id (a UUID). */
  sub: string
  name?: string
  email?: string
  email_verified?: boolean
  /** Frontegg's picture claim. */
  profilePictureUrl?: string | null
  picture?: string
  /** The active tenant, and all of the user's tenants. */
  tenantId?: string
  tenantIds?: string[]
  roles?: string[]
  permissions?: string[]
  [key: string]: unknown
}

/** The issuer from the options, else from `AUTH_FRONTEGG_ISSUER`, without a trailing slash. */
function issuerOf(options: OAuthUserConfig<FronteggProfile>): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  return (options.issuer ?? env?.AUTH_FRONTEGG_ISSUER)?.replace(/\/+$/, "")
}

/**
 * Sign in with Frontegg's hosted login box.
 *
 * - Env: `AUTH_FRONTEGG_ID`, `AUTH_FRONTEGG_SECRET`, `AUTH_FRONTEGG_ISSUER`.
 * - **Required** `issuer`: your Frontegg domain, `https://<subdomain>.frontegg.com` (or your
 *   custom login domain). Frontegg publishes its discovery document under `/oauth`, so the
 *   preset sets `wellKnown` to `<issuer>/oauth/.well-known/openid-configuration`.
 * - Enable hosted login (Authentication → Login method) and add
 *   `[origin]/auth/callback/frontegg` to the allowed redirect URLs.
 * - The client id and secret are the environment's Client ID and API key.
 *
 * @example
 * ```ts
 * import Frontegg from "@portcullis/core/providers/frontegg"
 * Frontegg({ issuer: "https://app-example.frontegg.com" })
 * ```
 */
export default function Frontegg(options: OAuthUserConfig<FronteggProfile> = {}): OAuthConfig<FronteggProfile> {
  const issuer = issuerOf(options)
  return {
    id: "frontegg",
    name: "Frontegg",
    type: "oidc",
    ...(issuer && { issuer, wellKnown: `${issuer}/oauth/.well-known/openid-configuration` }),
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: profile.profilePictureUrl ?? profile.picture ?? null }
    },
    style: { bg: "#4461F2", text: "#fff" },
    options,
  }
}
