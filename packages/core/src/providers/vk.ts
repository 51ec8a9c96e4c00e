/**
 * VK (VKontakte) sign-in through the classic `oauth.vk.com` authorization code flow.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** A user object of `users.get` (https://dev.vk.com/en/reference/objects/user), plus the email of the token answer. */
export interface VkProfile {
  id: number
  first_name: string
  last_name: string
  /** Asked for with `fields=photo_100`. */
  photo_100?: string
  screen_name?: string
  can_access_closed?: boolean
  is_closed?: boolean
  deactivated?: string
  /** Not part of `users.get`: VK returns it once, in the token response (scope `email`). */
  email?: string | null
  [key: string]: unknown
}

/** The VK API version the preset speaks (https://dev.vk.com/en/reference/versions). */
export const VK_API_VERSION = "5.131"

const USERINFO = `https://api.vk.com/method/users.get?fields=photo_100&v=${VK_API_VERSION}`

/**
 * Sign in with VK.
 *
 * - Env: `AUTH_VK_ID` (the app ID), `AUTH_VK_SECRET` (the secure key).
 * - Authorized redirect URI of the app: `[origin]/auth/callback/vk`.
 * - Every URL names the API version (`v=5.131`); to use another one, override
 *   `authorization`, `token.url` and `userinfo.url` with your `v`.
 * - VK's token answer has no `token_type` (the preset adds `bearer`) and carries the user's
 *   `email` (scope `email`) and `user_id`; `users.get` never returns the email, so the
 *   preset copies it from the token answer into the profile. API answers are wrapped in
 *   `{ response: [user] }`, errors in `{ error }` with status 200.
 * - `client_secret_post`. Checks: `state` (the classic flow has no PKCE).
 * - VK is moving apps to VK ID (`id.vk.com`, OAuth 2.1 with PKCE); this preset is the classic
 *   flow Auth.js uses.
 *
 * @example
 * ```ts
 * import VK from "@portcullis/core/providers/vk"
 * Auth(request, { providers: [VK()] })
 * ```
 */
export default function VK(options: OAuthUserConfig<VkProfile> = {}): OAuthConfig<VkProfile> {
  return {
    id: "vk",
    name: "VK",
    type: "oauth",
    authorization: `https://oauth.vk.com/authorize?scope=email&v=${VK_API_VERSION}`,
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    token: {
      url: `https://oauth.vk.com/access_token?v=${VK_API_VERSION}`,
      async conform(response) {
        if (!response.ok) return response
        const body = (await response.json()) as Record<string, unknown>
        if (body.token_type) return undefined
        return Response.json({ ...body, token_type: "bearer" }, { status: response.status })
      },
    },
    userinfo: {
      url: USERINFO,
      async request({ tokens, provider, fetch }) {
        const res = await fetch(provider.userinfo?.url ?? USERINFO, { headers: { Authorization: `Bearer ${tokens.access_token}` } })
        if (!res.ok) throw new Error(`VK users.get failed with ${res.status}`)
        const body = (await res.json()) as { response?: VkProfile[]; error?: { error_code: number } }
        const user = body.response?.[0]
        if (!user) throw new Error(`VK users.get: ${body.error ? `error ${body.error.error_code}` : "no user"}`)
        return { ...user, email: typeof tokens.email === "string" ? tokens.email : null }
      },
    },
    profile(profile) {
      return {
        id: String(profile.id),
        name: [profile.first_name, profile.last_name].filter(Boolean).join(" ") || null,
        email: profile.email ?? null,
        image: profile.photo_100 ?? null,
      }
    },
    style: { bg: "#07F", text: "#fff" },
    options,
  }
}
