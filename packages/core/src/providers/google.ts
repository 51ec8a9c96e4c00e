/**
 * Google (OpenID Connect) sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Google ID token claims (https://developers.google.com/identity/openid-connect/openid-connect#an-id-tokens-payload). */
export interface GoogleProfile {
  iss: string
  azp: string
  aud: string
  sub: string
  email: string
  email_verified: boolean
  name?: string
  picture?: string
  given_name?: string
  family_name?: string
  locale?: string
  /** The Google Workspace domain of the user, if any. */
  hd?: string
  iat: number
  exp: number
  [key: string]: unknown
}

/**
 * Sign in with Google. Endpoints come from discovery at `https://accounts.google.com`.
 *
 * - Env: `AUTH_GOOGLE_ID`, `AUTH_GOOGLE_SECRET`.
 * - Authorized redirect URI: `[origin]/auth/callback/google`.
 * - For a refresh token add `authorization: { params: { access_type: "offline", prompt: "consent" } }`.
 * - To restrict to a Workspace domain, check `profile.hd` in the `signIn` callback (the `hd`
 *   authorization parameter only changes the account chooser).
 *
 * @example
 * ```ts
 * import Google from "@portcullis/core/providers/google"
 * Auth(request, { providers: [Google()] }) // clientId/secret from AUTH_GOOGLE_ID / AUTH_GOOGLE_SECRET
 * ```
 */
export default function Google(options: OAuthUserConfig<GoogleProfile> = {}): OAuthConfig<GoogleProfile> {
  return {
    id: "google",
    name: "Google",
    type: "oidc",
    issuer: "https://accounts.google.com",
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email, image: profile.picture ?? null }
    },
    style: { bg: "#fff", text: "#000" },
    options,
  }
}
