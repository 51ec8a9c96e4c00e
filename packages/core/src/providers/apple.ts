/**
 * Sign in with Apple (OpenID Connect, web flow).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** The `user` JSON Apple posts to the callback, only on the first authorization. */
export interface AppleNonConformUser {
  name?: { firstName?: string; lastName?: string }
  email?: string
}

/** The earlier name of {@link AppleNonConformUser}. */
export type AppleFirstSignInUser = AppleNonConformUser

/**
 * Apple ID token claims (https://developer.apple.com/documentation/signinwithapplerestapi/authenticating-users-with-sign-in-with-apple).
 * Apple sends booleans either as booleans or as the strings `"true"`/`"false"`.
 */
export interface AppleProfile {
  iss: string
  aud: string
  exp: number
  iat: number
  /** Stable per Apple developer team. */
  sub: string
  nonce?: string
  nonce_supported?: boolean
  email?: string
  email_verified?: boolean | "true" | "false"
  /** A private-relay address (`…@privaterelay.appleid.com`). */
  is_private_email?: boolean | "true" | "false"
  /** 0 unsupported, 1 unknown, 2 likely real. */
  real_user_status?: 0 | 1 | 2
  transfer_sub?: string
  auth_time?: number
  /** Not a claim: the first-sign-in `user` form field, when the core attaches it. */
  user?: AppleNonConformUser
  [key: string]: unknown
}

/**
 * Sign in with Apple.
 *
 * - Env: `AUTH_APPLE_ID` (the **Services ID**, e.g. `com.example.web`), `AUTH_APPLE_SECRET`.
 * - Return URL to register on the Services ID: `[origin]/auth/callback/apple`. Apple
 *   accepts only `https` return URLs on a real domain, never `localhost`.
 * - The client secret is not a fixed string: it is an ES256 JWT your app signs with the
 *   `.p8` key from the developer portal (header `kid` = Key ID; claims `iss` = Team ID,
 *   `sub` = Services ID, `aud` = `https://appleid.apple.com`, `iat`, `exp` at most six
 *   months later). Regenerate it before it expires.
 * - `scope: "name email"` forces `response_mode=form_post`: Apple POSTs the code to the
 *   callback from its own origin. Apple does not document PKCE for this flow, so the checks
 *   are `nonce` and `state`.
 * - The ID token never contains the name; Apple posts it once, as the `user` form field,
 *   on the first authorization. The name is read from `profile.user` when present; the
 *   email only ever from the ID token, as the `user` field is not signed.
 *
 * @example
 * ```ts
 * import Apple from "@portcullis/core/providers/apple"
 * import { SignJWT, importPKCS8 } from "jose"
 *
 * const key = await importPKCS8(process.env.APPLE_PRIVATE_KEY!, "ES256")
 * const clientSecret = await new SignJWT({})
 *   .setProtectedHeader({ alg: "ES256", kid: process.env.APPLE_KEY_ID! })
 *   .setIssuer(process.env.APPLE_TEAM_ID!)
 *   .setSubject(process.env.AUTH_APPLE_ID!)
 *   .setAudience("https://appleid.apple.com")
 *   .setIssuedAt()
 *   .setExpirationTime("180d")
 *   .sign(key)
 *
 * Auth(request, { providers: [Apple({ clientSecret })] })
 * ```
 */
export default function Apple(options: OAuthUserConfig<AppleProfile> = {}): OAuthConfig<AppleProfile> {
  return {
    id: "apple",
    name: "Apple",
    type: "oidc",
    issuer: "https://appleid.apple.com",
    authorization: { params: { scope: "name email", response_mode: "form_post" } },
    // Apple's token endpoint only advertises client_secret_post.
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["nonce", "state"],
    profile(profile) {
      // The `user` field is unsigned form data: only strings are read from it, and only the
      // name. The email comes from the signed id_token alone (Apple puts it there whenever
      // the user shared one), so a forged `user` can never pick the account's address.
      const parts = [profile.user?.name?.firstName, profile.user?.name?.lastName]
      const name = parts.filter((part): part is string => typeof part === "string" && part.trim() !== "").join(" ")
      return { id: profile.sub, name: name || null, email: typeof profile.email === "string" ? profile.email : null, image: null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
