/**
 * GitLab sign-in (gitlab.com by default).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /api/v4/user` (https://docs.gitlab.com/api/users/#get-the-current-user). */
export interface GitLabProfile {
  id: number
  username: string
  name: string
  state: string
  avatar_url: string | null
  web_url: string
  /** The primary email; present with the `read_user` scope. */
  email?: string
  public_email?: string | null
  [key: string]: unknown
}

/**
 * Sign in with GitLab.
 *
 * - Env: `AUTH_GITLAB_ID`, `AUTH_GITLAB_SECRET`.
 * - Redirect URI of the application: `[origin]/auth/callback/gitlab`.
 * - Scope `read_user`. For a self-managed instance, override `authorization.url`, `token`
 *   and `userinfo` with your instance's `/oauth/authorize`, `/oauth/token`, `/api/v4/user`.
 *
 * @example
 * ```ts
 * import GitLab from "@portcullis/core/providers/gitlab"
 * Auth(request, { providers: [GitLab()] })
 * ```
 */
export default function GitLab(options: OAuthUserConfig<GitLabProfile> = {}): OAuthConfig<GitLabProfile> {
  return {
    id: "gitlab",
    name: "GitLab",
    type: "oauth",
    authorization: { url: "https://gitlab.com/oauth/authorize", params: { scope: "read_user" } },
    token: "https://gitlab.com/oauth/token",
    userinfo: "https://gitlab.com/api/v4/user",
    profile(profile) {
      return {
        id: String(profile.id),
        name: profile.name || profile.username,
        email: profile.email ?? profile.public_email ?? null,
        image: profile.avatar_url,
      }
    },
    style: { bg: "#FC6D26", text: "#fff" },
    options,
  }
}
