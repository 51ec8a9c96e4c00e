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
 * - Scope `read_user`. For a self-managed instance, set `baseUrl` (e.g.
 *   `https://gitlab.example.com`): the endpoints become its `/oauth/authorize`,
 *   `/oauth/token` and `/api/v4/user`. Explicit `authorization`, `token` or `userinfo`
 *   options still win, and `authorization` may be a whole URL string.
 *
 * @example
 * ```ts
 * import GitLab from "@portcullis/core/providers/gitlab"
 * Auth(request, { providers: [GitLab(), GitLab({ id: "gitlab-corp", baseUrl: "https://gitlab.corp.example" })] })
 * ```
 */
export default function GitLab(options: OAuthUserConfig<GitLabProfile> & { baseUrl?: string } = {}): OAuthConfig<GitLabProfile> {
  const { baseUrl = "https://gitlab.com", ...rest } = options
  const base = baseUrl.replace(/\/+$/, "")
  return {
    id: "gitlab",
    name: "GitLab",
    type: "oauth",
    authorization: { url: `${base}/oauth/authorize`, params: { scope: "read_user" } },
    token: `${base}/oauth/token`,
    userinfo: `${base}/api/v4/user`,
    profile(profile) {
      return {
        id: String(profile.id),
        name: profile.name || profile.username,
        email: profile.email ?? profile.public_email ?? null,
        image: profile.avatar_url,
      }
    },
    style: { bg: "#FC6D26", text: "#fff" },
    // The factory's own options are not provider fields; the rest is the user's, untouched.
    options: "baseUrl" in options ? rest : options,
  }
}
