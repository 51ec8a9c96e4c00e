/**
 * Salesforce (OpenID Connect) sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Salesforce ID token claims (https://help.salesforce.com/s/articleView?id=sf.remoteaccess_using_openid.htm). */
export interface SalesforceProfile {
  /** The identity URL, `https://login.salesforce.com/id/<orgId>/<userId>`. */
  sub: string
  nickname?: string
  name?: string
  email?: string
  email_verified?: boolean
  picture?: string
  given_name?: string
  family_name?: string
  preferred_username?: string
  [key: string]: unknown
}

/**
 * Sign in with Salesforce.
 *
 * - Env: `AUTH_SALESFORCE_ID` (Consumer Key), `AUTH_SALESFORCE_SECRET` (Consumer Secret).
 * - Callback URL of the connected app (with the `openid` scope): `[origin]/auth/callback/salesforce`.
 * - Issuer `https://login.salesforce.com`. For sandboxes use `issuer: "https://test.salesforce.com"`;
 *   for a My Domain, its `https://<domain>.my.salesforce.com`.
 * - id = `sub` (the identity URL).
 *
 * @example
 * ```ts
 * import Salesforce from "@portcullis/core/providers/salesforce"
 * Auth(request, { providers: [Salesforce()] })
 * ```
 */
export default function Salesforce(options: OAuthUserConfig<SalesforceProfile> = {}): OAuthConfig<SalesforceProfile> {
  return {
    id: "salesforce",
    name: "Salesforce",
    type: "oidc",
    issuer: "https://login.salesforce.com",
    profile(profile) {
      return { id: profile.sub, name: profile.nickname ?? profile.name ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#00a1e0", text: "#fff" },
    options,
  }
}
