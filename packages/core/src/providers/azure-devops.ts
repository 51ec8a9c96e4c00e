/**
 * Azure DevOps sign-in (Azure DevOps Services OAuth 2.0).
 * @module
 */
import type { TokenSet } from "../base-types.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /_apis/profile/profiles/me` (Azure DevOps Services REST API · Profiles · Get). */
export interface AzureDevOpsProfile {
  id: string
  displayName: string
  emailAddress: string
  /** With `coreAttributes=Avatar`: the picture, base64 in `Avatar.value.value`. */
  coreAttributes?: { Avatar?: { value?: { value?: string } } }
  [key: string]: unknown
}

const BASE = "https://app.vssps.visualstudio.com"

/**
 * Sign in with Azure DevOps.
 *
 * @deprecated Microsoft no longer takes new Azure DevOps OAuth registrations (April 2025) and
 * retires the service in 2026; use `microsoft-entra-id` (Entra ID issues Azure DevOps tokens
 * too). Kept so apps that still have a registration keep signing in after a migration.
 *
 * - Env: `AUTH_AZURE_DEVOPS_ID` (the App ID), `AUTH_AZURE_DEVOPS_SECRET` (the *Client Secret*,
 *   not the App Secret).
 * - Authorization callback URL of the app: `[origin]/auth/callback/azure-devops`, https even
 *   on localhost. Scopes are fixed at registration; `scope` must list them (default
 *   `vso.profile`, the minimum: "User profile (read)").
 * - Azure DevOps is not standard OAuth: the authorization request asks for
 *   `response_type=Assertion`, and the code is exchanged as a JWT bearer assertion with the
 *   client secret as `client_assertion`. The picture comes base64-encoded in the profile and
 *   is stored as a `data:` URL, as Auth.js does.
 *
 * @example
 * ```ts
 * import AzureDevOps from "@portcullis/core/providers/azure-devops"
 * Auth(request, { providers: [AzureDevOps({ scope: "vso.profile vso.project" })] })
 * ```
 */
export default function AzureDevOps(options: OAuthUserConfig<AzureDevOpsProfile> & { scope?: string } = {}): OAuthConfig<AzureDevOpsProfile> {
  const { scope = "vso.profile", ...rest } = options
  return {
    id: "azure-devops",
    name: "Azure DevOps",
    type: "oauth",
    authorization: { url: `${BASE}/oauth2/authorize`, params: { response_type: "Assertion", scope } },
    token: {
      url: `${BASE}/oauth2/token`,
      async request({ provider, params, fetch, redirectUri }) {
        const body = new URLSearchParams({
          client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
          client_assertion: provider.clientSecret ?? "",
          grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
          assertion: params.get("code") ?? "",
          redirect_uri: redirectUri,
        })
        const url = typeof provider.token === "object" && provider.token?.url ? provider.token.url : `${BASE}/oauth2/token`
        const response = await fetch(url, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" }, body })
        const tokens = (await response.json().catch(() => null)) as (TokenSet & { error?: string; ErrorDescription?: string }) | null
        if (!response.ok || !tokens?.access_token) {
          throw new Error(`Azure DevOps token exchange failed with ${response.status} ${tokens?.error ?? ""}`.trim())
        }
        // Azure DevOps answers token_type "jwt-bearer"; the API takes it as a bearer token.
        return { ...tokens, token_type: "bearer" }
      },
    },
    userinfo: `${BASE}/_apis/profile/profiles/me?details=true&coreAttributes=Avatar&api-version=6.0`,
    profile(profile) {
      const avatar = profile.coreAttributes?.Avatar?.value?.value
      return { id: profile.id, name: profile.displayName, email: profile.emailAddress, image: avatar ? `data:image/jpeg;base64,${avatar}` : null }
    },
    style: { bg: "#0078D4", text: "#fff" },
    // The factory's own option is not a provider field; the rest is the user's, untouched.
    options: "scope" in options ? rest : options,
  }
}
