/**
 * Bitbucket Cloud sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /2.0/user` (https://developer.atlassian.com/cloud/bitbucket/rest/api-group-users/), plus `email`. */
export interface BitbucketProfile {
  /** `{…}`-wrapped UUID; stable for the account. */
  uuid: string
  account_id: string
  display_name: string
  nickname?: string
  username?: string
  links: { avatar: { href: string }; [key: string]: unknown }
  /** Not part of `/user`: the primary confirmed address from `/user/emails`, or null. */
  email: string | null
  [key: string]: unknown
}

/** One entry of `GET /2.0/user/emails`. */
export interface BitbucketEmail {
  email: string
  is_primary: boolean
  is_confirmed: boolean
  type: string
}

const API = "https://api.bitbucket.org/2.0"

/**
 * Sign in with Bitbucket.
 *
 * - Env: `AUTH_BITBUCKET_ID` (the OAuth consumer Key), `AUTH_BITBUCKET_SECRET`.
 * - Callback URL of the consumer: `[origin]/auth/callback/bitbucket`. Tick the Account
 *   *Email* and *Read* permissions: Bitbucket grants the consumer's permissions, not the
 *   `scope` parameter.
 * - `/user` has no email, so the preset reads `/user/emails` and keeps the address that is
 *   both primary and confirmed.
 *
 * @example
 * ```ts
 * import Bitbucket from "@portcullis/core/providers/bitbucket"
 * Auth(request, { providers: [Bitbucket()] })
 * ```
 */
export default function Bitbucket(options: OAuthUserConfig<BitbucketProfile> = {}): OAuthConfig<BitbucketProfile> {
  return {
    id: "bitbucket",
    name: "Bitbucket",
    type: "oauth",
    authorization: { url: "https://bitbucket.org/site/oauth2/authorize", params: { scope: "account email" } },
    token: "https://bitbucket.org/site/oauth2/access_token",
    userinfo: {
      url: `${API}/user`,
      async request({ tokens, fetch }) {
        const headers = { Authorization: `Bearer ${tokens.access_token}`, Accept: "application/json" }
        const res = await fetch(`${API}/user`, { headers })
        if (!res.ok) throw new Error(`Bitbucket GET /2.0/user failed with ${res.status}`)
        const profile = (await res.json()) as BitbucketProfile
        const emails = await fetch(`${API}/user/emails`, { headers })
        // Without the email permission this fails: sign in without an address rather than not at all.
        const list = emails.ok ? ((await emails.json()) as { values?: BitbucketEmail[] }).values ?? [] : []
        return { ...profile, email: list.find((e) => e.is_primary && e.is_confirmed)?.email ?? null }
      },
    },
    profile(profile) {
      return { id: profile.uuid, name: profile.display_name, email: profile.email, image: profile.links?.avatar?.href ?? null }
    },
    style: { bg: "#0052CC", text: "#fff" },
    options,
  }
}
