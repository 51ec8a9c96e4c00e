/**
 * Medium sign-in (OAuth 2).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET https://api.medium.com/v1/me` (https://github.com/Medium/medium-api-docs#getting-the-authenticated-users-details): the user is under `data`. */
export interface MediumProfile {
  data: {
    id: string
    username: string
    name: string
    url: string
    imageUrl: string
    [key: string]: unknown
  }
  [key: string]: unknown
}

/**
 * Medium's token answer lists `scope` as an array and gives `expires_at` in *milliseconds*
 * since the epoch instead of `expires_in`. Rewritten to RFC 6749 form: a space-separated
 * scope and `expires_in` seconds.
 */
async function conformToken(response: Response): Promise<Response | undefined> {
  if (!response.ok) return undefined
  const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined
  if (!body || typeof body !== "object" || typeof body.access_token !== "string") return undefined
  const { expires_at: expiresAt, ...fixed } = body
  if (Array.isArray(fixed.scope)) fixed.scope = fixed.scope.join(" ")
  if (typeof expiresAt === "number" && fixed.expires_in === undefined) {
    fixed.expires_in = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000))
  }
  return Response.json(fixed, { status: response.status })
}

/**
 * Sign in with Medium.
 *
 * - Env: `AUTH_MEDIUM_ID`, `AUTH_MEDIUM_SECRET`.
 * - Callback URL of the integration: `[origin]/auth/callback/medium`.
 * - Scope `basicProfile`. Medium never discloses the email address: `email` is null.
 * - The token endpoint takes the client secret in the body (`client_secret_post`); its
 *   answer is rewritten as above.
 *
 * @deprecated Medium archived its API in 2023 and no longer registers new OAuth
 * integrations or issues new integration tokens; existing integrations may stop working at
 * any time. There is no successor sign-in API.
 *
 * @example
 * ```ts
 * import Medium from "@portcullis/core/providers/medium"
 * Auth(request, { providers: [Medium()] })
 * ```
 */
export default function Medium(options: OAuthUserConfig<MediumProfile> = {}): OAuthConfig<MediumProfile> {
  return {
    id: "medium",
    name: "Medium",
    type: "oauth",
    authorization: { url: "https://medium.com/m/oauth/authorize", params: { scope: "basicProfile" } },
    token: { url: "https://api.medium.com/v1/tokens", conform: conformToken },
    userinfo: "https://api.medium.com/v1/me",
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile({ data }) {
      return { id: data.id, name: data.name ?? data.username ?? null, email: null, image: data.imageUrl || null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
