/**
 * Figma sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /v1/me` (https://developers.figma.com/docs/rest-api/users-endpoints/). */
export interface FigmaProfile {
  id: string
  handle: string
  email: string
  img_url: string
  [key: string]: unknown
}

/**
 * Sign in with Figma.
 *
 * - Env: `AUTH_FIGMA_ID`, `AUTH_FIGMA_SECRET`.
 * - Callback URL of the OAuth app: `[origin]/auth/callback/figma`.
 * - Scope `files:read`, as Auth.js asks. Figma now calls it deprecated (it keeps working);
 *   `current_user:read` is all `/v1/me` needs, so apps created with granular scopes should
 *   pass `authorization: { params: { scope: "current_user:read" } }`.
 * - The token endpoint is `https://api.figma.com/v1/oauth/token` (the older
 *   `www.figma.com/api/oauth/token` is deprecated), with HTTP Basic client authentication.
 *
 * @example
 * ```ts
 * import Figma from "@portcullis/core/providers/figma"
 * Auth(request, { providers: [Figma()] })
 * ```
 */
export default function Figma(options: OAuthUserConfig<FigmaProfile> = {}): OAuthConfig<FigmaProfile> {
  return {
    id: "figma",
    name: "Figma",
    type: "oauth",
    authorization: { url: "https://www.figma.com/oauth", params: { scope: "files:read" } },
    token: "https://api.figma.com/v1/oauth/token",
    client: { token_endpoint_auth_method: "client_secret_basic" },
    userinfo: "https://api.figma.com/v1/me",
    profile(profile) {
      return { id: profile.id, name: profile.handle, email: profile.email ?? null, image: profile.img_url ?? null }
    },
    style: { bg: "#ff7237", text: "#fff" },
    options,
  }
}
