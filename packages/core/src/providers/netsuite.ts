/**
 * Oracle NetSuite sign-in (OAuth 2 of a NetSuite account).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig, UserinfoEndpoint } from "./oauth.js"

/**
 * What the RESTlet you point `userinfo` at returns: the fields of N/runtime's
 * `runtime.getCurrentUser()` (https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_4296707316.html).
 */
export interface NetSuiteProfile {
  /** The internal id of the employee/user. */
  id: number
  name: string
  email: string
  location: number
  role: number
  roleId?: string
  roleCenter?: string
  subsidiary?: number
  department?: number
  contact?: number
  [key: string]: unknown
}

/** The options NetSuite takes besides the common OAuth ones. */
export interface OAuthNetSuiteOptions {
  /** The account id, e.g. `TSTDRV1234567` or `1234567_SB1` (default: env `AUTH_NETSUITE_ACCOUNT_ID`). */
  accountID?: string
  /** `authorization.params.prompt`: `none`, `login`, `consent` or `login consent`. */
  prompt?: "none" | "login" | "consent" | "login consent" | (string & {})
  /** Space-separated: `restlets`, `rest_webservices`, `suite_analytics`. Default `restlets rest_webservices`. */
  scope?: string
  /** Your RESTlet that returns the {@link NetSuiteProfile} (there is no default). */
  userinfo?: UserinfoEndpoint<NetSuiteProfile>
}

/** NetSuite options. */
export type NetSuiteUserConfig = OAuthUserConfig<NetSuiteProfile> & OAuthNetSuiteOptions

/** The account-specific host label: lower case, `_` becomes `-` (`1234567_SB1` → `1234567-sb1`). */
export function netSuiteHost(accountID: string): string {
  return accountID.trim().toLowerCase().replace(/_/g, "-")
}

/**
 * Sign in with NetSuite.
 *
 * - Env: `AUTH_NETSUITE_ID`, `AUTH_NETSUITE_SECRET`, `AUTH_NETSUITE_ACCOUNT_ID`.
 * - **Required** `accountID`, and **required** `userinfo`: NetSuite has no userinfo endpoint,
 *   so deploy a RESTlet that answers `runtime.getCurrentUser()` as JSON and pass its external
 *   URL (`https://<account>.restlets.api.netsuite.com/app/site/hosting/restlet.nl?script=…&deploy=…`).
 * - Integration record: "OAuth 2.0 → Authorization Code Grant" on, TBA off, the scopes you
 *   need, and the redirect URI `[origin]/auth/callback/netsuite` (NetSuite only accepts
 *   `https`). The role must have the "Log in using OAuth 2.0 Access Tokens" permission.
 * - Endpoints are the account-specific domains:
 *   `https://<account>.app.netsuite.com/app/login/oauth2/authorize.nl` and
 *   `https://<account>.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token`.
 * - `image` is always null.
 *
 * @example
 * ```ts
 * import NetSuite from "@portcullis/core/providers/netsuite"
 * NetSuite({
 *   accountID: "TSTDRV1234567",
 *   prompt: "login",
 *   userinfo: "https://tstdrv1234567.restlets.api.netsuite.com/app/site/hosting/restlet.nl?script=customscript_whoami&deploy=1",
 * })
 * ```
 */
export default function NetSuite(options: NetSuiteUserConfig = {}): OAuthConfig<NetSuiteProfile> {
  const { accountID, prompt, scope } = options
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  const account = accountID ?? env?.AUTH_NETSUITE_ACCOUNT_ID
  const host = account ? netSuiteHost(account) : undefined
  return {
    id: "netsuite",
    name: "NetSuite",
    type: "oauth",
    ...(host && {
      authorization: {
        url: `https://${host}.app.netsuite.com/app/login/oauth2/authorize.nl`,
        params: { scope: scope ?? "restlets rest_webservices", ...(prompt && { prompt }) },
      },
      token: `https://${host}.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token`,
    }),
    // No default userinfo: it is your RESTlet (see above).
    profile(profile) {
      return { id: String(profile.id), name: profile.name ?? null, email: profile.email ?? null, image: null }
    },
    style: { bg: "#24292f", text: "#fff" },
    options,
  }
}
