/**
 * Sign in with Coinbase (Coinbase App OAuth2).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /v2/user` (https://docs.cdp.coinbase.com/coinbase-app/docs/api-users): the user is under `data`. */
export interface CoinbaseProfile {
  data: {
    id: string
    name: string | null
    username: string | null
    profile_location: string | null
    profile_bio: string | null
    profile_url: string | null
    avatar_url: string
    resource: "user"
    resource_path: string
    /** Only with the `wallet:user:email` scope. */
    email?: string
    [key: string]: unknown
  }
  [key: string]: unknown
}

/**
 * Sign in with Coinbase.
 *
 * - Env: `AUTH_COINBASE_ID`, `AUTH_COINBASE_SECRET`.
 * - Redirect URI of the OAuth2 client (Coinbase Developer Platform): `[origin]/auth/callback/coinbase`.
 * - Scope `wallet:user:email wallet:user:read`; the profile is `data` of `/v2/user`.
 *
 * @example
 * ```ts
 * import Coinbase from "@portcullis/core/providers/coinbase"
 * Auth(request, { providers: [Coinbase()] })
 * ```
 */
export default function Coinbase(options: OAuthUserConfig<CoinbaseProfile> = {}): OAuthConfig<CoinbaseProfile> {
  return {
    id: "coinbase",
    name: "Coinbase",
    type: "oauth",
    authorization: { url: "https://login.coinbase.com/oauth2/auth", params: { scope: "wallet:user:email wallet:user:read" } },
    token: "https://login.coinbase.com/oauth2/token",
    userinfo: "https://api.coinbase.com/v2/user",
    profile({ data }) {
      return { id: data.id, name: data.name ?? null, email: data.email ?? null, image: data.avatar_url ?? null }
    },
    style: { bg: "#0052ff", text: "#fff" },
    options,
  }
}
