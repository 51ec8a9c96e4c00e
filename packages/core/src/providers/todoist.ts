/**
 * Todoist sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /api/v1/user` (https://developer.todoist.com/api/v1/#tag/User): the signed-in user. */
export interface TodoistProfile {
  id: string
  email: string
  full_name: string
  /** Avatar URLs; absent when the user has none. */
  avatar_big?: string
  avatar_medium?: string
  avatar_s640?: string
  avatar_small?: string
  lang?: string
  tz_info?: { timezone: string; [key: string]: unknown }
  is_premium?: boolean
  [key: string]: unknown
}

/**
 * Sign in with Todoist.
 *
 * - Env: `AUTH_TODOIST_ID`, `AUTH_TODOIST_SECRET`.
 * - OAuth redirect URL of the app (App Management Console): `[origin]/auth/callback/todoist`.
 * - Scope `data:read`; `client_secret_post`.
 * - The profile comes from the unified API v1 (`/api/v1/user`). Auth.js reads the user from
 *   the Sync API v9, which Todoist has deprecated in favour of API v1 (its REST API v2 sibling
 *   already answers `410 Gone`). The mapped fields (`id`, `full_name`, `email`, `avatar_big`)
 *   keep their names, but API v1 uses a new id format: accounts Auth.js linked with a Sync v9
 *   id may not match the v1 `id`, so compare a few before migrating stored accounts.
 *
 * @example
 * ```ts
 * import Todoist from "@portcullis/core/providers/todoist"
 * Auth(request, { providers: [Todoist()] })
 * ```
 */
export default function Todoist(options: OAuthUserConfig<TodoistProfile> = {}): OAuthConfig<TodoistProfile> {
  return {
    id: "todoist",
    name: "Todoist",
    type: "oauth",
    authorization: { url: "https://todoist.com/oauth/authorize", params: { scope: "data:read" } },
    token: "https://todoist.com/oauth/access_token",
    client: { token_endpoint_auth_method: "client_secret_post" },
    userinfo: "https://api.todoist.com/api/v1/user",
    profile(profile) {
      return { id: String(profile.id), name: profile.full_name ?? null, email: profile.email ?? null, image: profile.avatar_big ?? null }
    },
    style: { bg: "#E44332", text: "#fff" },
    options,
  }
}
