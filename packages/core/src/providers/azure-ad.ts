/**
 * Azure Active Directory sign-in: Microsoft Entra ID under its old name, kept for apps
 * migrating from Auth.js's `azure-ad` provider.
 * @module
 */
import { decodeJwt } from "jose"
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"
import type { MicrosoftEntraIDProfile } from "./microsoft-entra-id.js"

/** The ID token claims (v2.0), as for Microsoft Entra ID. */
export type AzureADProfile = MicrosoftEntraIDProfile

/** Sizes Microsoft Graph keeps profile photos in. */
export type AzureADPhotoSize = 48 | 64 | 96 | 120 | 240 | 360 | 432 | 504 | 648

/** Azure AD options: the photo size (Auth.js), and `tenantId` (next-auth v4) as a shorthand for the issuer. */
export type AzureADUserConfig = OAuthUserConfig<AzureADProfile> & {
  /** Size of the Graph profile photo put in `image`. Default 48. */
  profilePhotoSize?: AzureADPhotoSize
  /** Builds `issuer` as `https://login.microsoftonline.com/<tenantId>/v2.0` when `issuer` is not given. */
  tenantId?: string
}

const GRAPH = "https://graph.microsoft.com/v1.0/me/photos"

/**
 * Sign in with Azure Active Directory (Microsoft Entra ID).
 *
 * @deprecated Azure AD was renamed Microsoft Entra ID, and Auth.js deprecated this provider
 * in favour of `microsoft-entra-id`. Existing accounts keep working: the id stays the `sub`
 * of the v2.0 ID token, so to move, rename the provider id of the linked accounts from
 * `azure-ad` to `microsoft-entra-id` (and the redirect URI) and import
 * `@portcullis/core/providers/microsoft-entra-id`.
 *
 * - Env: `AUTH_AZURE_AD_ID`, `AUTH_AZURE_AD_SECRET`, `AUTH_AZURE_AD_ISSUER`.
 * - Redirect URI (Web platform): `[origin]/auth/callback/azure-ad`.
 * - `issuer` as for Entra ID: `https://login.microsoftonline.com/<tenant-id>/v2.0` for one
 *   tenant, the default `…/common/v2.0` for any account; or pass `tenantId`.
 * - Scope `openid profile email User.Read`. As Auth.js does, `image` is the user's Microsoft
 *   Graph photo (`profilePhotoSize`, default 48) as a `data:image/jpeg;base64,…` URL, or null
 *   when the user has none. The photo is fetched through the provider's fetch after the ID
 *   token has been verified; its claims remain the profile.
 *
 * @example
 * ```ts
 * import AzureAD from "@portcullis/core/providers/azure-ad"
 * AzureAD({ tenantId: process.env.AZURE_AD_TENANT_ID, profilePhotoSize: 96 })
 * ```
 */
export default function AzureAD(options: AzureADUserConfig = {}): OAuthConfig<AzureADProfile> {
  const size = options.profilePhotoSize ?? 48
  const tenant = options.tenantId ?? "common"
  return {
    id: "azure-ad",
    name: "Azure Active Directory",
    type: "oidc",
    issuer: `https://login.microsoftonline.com/${tenant}/v2.0`,
    authorization: { params: { scope: "openid profile email User.Read" } },
    // The profile is the verified ID token's claims plus the photo: read in userinfo.request
    // (the core checks that its `sub` is the ID token's).
    idToken: false,
    userinfo: {
      url: `${GRAPH}/${size}x${size}/$value`,
      async request({ tokens, fetch }) {
        if (typeof tokens.id_token !== "string") throw new Error("Azure AD: the token response has no id_token")
        const claims = decodeJwt(tokens.id_token) as AzureADProfile
        return { ...claims, image: await photo(fetch, `${GRAPH}/${size}x${size}/$value`, String(tokens.access_token)) }
      },
    },
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: (profile.image as string | null | undefined) ?? null }
    },
    style: { bg: "#0072c6", text: "#fff" },
    options,
  }
}

/** The Graph photo as a data URL; null when there is none (404) or it cannot be read. */
async function photo(fetch: typeof globalThis.fetch, url: string, accessToken: string): Promise<string | null> {
  try {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${accessToken}` } })
    if (!res.ok) return null
    const bytes = new Uint8Array(await res.arrayBuffer())
    let binary = ""
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
    return `data:image/jpeg;base64,${btoa(binary)}`
  } catch {
    // A missing photo must not fail the sign-in.
    return null
  }
}
