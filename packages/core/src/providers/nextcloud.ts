/**
 * Nextcloud sign-in (the server's OAuth 2 app).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/**
 * A user of the provisioning API, `GET /ocs/v1.php/cloud/users/{userid}`
 * (https://docs.nextcloud.com/server/latest/admin_manual/configuration_user/instruction_set_for_users.html#get-data-of-a-single-user),
 * unwrapped from its `ocs.data` envelope.
 */
export interface NextcloudProfile {
  /** The user id (login name), e.g. `frank`. */
  id: string
  displayname: string
  email: string | null
  enabled?: boolean
  storageLocation?: string
  lastLogin?: number
  backend?: string
  subadmin?: string[]
  quota?: Record<string, unknown>
  phone?: string
  address?: string
  website?: string
  twitter?: string
  groups?: string[]
  language?: string
  locale?: string
  [key: string]: unknown
}

/** The instance URL from `issuer`, else `AUTH_NEXTCLOUD_ISSUER`, without a trailing slash. */
function instanceOf(options: OAuthUserConfig<NextcloudProfile>): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  return (options.issuer ?? env?.AUTH_NEXTCLOUD_ISSUER)?.replace(/\/+$/, "")
}

/**
 * Sign in with a Nextcloud server.
 *
 * - Env: `AUTH_NEXTCLOUD_ID`, `AUTH_NEXTCLOUD_SECRET`, `AUTH_NEXTCLOUD_ISSUER`.
 * - **Required** `issuer`: the server, e.g. `https://cloud.example.com` (with its path if
 *   Nextcloud is installed under one).
 * - Add an OAuth 2.0 client (Administration settings → Security) with the redirect URI
 *   `[origin]/auth/callback/nextcloud`.
 * - Nextcloud's token answer names the user (`user_id`); the profile is that user from the
 *   OCS provisioning API, asked with the `OCS-APIRequest: true` header OCS requires, and
 *   unwrapped from `ocs.data`. The image is the user's avatar URL on the server.
 *
 * @example
 * ```ts
 * import Nextcloud from "@portcullis/core/providers/nextcloud"
 * Nextcloud({ issuer: "https://cloud.example.com" })
 * ```
 */
export default function Nextcloud(options: OAuthUserConfig<NextcloudProfile> = {}): OAuthConfig<NextcloudProfile> {
  const instance = instanceOf(options)
  return {
    id: "nextcloud",
    name: "Nextcloud",
    type: "oauth",
    ...(instance && {
      authorization: `${instance}/apps/oauth2/authorize`,
      token: `${instance}/apps/oauth2/api/v1/token`,
      userinfo: {
        url: `${instance}/ocs/v1.php/cloud/users`,
        async request({ tokens, fetch }) {
          const user = tokens.user_id
          if (typeof user !== "string" || !user) throw new Error("Nextcloud: the token response names no user_id")
          const res = await fetch(`${instance}/ocs/v1.php/cloud/users/${encodeURIComponent(user)}?format=json`, {
            headers: { Authorization: `Bearer ${tokens.access_token}`, "OCS-APIRequest": "true", Accept: "application/json" },
          })
          if (!res.ok) throw new Error(`Nextcloud GET /ocs/v1.php/cloud/users failed with ${res.status}`)
          const body = (await res.json()) as { ocs?: { meta?: { statuscode?: number }; data?: NextcloudProfile } }
          const data = body.ocs?.data
          // OCS v1 answers 200 with the real status in meta (100 = OK).
          if (!data?.id || (body.ocs?.meta?.statuscode !== undefined && body.ocs.meta.statuscode !== 100)) {
            throw new Error(`Nextcloud OCS answered status ${body.ocs?.meta?.statuscode}`)
          }
          return data
        },
      },
    }),
    profile(profile) {
      const image = instance ? `${instance}/index.php/avatar/${encodeURIComponent(profile.id)}/64` : null
      return { id: profile.id, name: profile.displayname ?? null, email: profile.email ?? null, image }
    },
    style: { bg: "#0082C9", text: "#fff" },
    options,
  }
}
