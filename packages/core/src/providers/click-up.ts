/**
 * ClickUp sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /api/v2/user` (https://developer.clickup.com/reference/getauthorizeduser): the user is under `user`. */
export interface ClickUpProfile {
  user: {
    id: number
    username: string
    email: string
    /** Hex colour of the user's avatar, e.g. `#7b68ee`. */
    color: string | null
    profilePicture: string | null
    initials?: string
    week_start_day?: number | null
    global_font_support?: boolean
    timezone?: string
    [key: string]: unknown
  }
  [key: string]: unknown
}

const USER = "https://api.clickup.com/api/v2/user"

/**
 * Sign in with ClickUp.
 *
 * - Env: `AUTH_CLICK_UP_ID`, `AUTH_CLICK_UP_SECRET` (the app's client ID and secret).
 * - Redirect URL of the app (Settings → Integrations → ClickUp API): `[origin]/auth/callback/click-up`.
 * - ClickUp's OAuth is minimal: no scopes, no PKCE, so the checks are `state` only (as Auth.js).
 *   The token endpoint takes `client_id`/`client_secret` as parameters (`client_secret_post`).
 * - ClickUp documents the token in the `Authorization` header *as is*, without `Bearer`,
 *   so the profile is read with a custom request.
 *
 * @example
 * ```ts
 * import ClickUp from "@portcullis/core/providers/click-up"
 * Auth(request, { providers: [ClickUp()] })
 * ```
 */
export default function ClickUp(options: OAuthUserConfig<ClickUpProfile> = {}): OAuthConfig<ClickUpProfile> {
  return {
    id: "click-up",
    name: "ClickUp",
    type: "oauth",
    authorization: "https://app.clickup.com/api",
    token: "https://api.clickup.com/api/v2/oauth/token",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    userinfo: {
      url: USER,
      async request({ tokens, provider, fetch }) {
        const res = await fetch(provider.userinfo?.url?.href ?? USER, { headers: { Authorization: String(tokens.access_token), Accept: "application/json" } })
        if (!res.ok) throw new Error(`ClickUp GET /api/v2/user failed with ${res.status}`)
        return (await res.json()) as ClickUpProfile
      },
    },
    profile({ user }) {
      return { id: String(user.id), name: user.username, email: user.email ?? null, image: user.profilePicture ?? null }
    },
    style: { bg: "#7b68ee", text: "#fff" },
    options,
  }
}
