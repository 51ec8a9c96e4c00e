/**
 * BoxyHQ SAML (SAML Jackson / Ory Polis) sign-in: enterprise SAML SSO served as OAuth 2.0.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /api/oauth/userinfo` of a Jackson instance: the SAML assertion's user. */
export interface BoxyHQSAMLProfile {
  /** The user's id at the SAML identity provider (NameID or the mapped id attribute). */
  id: string
  email: string
  firstName?: string
  lastName?: string
  /** Every attribute of the assertion. */
  raw?: Record<string, unknown>
  requested?: Record<string, unknown>
  [key: string]: unknown
}

/**
 * Sign in through a BoxyHQ SAML Jackson service.
 *
 * - Env: `AUTH_BOXYHQ_SAML_ID`, `AUTH_BOXYHQ_SAML_SECRET`, `AUTH_BOXYHQ_SAML_ISSUER`.
 * - **Required** `issuer`: the base URL of your Jackson deployment (e.g.
 *   `https://jackson.example.com`); the endpoints are `<issuer>/api/oauth/authorize`,
 *   `/api/oauth/token` and `/api/oauth/userinfo`.
 * - Redirect URL allowed in Jackson: `[origin]/auth/callback/boxyhq-saml`.
 * - Each SAML connection is chosen per sign-in with `tenant` and `product` authorization
 *   parameters: `signIn("boxyhq-saml", {}, { tenant: "acme.com", product: "my-app" })`.
 *   With Jackson's "dummy" client id/secret, they are how Jackson finds the connection.
 * - This is Jackson's OAuth 2.0 flow (Auth.js's `scope: ""` setup): the scope sent is
 *   `profile email`, never `openid`, because Jackson's ID tokens name its SAML audience as
 *   issuer. For its OIDC flow, configure a custom `oidc` provider with Jackson's issuer.
 *
 * @example
 * ```ts
 * import BoxyHQSAML from "@portcullis/core/providers/boxyhq-saml"
 * BoxyHQSAML({ issuer: "https://jackson.example.com", clientId: "dummy", clientSecret: "dummy" })
 * ```
 */
export default function BoxyHQSAML(options: OAuthUserConfig<BoxyHQSAMLProfile> = {}): OAuthConfig<BoxyHQSAMLProfile> {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  const base = (options.issuer ?? env?.AUTH_BOXYHQ_SAML_ISSUER)?.replace(/\/+$/, "")
  return {
    id: "boxyhq-saml",
    name: "BoxyHQ SAML",
    type: "oauth",
    // Without an issuer there is nothing to point at: the core reports the missing endpoints.
    ...(base && {
      authorization: { url: `${base}/api/oauth/authorize`, params: { provider: "saml", scope: "profile email" } },
      token: `${base}/api/oauth/token`,
      userinfo: `${base}/api/oauth/userinfo`,
    }),
    checks: ["pkce", "state"],
    profile(profile) {
      const name = [profile.firstName, profile.lastName].filter(Boolean).join(" ")
      return { id: profile.id, name: name || null, email: profile.email ?? null, image: null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
