/**
 * Zoho Accounts sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /oauth/user/info` of Zoho Accounts (scope `AaaServer.profile.Read`). */
export interface ZohoProfile {
  /** The Zoho user id. */
  ZUID: number
  First_Name: string
  Last_Name: string
  Display_Name: string
  Email: string
  [key: string]: unknown
}

const INFO = "https://accounts.zoho.com/oauth/user/info"

/**
 * Sign in with Zoho.
 *
 * - Env: `AUTH_ZOHO_ID`, `AUTH_ZOHO_SECRET`.
 * - Authorized redirect URI of the client (api-console.zoho.com): `[origin]/auth/callback/zoho`.
 * - Scope `AaaServer.profile.Read`; `client_secret_post`. Zoho wants the token as
 *   `Authorization: Zoho-oauthtoken <token>`, so the preset reads the profile itself.
 * - The endpoints are on `accounts.zoho.com` (US data center). Accounts in another data center
 *   (`.eu`, `.in`, `.com.au`, `.jp`, `.com.cn`, `.ca`, `.sa`) sign in there: override
 *   `authorization`, `token` and `userinfo` with that domain.
 * - Name = `First_Name Last_Name`, as Auth.js. No picture.
 *
 * @example
 * ```ts
 * import Zoho from "@portcullis/core/providers/zoho"
 * Auth(request, { providers: [Zoho()] })
 * ```
 */
export default function Zoho(options: OAuthUserConfig<ZohoProfile> = {}): OAuthConfig<ZohoProfile> {
  return {
    id: "zoho",
    name: "Zoho",
    type: "oauth",
    authorization: { url: "https://accounts.zoho.com/oauth/v2/auth", params: { scope: "AaaServer.profile.Read" } },
    token: "https://accounts.zoho.com/oauth/v2/token",
    client: { token_endpoint_auth_method: "client_secret_post" },
    userinfo: {
      url: INFO,
      async request({ tokens, provider, fetch }) {
        const res = await fetch(provider.userinfo?.url ?? INFO, { headers: { Authorization: `Zoho-oauthtoken ${tokens.access_token}` } })
        if (!res.ok) throw new Error(`Zoho /oauth/user/info failed with ${res.status}`)
        return (await res.json()) as ZohoProfile
      },
    },
    profile(profile) {
      return {
        id: String(profile.ZUID),
        name: [profile.First_Name, profile.Last_Name].filter(Boolean).join(" ") || profile.Display_Name || null,
        email: profile.Email ?? null,
        image: null,
      }
    },
    style: { bg: "#fff", text: "#000" },
    options,
  }
}
