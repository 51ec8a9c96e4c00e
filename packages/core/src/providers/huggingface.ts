/**
 * Hugging Face sign-in ("Sign in with HF", OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Hugging Face ID token / userinfo claims (https://huggingface.co/docs/hub/oauth). */
export interface HuggingFaceProfile {
  /** The Hugging Face user id. */
  sub: string
  /** Full name. */
  name?: string
  /** The username (handle). */
  preferred_username: string
  /** `https://huggingface.co/<username>`. */
  profile?: string
  picture?: string
  website?: string
  /** With the `email` scope. */
  email?: string
  email_verified?: boolean
  isPro?: boolean
  canPay?: boolean
  orgs?: { sub: string; name: string; preferred_username: string; picture: string; isEnterprise: boolean; roleInOrg?: string }[]
  [key: string]: unknown
}

/** {@link HuggingFaceProfile} under Auth.js's spelling. */
export type HuggingfaceProfile = HuggingFaceProfile

/**
 * Sign in with Hugging Face.
 *
 * - Env: `AUTH_HUGGINGFACE_ID`, `AUTH_HUGGINGFACE_SECRET`.
 * - Create an OAuth app under Settings → Connected Apps → Developer applications, with the
 *   redirect URL `[origin]/auth/callback/huggingface` and the `openid profile email` scopes.
 * - OpenID Connect: the issuer is `https://huggingface.co`. The `email` claim is only there
 *   when the app was granted the `email` scope.
 *
 * @example
 * ```ts
 * import HuggingFace from "@portcullis/core/providers/huggingface"
 * Auth(request, { providers: [HuggingFace()] })
 * ```
 */
export default function HuggingFace(options: OAuthUserConfig<HuggingFaceProfile> = {}): OAuthConfig<HuggingFaceProfile> {
  return {
    id: "huggingface",
    name: "Hugging Face",
    type: "oidc",
    issuer: "https://huggingface.co",
    authorization: { params: { scope: "openid profile email" } },
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.preferred_username ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#FFD21E", text: "#000" },
    options,
  }
}
