/**
 * Microsoft Entra ID (formerly Azure AD) sign-in, v2.0 endpoint, OpenID Connect.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Entra ID v2.0 ID token claims (https://learn.microsoft.com/en-us/entra/identity-platform/id-token-claims-reference). */
export interface MicrosoftEntraIDProfile {
  /** Pairwise per application: stable for this user in this app. */
  sub: string
  /** Object id: the user across apps within the tenant. */
  oid: string
  /** Tenant id of the user. */
  tid: string
  name?: string
  /** Usually the UPN; mutable and not necessarily an address. */
  preferred_username?: string
  /** Present with the `email` scope when the account has one. */
  email?: string
  given_name?: string
  family_name?: string
  ver: "2.0"
  iss: string
  aud: string
  [key: string]: unknown
}

/** The default issuer: any work/school or personal Microsoft account. */
export const DEFAULT_ENTRA_ISSUER = "https://login.microsoftonline.com/common/v2.0"

/**
 * Sign in with Microsoft Entra ID.
 *
 * - Env: `AUTH_MICROSOFT_ENTRA_ID_ID`, `AUTH_MICROSOFT_ENTRA_ID_SECRET`,
 *   `AUTH_MICROSOFT_ENTRA_ID_ISSUER`.
 * - Redirect URI (Web platform): `[origin]/auth/callback/microsoft-entra-id`.
 * - `issuer` picks who may sign in: `https://login.microsoftonline.com/<tenant-id>/v2.0` for
 *   one tenant, or `…/organizations/v2.0`, `…/consumers/v2.0`, and the default
 *   `https://login.microsoftonline.com/common/v2.0`. The multi-tenant ones publish the
 *   template issuer `…/{tenantid}/v2.0`, and each ID token carries the user's tenant.
 * - No profile photo: that needs a Microsoft Graph call; add one in your own `profile`.
 *
 * @example
 * ```ts
 * import MicrosoftEntraID from "@portcullis/core/providers/microsoft-entra-id"
 * MicrosoftEntraID({ issuer: `https://login.microsoftonline.com/${process.env.TENANT_ID}/v2.0` })
 * ```
 */
export default function MicrosoftEntraID(
  options: OAuthUserConfig<MicrosoftEntraIDProfile> = {},
): OAuthConfig<MicrosoftEntraIDProfile> {
  return {
    id: "microsoft-entra-id",
    name: "Microsoft Entra ID",
    type: "oidc",
    issuer: DEFAULT_ENTRA_ISSUER,
    profile(profile) {
      // Not preferred_username: it is a UPN the tenant can change and need not be deliverable.
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: null }
    },
    style: { bg: "#0072c6", text: "#fff" },
    options,
  }
}
