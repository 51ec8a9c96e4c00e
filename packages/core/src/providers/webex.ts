/**
 * Cisco Webex sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /v1/people/me` (https://developer.webex.com/docs/api/v1/people/get-my-own-details). */
export interface WebexProfile {
  id: string
  emails: string[]
  displayName?: string
  nickName?: string
  firstName?: string
  lastName?: string
  avatar?: string
  orgId?: string
  type?: "person" | "bot" | "appuser"
  created?: string
  [key: string]: unknown
}

/** Webex options: the API base (FedRAMP and other clouds use another host). */
export type WebexUserConfig = OAuthUserConfig<WebexProfile> & {
  /** Default `https://webexapis.com/v1`. */
  apiBaseUrl?: string
}

/**
 * Sign in with Webex.
 *
 * - Env: `AUTH_WEBEX_ID`, `AUTH_WEBEX_SECRET`.
 * - Redirect URI of the integration: `[origin]/auth/callback/webex`.
 * - Scope `spark:kms spark:people_read` (the integration must have them). `client_secret_post`.
 * - Email = the first of `emails`. For other Webex clouds pass `apiBaseUrl`.
 *
 * @example
 * ```ts
 * import Webex from "@portcullis/core/providers/webex"
 * Auth(request, { providers: [Webex()] })
 * ```
 */
export default function Webex(options: WebexUserConfig = {}): OAuthConfig<WebexProfile> {
  const api = (options.apiBaseUrl ?? "https://webexapis.com/v1").replace(/\/+$/, "")
  return {
    id: "webex",
    name: "Webex",
    type: "oauth",
    authorization: { url: `${api}/authorize`, params: { scope: "spark:kms spark:people_read" } },
    token: `${api}/access_token`,
    client: { token_endpoint_auth_method: "client_secret_post" },
    userinfo: `${api}/people/me`,
    profile(profile) {
      return { id: profile.id, name: profile.displayName ?? null, email: profile.emails?.[0] ?? null, image: profile.avatar ?? null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
