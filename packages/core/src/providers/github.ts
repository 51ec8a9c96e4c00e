/**
 * GitHub OAuth App (or GitHub App user authorization) sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /user` (https://docs.github.com/en/rest/users/users#get-the-authenticated-user). */
export interface GitHubProfile {
  id: number
  login: string
  node_id: string
  name: string | null
  /** The public email only; the preset fills it from `/user/emails` when it is null. */
  email: string | null
  avatar_url: string
  html_url: string
  type: string
  [key: string]: unknown
}

/** One entry of `GET /user/emails` (https://docs.github.com/en/rest/users/emails). */
export interface GitHubEmail {
  email: string
  primary: boolean
  verified: boolean
  visibility: "public" | "private" | null
}

/** GitHub options: GitHub Enterprise Server lives at its own origin. */
export type GitHubUserConfig = OAuthUserConfig<GitHubProfile> & {
  enterprise?: { /** e.g. `https://github.example.com` */ baseUrl?: string }
}

/**
 * Sign in with GitHub.
 *
 * - Env: `AUTH_GITHUB_ID`, `AUTH_GITHUB_SECRET` (read by the core when `clientId`/`clientSecret` are not given).
 * - Callback URL to register on the OAuth App: `[origin]/auth/callback/github`.
 * - Scope `read:user user:email`. `/user` only shows a *public* email, so when it is null the
 *   preset asks `/user/emails` for the address that is both primary and verified.
 * - GitHub Enterprise Server: pass `enterprise: { baseUrl }`.
 *
 * @example
 * ```ts
 * import GitHub from "@portcullis/core/providers/github"
 * Auth(request, { providers: [GitHub({ clientId: process.env.AUTH_GITHUB_ID, clientSecret: process.env.AUTH_GITHUB_SECRET })] })
 * ```
 */
export default function GitHub(options: GitHubUserConfig = {}): OAuthConfig<GitHubProfile> {
  const base = options.enterprise?.baseUrl?.replace(/\/+$/, "") ?? "https://github.com"
  // github.com serves its REST API on another host; Enterprise Server serves it under /api/v3.
  const api = options.enterprise?.baseUrl ? `${base}/api/v3` : "https://api.github.com"
  return {
    id: "github",
    name: "GitHub",
    type: "oauth",
    authorization: { url: `${base}/login/oauth/authorize`, params: { scope: "read:user user:email" } },
    token: `${base}/login/oauth/access_token`,
    userinfo: {
      url: `${api}/user`,
      async request({ tokens, fetch }) {
        const headers = {
          Authorization: `Bearer ${tokens.access_token}`,
          Accept: "application/vnd.github+json",
          // GitHub rejects API requests without a User-Agent.
          "User-Agent": "portcullis",
        }
        const res = await fetch(`${api}/user`, { headers })
        if (!res.ok) throw new Error(`GitHub GET /user failed with ${res.status}`)
        const profile = (await res.json()) as GitHubProfile
        if (!profile.email) {
          // Without the user:email scope this is a 404/403: keep the profile, just without email.
          const emails = await fetch(`${api}/user/emails`, { headers })
          if (emails.ok) {
            const list = (await emails.json()) as GitHubEmail[]
            profile.email = list.find((e) => e.primary && e.verified)?.email ?? null
          }
        }
        return profile
      },
    },
    profile(profile) {
      return { id: String(profile.id), name: profile.name ?? profile.login, email: profile.email, image: profile.avatar_url }
    },
    style: { bg: "#24292f", text: "#fff" },
    options,
  }
}
