/**
 * Dropbox sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `POST /2/users/get_current_account` (https://www.dropbox.com/developers/documentation/http/documentation#users-get_current_account). */
export interface DropboxProfile {
  /** `dbid:…`, stable for the account. */
  account_id: string
  name: { given_name: string; surname: string; familiar_name: string; display_name: string; abbreviated_name: string }
  email: string
  email_verified: boolean
  disabled: boolean
  profile_photo_url?: string
  locale?: string
  country?: string
  [key: string]: unknown
}

const ACCOUNT = "https://api.dropboxapi.com/2/users/get_current_account"

/**
 * Sign in with Dropbox.
 *
 * - Env: `AUTH_DROPBOX_ID` (App key), `AUTH_DROPBOX_SECRET` (App secret).
 * - Redirect URI of the app: `[origin]/auth/callback/dropbox`.
 * - Scope `account_info.read` (enable it on the app's Permissions tab). Access tokens are
 *   short-lived; for a refresh token add `authorization: { params: { token_access_type: "offline" } }`.
 * - The account endpoint is an RPC call: a POST with no body, hence the custom request.
 *
 * @example
 * ```ts
 * import Dropbox from "@portcullis/core/providers/dropbox"
 * Auth(request, { providers: [Dropbox()] })
 * ```
 */
export default function Dropbox(options: OAuthUserConfig<DropboxProfile> = {}): OAuthConfig<DropboxProfile> {
  return {
    id: "dropbox",
    name: "Dropbox",
    type: "oauth",
    authorization: { url: "https://www.dropbox.com/oauth2/authorize", params: { scope: "account_info.read" } },
    token: "https://api.dropboxapi.com/oauth2/token",
    userinfo: {
      url: ACCOUNT,
      async request({ tokens, fetch }) {
        const res = await fetch(ACCOUNT, { method: "POST", headers: { Authorization: `Bearer ${tokens.access_token}` } })
        if (!res.ok) throw new Error(`Dropbox get_current_account failed with ${res.status}`)
        return (await res.json()) as DropboxProfile
      },
    },
    profile(profile) {
      return {
        id: profile.account_id,
        name: profile.name.display_name,
        email: profile.email,
        image: profile.profile_photo_url ?? null,
      }
    },
    style: { bg: "#0061FE", text: "#fff" },
    options,
  }
}
