/**
 * Azure AD B2C sign-in through a user flow or custom policy, OpenID Connect.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** ID token claims of a B2C user flow (https://learn.microsoft.com/en-us/azure/active-directory-b2c/tokens-overview#claims). */
export interface AzureADB2CProfile {
  /** The user's object id, unless the policy maps `sub` to something else. */
  sub: string
  oid?: string
  name?: string
  given_name?: string
  family_name?: string
  /** "Email Addresses" return claim: B2C sends an array. */
  emails?: string[]
  /** The user flow (policy) that issued the token. */
  tfp?: string
  idp?: string
  iss: string
  aud: string
  exp: number
  iat: number
  auth_time?: number
  [key: string]: unknown
}

/**
 * Sign in with Azure AD B2C.
 *
 * - Env: `AUTH_AZURE_AD_B2C_ID`, `AUTH_AZURE_AD_B2C_SECRET`, `AUTH_AZURE_AD_B2C_ISSUER`.
 * - **Required** `issuer`: the `issuer` of your user flow's metadata document
 *   (`https://<tenant>.b2clogin.com/<tenant>.onmicrosoft.com/<policy>/v2.0/.well-known/openid-configuration`),
 *   which is `https://<tenant>.b2clogin.com/<tenant-id>/v2.0/`. Its discovery document is
 *   not at `<issuer>/.well-known/...` but under the policy, so pass that URL as `wellKnown`.
 * - Redirect URI (Web) of the app registration: `[origin]/auth/callback/azure-ad-b2c`.
 * - In the user flow, return the "Email Addresses" and "Display Name" claims: the email is
 *   the first entry of `emails`. B2C gives no picture.
 * - Microsoft stopped selling Azure AD B2C to new customers on 1 May 2025; its successor is
 *   Microsoft Entra External ID (use the `microsoft-entra-id` preset with its issuer).
 *
 * @example
 * ```ts
 * import AzureADB2C from "@portcullis/core/providers/azure-ad-b2c"
 * AzureADB2C({
 *   issuer: "https://contoso.b2clogin.com/7e4c5f4a-0000-4000-8000-000000000000/v2.0/",
 *   wellKnown: "https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_signupsignin/v2.0/.well-known/openid-configuration",
 * })
 * ```
 */
export default function AzureADB2C(options: OAuthUserConfig<AzureADB2CProfile> = {}): OAuthConfig<AzureADB2CProfile> {
  return {
    id: "azure-ad-b2c",
    name: "Azure Active Directory B2C",
    type: "oidc",
    // No default issuer: it names your tenant (options or AUTH_AZURE_AD_B2C_ISSUER).
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? null, email: profile.emails?.[0] ?? null, image: null }
    },
    style: { bg: "#0072c6", text: "#fff" },
    options,
  }
}
