/**
 * TikTok sign-in (Login Kit for Web, API v2).
 * @module
 */
import type { TokenSet } from "../base-types.js"
import { processEnv } from "../lib/config/env.js"
import type { OAuthConfig, OAuthConfigInternal, OAuthUserConfig } from "./oauth.js"

/**
 * `GET /v2/user/info/` (https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info/): the
 * user is under `data.user`, with only the `fields` asked for.
 */
export interface TikTokProfile {
  data: {
    user: {
      /** The user's id for this app. */
      open_id: string
      /** The user's id across the developer's apps. */
      union_id?: string
      avatar_url?: string
      avatar_url_100?: string
      avatar_large_url?: string
      display_name?: string
      /** Needs the `user.info.profile` scope. */
      username?: string
      bio_description?: string
      profile_deep_link?: string
      is_verified?: boolean
      /** TikTok does not return an email today; kept for apps that are granted one. */
      email?: string
      [key: string]: unknown
    }
  }
  error?: { code: string; message: string; log_id?: string }
  [key: string]: unknown
}

/** Auth.js's name for the profile type. */
export type TiktokProfile = TikTokProfile

const TOKEN = "https://open.tiktokapis.com/v2/oauth/token/"
const USERINFO = "https://open.tiktokapis.com/v2/user/info/?fields=open_id,avatar_url,display_name,username"


/**
 * Sign in with TikTok.
 *
 * - Env: `AUTH_TIKTOK_ID` (the app's **Client Key**), `AUTH_TIKTOK_SECRET` (Client Secret).
 * - Redirect URI in the Login Kit settings: `[origin]/auth/callback/tiktok`. TikTok wants
 *   https on a reviewed domain (no localhost; use the sandbox to test).
 * - TikTok names the client `client_key`: the authorization URL carries it (pass `clientId` in
 *   code or set `AUTH_TIKTOK_ID` in `process.env`, read when the preset is built) and the code
 *   is exchanged by a form POST to `/v2/oauth/token/` with `client_key`/`client_secret`; the
 *   answer carries the user's `open_id`.
 * - Scope `user.info.profile`; the profile asks for `open_id,avatar_url,display_name,username`.
 * - id = `open_id`. TikTok gives no email.
 *
 * @example
 * ```ts
 * import TikTok from "@portcullis/core/providers/tiktok"
 * TikTok({ clientId: process.env.AUTH_TIKTOK_ID, clientSecret: process.env.AUTH_TIKTOK_SECRET })
 * ```
 */
export default function TikTok(options: OAuthUserConfig<TikTokProfile> = {}): OAuthConfig<TikTokProfile> {
  return {
    id: "tiktok",
    name: "TikTok",
    type: "oauth",
    authorization: {
      url: "https://www.tiktok.com/v2/auth/authorize/",
      params: { client_key: options.clientId ?? processEnv().AUTH_TIKTOK_ID, scope: "user.info.profile" },
    },
    token: {
      url: TOKEN,
      async request(context) {
        const { provider, params, checks } = context
        const body = new URLSearchParams({
          client_key: provider.clientId ?? "",
          client_secret: provider.clientSecret ?? "",
          code: params.get("code") ?? "",
          grant_type: "authorization_code",
          // The redirect_uri the authorization request carried (the proxy's, behind one).
          redirect_uri: context.redirectUri,
        })
        if (checks.code_verifier) body.set("code_verifier", checks.code_verifier)
        const res = await context.fetch(provider.token?.url ?? TOKEN, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded", "Cache-Control": "no-cache" },
          body,
        })
        const tokens = (await res.json()) as TokenSet & { error?: string }
        if (!res.ok || tokens.error) throw new Error(`TikTok /v2/oauth/token/ failed with ${res.status} ${tokens.error ?? ""}`.trim())
        return tokens
      },
    },
    userinfo: {
      url: USERINFO,
      async request({ tokens, provider, fetch }) {
        const res = await fetch(provider.userinfo?.url ?? USERINFO, { headers: { Authorization: `Bearer ${tokens.access_token}` } })
        const profile = (await res.json()) as TikTokProfile
        if (!res.ok || (profile.error && profile.error.code !== "ok")) {
          throw new Error(`TikTok /v2/user/info/ failed with ${res.status} ${profile.error?.code ?? ""}`.trim())
        }
        return profile
      },
    },
    profile({ data: { user } }) {
      return { id: user.open_id, name: user.display_name ?? null, email: user.email ?? null, image: user.avatar_url ?? null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
