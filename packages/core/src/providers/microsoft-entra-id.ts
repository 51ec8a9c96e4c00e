/**
 * Microsoft Entra ID (formerly Azure AD) sign-in, v2.0 endpoint, OpenID Connect.
 * @module
 */
import { customFetch } from "../symbols.js"
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
 * - No profile photo unless you set `profilePhotoSize`: then the preset also asks for
 *   `User.Read` and reads the photo from Microsoft Graph into `image` as a `data:` URL
 *   (mind its size if `image` goes into a JWT session cookie).
 *
 * @example
 * ```ts
 * import MicrosoftEntraID from "@portcullis/core/providers/microsoft-entra-id"
 * MicrosoftEntraID({ issuer: `https://login.microsoftonline.com/${process.env.TENANT_ID}/v2.0` })
 * ```
 */
export default function MicrosoftEntraID(
  options: OAuthUserConfig<MicrosoftEntraIDProfile> & {
    /** Side in pixels of the Microsoft Graph profile photo put into `image` (https://learn.microsoft.com/en-us/graph/api/profilephoto-get); unset: no photo. */
    profilePhotoSize?: 48 | 64 | 96 | 120 | 240 | 360 | 432 | 504 | 648
  } = {},
): OAuthConfig<MicrosoftEntraIDProfile> {
  const { profilePhotoSize, ...rest } = options
  return {
    id: "microsoft-entra-id",
    name: "Microsoft Entra ID",
    type: "oidc",
    issuer: DEFAULT_ENTRA_ISSUER,
    ...(profilePhotoSize !== undefined && { authorization: { params: { scope: "openid profile email User.Read" } } }),
    async profile(profile, tokens) {
      const image = profilePhotoSize === undefined ? null : await graphPhoto(profilePhotoSize, tokens.access_token, rest)
      // Not preferred_username: it is a UPN the tenant can change and need not be deliverable.
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image }
    },
    style: { bg: "#0072c6", text: "#fff" },
    options: "profilePhotoSize" in options ? rest : options,
  }
}

/**
 * The signed-in user's photo at `size`×`size` from Microsoft Graph as a `data:` URL, or null
 * when the account has none (404) or Graph does not answer with an image in time.
 */
async function graphPhoto(size: number, accessToken: unknown, options: OAuthUserConfig<MicrosoftEntraIDProfile>): Promise<string | null> {
  if (typeof accessToken !== "string") return null
  const fetchImpl = options[customFetch] ?? fetch
  try {
    const res = await fetchImpl(`https://graph.microsoft.com/v1.0/me/photos/${size}x${size}/$value`, {
      headers: { Authorization: `Bearer ${accessToken}` },
      signal: AbortSignal.timeout(options.timeout ?? 10_000),
    })
    const type = res.headers.get("content-type")?.split(";")[0]?.trim() || "image/jpeg"
    if (!res.ok || !type.startsWith("image/")) return null
    const bytes = new Uint8Array(await res.arrayBuffer())
    let binary = ""
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
    return `data:${type};base64,${btoa(binary)}`
  } catch {
    return null
  }
}
