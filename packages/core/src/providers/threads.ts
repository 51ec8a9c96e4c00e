/**
 * Threads (Meta) sign-in through the Threads API.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/**
 * `GET /v1.0/me?fields=id,username,name,threads_profile_picture_url`
 * (https://developers.facebook.com/docs/threads/threads-profiles).
 */
export interface ThreadsProfile {
  /** The Threads user id. */
  id: string
  username: string
  name?: string
  threads_profile_picture_url?: string
  threads_biography?: string
  [key: string]: unknown
}

const ME = "https://graph.threads.net/v1.0/me?fields=id,username,name,threads_profile_picture_url"

/**
 * Sign in with Threads.
 *
 * - Env: `AUTH_THREADS_ID` (Threads App ID), `AUTH_THREADS_SECRET` (Threads App secret).
 * - Valid OAuth redirect URI of the Threads use case: `[origin]/auth/callback/threads`
 *   (Meta requires https).
 * - Scope `threads_basic`; `client_secret_post`; checks `state` (no PKCE on Threads).
 * - The token answer is `{ access_token, user_id }` without `token_type`: the preset adds
 *   `bearer` (`token.conform`). The token is short-lived (1 hour).
 * - Name = `username` (as Auth.js). Threads gives no email.
 *
 * @example
 * ```ts
 * import Threads from "@portcullis/core/providers/threads"
 * Auth(request, { providers: [Threads()] })
 * ```
 */
export default function Threads(options: OAuthUserConfig<ThreadsProfile> = {}): OAuthConfig<ThreadsProfile> {
  return {
    id: "threads",
    name: "Threads",
    type: "oauth",
    authorization: { url: "https://threads.net/oauth/authorize", params: { scope: "threads_basic" } },
    checks: ["state"],
    client: { token_endpoint_auth_method: "client_secret_post" },
    token: {
      url: "https://graph.threads.net/oauth/access_token",
      async conform(response) {
        if (!response.ok) return response
        const body = (await response.json()) as Record<string, unknown>
        if (body.token_type) return undefined
        return Response.json({ ...body, token_type: "bearer" }, { status: response.status })
      },
    },
    userinfo: ME,
    profile(profile) {
      return { id: profile.id, name: profile.username ?? null, email: null, image: profile.threads_profile_picture_url ?? null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
