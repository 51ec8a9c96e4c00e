/**
 * Mailchimp sign-in (OAuth 2).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET https://login.mailchimp.com/oauth2/metadata` (https://mailchimp.com/developer/marketing/guides/access-user-data-oauth-2/). */
export interface MailchimpProfile {
  /** The data center of the account (`us1`…): the API lives at `https://<dc>.api.mailchimp.com`. */
  dc: string
  role: string
  accountname: string
  user_id: number
  login: {
    email: string
    avatar: string | null
    /** The id of the login (the person), stable across accounts. */
    login_id: number
    login_name: string
    login_email: string
  }
  login_url: string
  api_endpoint: string
  [key: string]: unknown
}

/** Who the token belongs to, and the data center of the account. */
export const MAILCHIMP_METADATA = "https://login.mailchimp.com/oauth2/metadata"

/**
 * Mailchimp's token answer is `{ "access_token": "…", "expires_in": 0, "scope": null }`: the
 * token never expires, and there is no scope. `expires_in: 0` would read as "already
 * expired" and a null `scope` is not a valid RFC 6749 answer, so both are dropped.
 */
async function conformToken(response: Response): Promise<Response | undefined> {
  if (!response.ok) return undefined
  const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined
  if (!body || typeof body !== "object" || typeof body.access_token !== "string") return undefined
  const fixed: Record<string, unknown> = { token_type: "bearer", ...body }
  if (fixed.expires_in === 0) delete fixed.expires_in
  if (fixed.scope === null) delete fixed.scope
  return Response.json(fixed, { status: response.status })
}

/**
 * Sign in with Mailchimp.
 *
 * - Env: `AUTH_MAILCHIMP_ID`, `AUTH_MAILCHIMP_SECRET`.
 * - Register an app (Account → Extras → Registered apps) with the redirect URI
 *   `[origin]/auth/callback/mailchimp`. Use `127.0.0.1`, not `localhost`, while developing.
 * - The token endpoint takes the client secret in the body (`client_secret_post`); its answer
 *   is fixed up (see above). Tokens never expire.
 * - The profile is `/oauth2/metadata`, asked with Mailchimp's `Authorization: OAuth <token>`.
 *   The id is the login id; the name is the account name. Mailchimp reports a bad token there
 *   as a 200 with an `error` field, which fails the sign-in.
 *
 * @example
 * ```ts
 * import Mailchimp from "@portcullis/core/providers/mailchimp"
 * Auth(request, { providers: [Mailchimp()] })
 * ```
 */
export default function Mailchimp(options: OAuthUserConfig<MailchimpProfile> = {}): OAuthConfig<MailchimpProfile> {
  return {
    id: "mailchimp",
    name: "Mailchimp",
    type: "oauth",
    authorization: "https://login.mailchimp.com/oauth2/authorize",
    token: { url: "https://login.mailchimp.com/oauth2/token", conform: conformToken },
    client: { token_endpoint_auth_method: "client_secret_post" },
    userinfo: {
      url: MAILCHIMP_METADATA,
      async request({ tokens, fetch }) {
        const res = await fetch(MAILCHIMP_METADATA, { headers: { Authorization: `OAuth ${tokens.access_token}`, Accept: "application/json" } })
        if (!res.ok) throw new Error(`Mailchimp GET /oauth2/metadata failed with ${res.status}`)
        const body = (await res.json()) as MailchimpProfile & { error?: string }
        // Mailchimp answers a bad token with 200 and an `error` field.
        if (body.error) throw new Error(`Mailchimp GET /oauth2/metadata answered error ${body.error}`)
        return body
      },
    },
    profile(profile) {
      return { id: String(profile.login.login_id), name: profile.accountname ?? null, email: profile.login.email ?? null, image: null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
