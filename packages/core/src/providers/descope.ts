/**
 * Descope sign-in, OpenID Connect (Descope as the OpenID Provider of your project).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Descope ID token claims (https://docs.descope.com/customize/auth/oidc). */
export interface DescopeProfile {
  /** The Descope user id. */
  sub: string
  name?: string
  given_name?: string
  family_name?: string
  email?: string
  email_verified?: boolean
  phone_number?: string
  phone_number_verified?: boolean
  picture?: string
  iss: string
  aud: string | string[]
  [key: string]: unknown
}

/**
 * Sign in with Descope.
 *
 * - Env: `AUTH_DESCOPE_ID` (the Descope **project id**), `AUTH_DESCOPE_SECRET` (an access
 *   key), and optionally `AUTH_DESCOPE_ISSUER`.
 * - The issuer is `https://api.descope.com/<project id>`, derived from `clientId` (given or
 *   `AUTH_DESCOPE_ID`); pass `issuer` for a custom domain or another region.
 * - Add `[origin]/auth/callback/descope` to the project's approved redirect domains/URLs.
 * - The flow shown is the one configured for the project's OIDC application (Federated Apps).
 *
 * @example
 * ```ts
 * import Descope from "@portcullis/core/providers/descope"
 * Auth(request, { providers: [Descope()] }) // AUTH_DESCOPE_ID=P2abc…, AUTH_DESCOPE_SECRET=…
 * ```
 */
export default function Descope(options: OAuthUserConfig<DescopeProfile> = {}): OAuthConfig<DescopeProfile> {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  const projectId = options.clientId ?? env?.AUTH_DESCOPE_ID
  return {
    id: "descope",
    name: "Descope",
    type: "oidc",
    // Default issuer from the project id; options.issuer / AUTH_DESCOPE_ISSUER win.
    ...(projectId && { issuer: `https://api.descope.com/${projectId}` }),
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#1c1c23", text: "#fff" },
    options,
  }
}
