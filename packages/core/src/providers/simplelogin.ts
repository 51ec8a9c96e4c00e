/**
 * SimpleLogin ("Sign in with SimpleLogin", OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** SimpleLogin user claims (https://simplelogin.io/docs/siwsl/app/). */
export interface SimpleLoginProfile {
  /** The user id for this app. */
  sub: string
  /** The address given to the app: the real one or a new alias, as the user chose. */
  email: string
  email_verified: boolean
  name: string
  /** Avatar URL, or null. */
  avatar_url: string | null
  /** The app's name. */
  client?: string
  [key: string]: unknown
}

/**
 * Sign in with SimpleLogin.
 *
 * - Env: `AUTH_SIMPLELOGIN_ID`, `AUTH_SIMPLELOGIN_SECRET`.
 * - Authorized redirect URI of the app (Developer → app → Authorized Redirect URIs):
 *   `[origin]/auth/callback/simplelogin`; SimpleLogin allows http only for localhost.
 * - Issuer `https://app.simplelogin.io`. The email may be an alias that forwards to the user.
 *
 * @example
 * ```ts
 * import SimpleLogin from "@portcullis/core/providers/simplelogin"
 * Auth(request, { providers: [SimpleLogin()] })
 * ```
 */
export default function SimpleLogin(options: OAuthUserConfig<SimpleLoginProfile> = {}): OAuthConfig<SimpleLoginProfile> {
  return {
    id: "simplelogin",
    name: "SimpleLogin",
    type: "oidc",
    issuer: "https://app.simplelogin.io",
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: profile.avatar_url ?? null }
    },
    style: { bg: "#e3156a", text: "#fff" },
    options,
  }
}
