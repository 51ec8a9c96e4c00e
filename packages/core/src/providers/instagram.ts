/**
 * Instagram sign-in through the Instagram Basic Display API (OAuth 2).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET https://graph.instagram.com/me?fields=id,username,account_type,name` (an Instagram User). */
export interface InstagramProfile {
  /** The app-scoped Instagram user id. */
  id: string
  username: string
  account_type?: "BUSINESS" | "MEDIA_CREATOR" | "PERSONAL"
  name?: string
  media_count?: number
  [key: string]: unknown
}

/**
 * Adds the `token_type` Instagram leaves out of its token response
 * (`{ "access_token": "…", "user_id": 17841… }`), without which the response is not a valid
 * RFC 6749 answer. Other responses (errors included) pass through.
 */
async function withTokenType(response: Response): Promise<Response | undefined> {
  if (!response.ok) return undefined
  const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined
  if (!body || typeof body !== "object" || typeof body.access_token !== "string" || body.token_type) return undefined
  return Response.json({ ...body, token_type: "bearer" }, { status: response.status })
}

/**
 * Sign in with Instagram.
 *
 * - Env: `AUTH_INSTAGRAM_ID`, `AUTH_INSTAGRAM_SECRET` (the Instagram app id and secret).
 * - Valid OAuth Redirect URI: `[origin]/auth/callback/instagram`. Instagram only accepts
 *   `https` redirect URIs.
 * - Scope `user_profile`. Instagram never discloses the email address: `email` is null, and
 *   the name is the username.
 * - The token endpoint wants the client secret in the body (`client_secret_post`), and its
 *   answer has no `token_type`: the preset adds `bearer`.
 *
 * @deprecated Meta shut the Instagram Basic Display API down on 2024-12-04; apps created
 * since cannot use it. Its successor is the "Instagram API with Instagram login" (business
 * and creator accounts only, scope `instagram_business_basic`). Configure it by overriding
 * `authorization` (`https://www.instagram.com/oauth/authorize`) and the scope; the user ids it
 * returns differ, so existing accounts do not carry over.
 *
 * @example
 * ```ts
 * import Instagram from "@portcullis/core/providers/instagram"
 * Auth(request, { providers: [Instagram()] })
 * ```
 */
export default function Instagram(options: OAuthUserConfig<InstagramProfile> = {}): OAuthConfig<InstagramProfile> {
  return {
    id: "instagram",
    name: "Instagram",
    type: "oauth",
    authorization: { url: "https://api.instagram.com/oauth/authorize", params: { scope: "user_profile" } },
    token: { url: "https://api.instagram.com/oauth/access_token", conform: withTokenType },
    userinfo: "https://graph.instagram.com/me?fields=id,username,account_type,name",
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return { id: profile.id, name: profile.username ?? null, email: null, image: null }
    },
    style: { bg: "#E1306C", text: "#fff" },
    options,
  }
}
