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
 * - WorkOS must know which connection to use: the `connection` option (as in Auth.js) sends
 *   it on every sign-in; or pass one of `connection`, `organization` or `provider` as an
 *   authorization parameter, e.g. `signIn("workos", {}, { connection: "conn_…" })`, or set
 *   it in `authorization.params`. `issuer` changes the API base (default
 *   `https://api.workos.com/`).
 *
 * @example
 * ```ts
 * import WorkOS from "@portcullis/core/providers/workos"
 * WorkOS({ connection: "conn_01H…" })
 * WorkOS({ authorization: { params: { organization: "org_01H…" } } })
 * ```
 */
export default function WorkOS(options: OAuthUserConfig<WorkOSProfile> & { connection?: string; issuer?: string } = {}): OAuthConfig<WorkOSProfile> {
  const { connection, issuer = "https://api.workos.com/", ...rest } = options
  const base = issuer.replace(/\/+$/, "")
  return {
    id: "workos",
    name: "WorkOS",
    type: "oauth",
    // WorkOS needs to know which SSO connection (or organization, or provider) to use;
    // `connection` selects one for every sign-in, as in Auth.js.
    authorization: { url: `${base}/sso/authorize`, params: connection ? { connection } : {} },
    token: `${base}/sso/token`,
    userinfo: `${base}/sso/profile`,
    // WorkOS takes client_id/client_secret as form fields of the token request.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      const name = [profile.first_name, profile.last_name].filter(Boolean).join(" ")
      const picture = profile.raw_attributes?.picture
      return { id: profile.id, name: name || null, email: profile.email, image: typeof picture === "string" ? picture : null }
    },
    style: { bg: "#6363F1", text: "#fff" },
    // The factory's own options are not provider fields; the rest is the user's, untouched.
    options: "connection" in options || "issuer" in options ? rest : options,
  }
}
