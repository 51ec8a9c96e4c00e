/**
 * Mastodon sign-in (OAuth 2), on the instance you choose.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /api/v1/accounts/verify_credentials` (https://docs.joinmastodon.org/methods/accounts/#verify_credentials): a CredentialAccount. */
export interface MastodonProfile {
  /** The account id on this instance (a numeric string). */
  id: string
  /** The handle, without the instance. */
  username: string
  /** `username` for local accounts. */
  acct: string
  display_name: string
  locked: boolean
  bot: boolean
  created_at: string
  note: string
  url: string
  avatar: string
  /** The avatar, not animated. */
  avatar_static: string
  header: string
  header_static: string
  followers_count: number
  following_count: number
  statuses_count: number
  source?: Record<string, unknown>
  [key: string]: unknown
}

/** The instance URL from `issuer`, else `AUTH_MASTODON_ISSUER`, without a trailing slash. */
function instanceOf(options: OAuthUserConfig<MastodonProfile>): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  return (options.issuer ?? env?.AUTH_MASTODON_ISSUER)?.replace(/\/+$/, "")
}

/**
 * Sign in with a Mastodon account.
 *
 * - Env: `AUTH_MASTODON_ID`, `AUTH_MASTODON_SECRET`, `AUTH_MASTODON_ISSUER`.
 * - **Required** `issuer`: the instance, e.g. `https://mastodon.social`. Client credentials
 *   belong to one instance: register the app there (Preferences → Development, or
 *   `POST /api/v1/apps`) with the redirect URI `[origin]/auth/callback/mastodon`.
 * - Scope `read`, as Auth.js asks. On Mastodon 4.3+ the narrower `profile` scope is enough:
 *   `Mastodon({ authorization: { params: { scope: "profile" } } })`.
 * - Mastodon never discloses the email address: `email` is null. The id is only unique per
 *   instance; use one provider (one id) per instance.
 *
 * @example
 * ```ts
 * import Mastodon from "@portcullis/core/providers/mastodon"
 * Mastodon({ issuer: "https://mastodon.social" })
 * ```
 */
export default function Mastodon(options: OAuthUserConfig<MastodonProfile> = {}): OAuthConfig<MastodonProfile> {
  const instance = instanceOf(options)
  return {
    id: "mastodon",
    name: "Mastodon",
    type: "oauth",
    // Without an instance there are no endpoints, and the core reports the provider as misconfigured.
    ...(instance && {
      authorization: { url: `${instance}/oauth/authorize`, params: { scope: "read" } },
      token: `${instance}/oauth/token`,
      userinfo: `${instance}/api/v1/accounts/verify_credentials`,
    }),
    profile(profile) {
      return { id: profile.id, name: profile.username, email: null, image: profile.avatar_static ?? null }
    },
    style: { bg: "#6364FF", text: "#fff" },
    options,
  }
}
