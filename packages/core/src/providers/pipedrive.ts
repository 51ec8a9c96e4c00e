/**
 * Pipedrive sign-in (Marketplace app OAuth).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /v1/users/me` (https://developers.pipedrive.com/docs/api/v1/Users#getCurrentUser): the user is under `data`. */
export interface PipedriveProfile {
  success: boolean
  data: {
    id: number
    name: string
    email: string
    icon_url: string | null
    default_currency?: string
    locale?: string
    lang?: number
    phone?: string | null
    activated?: boolean
    is_admin?: number
    active_flag?: boolean
    timezone_name?: string
    company_id?: number
    company_name?: string
    company_domain?: string
    [key: string]: unknown
  }
  [key: string]: unknown
}

/**
 * Sign in with Pipedrive.
 *
 * - Env: `AUTH_PIPEDRIVE_ID`, `AUTH_PIPEDRIVE_SECRET`.
 * - Callback URL of the app (Developer Hub): `[origin]/auth/callback/pipedrive`.
 * - Scopes are chosen on the app (`Basic` is enough for `users/me`). The token endpoint uses
 *   HTTP Basic client authentication.
 *
 * @example
 * ```ts
 * import Pipedrive from "@portcullis/core/providers/pipedrive"
 * Auth(request, { providers: [Pipedrive()] })
 * ```
 */
export default function Pipedrive(options: OAuthUserConfig<PipedriveProfile> = {}): OAuthConfig<PipedriveProfile> {
  return {
    id: "pipedrive",
    name: "Pipedrive",
    type: "oauth",
    authorization: "https://oauth.pipedrive.com/oauth/authorize",
    token: "https://oauth.pipedrive.com/oauth/token",
    client: { token_endpoint_auth_method: "client_secret_basic" },
    userinfo: "https://api.pipedrive.com/v1/users/me",
    profile({ data }) {
      return { id: String(data.id), name: data.name ?? null, email: data.email ?? null, image: data.icon_url ?? null }
    },
    style: { bg: "#017737", text: "#fff" },
    options,
  }
}
