/**
 * WorkOS SSO (enterprise SAML/OIDC connections behind one OAuth API).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** WorkOS SSO profile (https://workos.com/docs/reference/sso/profile). */
export interface WorkOSProfile {
  object: "profile"
  /** `prof_…`: stable for the user within a connection. */
  id: string
  connection_id: string
  connection_type: string
  organization_id: string | null
  email: string
  first_name: string | null
  last_name: string | null
  /** The user's id at the identity provider. */
  idp_id: string
  raw_attributes?: Record<string, unknown>
  [key: string]: unknown
}

/**
 * Sign in through WorkOS SSO.
 *
 * - Env: `AUTH_WORKOS_ID` (Client ID, `client_…`), `AUTH_WORKOS_SECRET` (API key, `sk_…`).
 * - Redirect URI in the WorkOS dashboard: `[origin]/auth/callback/workos`.
 * - WorkOS must know which connection to use: pass one of `connection`, `organization` or
 *   `provider` as an authorization parameter, e.g.
 *   `signIn("workos", {}, { connection: "conn_…" })`, or set it in `authorization.params`.
 *
 * @example
 * ```ts
 * import WorkOS from "@portcullis/core/providers/workos"
 * WorkOS({ authorization: { params: { organization: "org_01H…" } } })
 * ```
 */
export default function WorkOS(options: OAuthUserConfig<WorkOSProfile> = {}): OAuthConfig<WorkOSProfile> {
  return {
    id: "workos",
    name: "WorkOS",
    type: "oauth",
    authorization: "https://api.workos.com/sso/authorize",
    token: "https://api.workos.com/sso/token",
    userinfo: "https://api.workos.com/sso/profile",
    // WorkOS takes client_id/client_secret as form fields of the token request.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      const name = [profile.first_name, profile.last_name].filter(Boolean).join(" ")
      const picture = profile.raw_attributes?.picture
      return { id: profile.id, name: name || null, email: profile.email, image: typeof picture === "string" ? picture : null }
    },
    style: { bg: "#6363F1", text: "#fff" },
    options,
  }
}
