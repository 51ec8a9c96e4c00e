/**
 * Mail.ru sign-in (OAuth 2).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET https://oauth.mail.ru/userinfo` (https://help.mail.ru/developers/oauth): the user's basic data. */
export interface MailRuProfile {
  /** The Mail.ru user id. */
  id: string
  client_id?: string
  email: string
  name: string
  first_name?: string
  last_name?: string
  nickname?: string
  gender?: "m" | "f" | string
  birthday?: string
  locale?: string
  /** The avatar URL. */
  image?: string
  [key: string]: unknown
}

/** Mail.ru's userinfo endpoint (the token goes in its query). */
export const MAILRU_USERINFO = "https://oauth.mail.ru/userinfo"

/**
 * Mail.ru's token answer (`{ "access_token", "refresh_token", "expires_in" }`) has no
 * `token_type`; it is a bearer token, so the preset adds that. Errors pass through.
 */
async function withTokenType(response: Response): Promise<Response | undefined> {
  if (!response.ok) return undefined
  const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined
  if (!body || typeof body !== "object" || typeof body.access_token !== "string" || body.token_type) return undefined
  return Response.json({ ...body, token_type: "bearer" }, { status: response.status })
}

/**
 * Sign in with Mail.ru (OAuth Mail, now run by VK ID).
 *
 * - Env: `AUTH_MAILRU_ID`, `AUTH_MAILRU_SECRET`.
 * - Redirect URI of the app (https://o2.mail.ru/app/): `[origin]/auth/callback/mailru`,
 *   character for character.
 * - Scope `userinfo`.
 * - Quirks handled: the token answer has no `token_type` (added), and `/userinfo` takes the
 *   token as the `access_token` query parameter, not a header, and reports a bad token as an
 *   `error` field, which fails the sign-in.
 *
 * @example
 * ```ts
 * import MailRu from "@portcullis/core/providers/mailru"
 * Auth(request, { providers: [MailRu()] })
 * ```
 */
export default function MailRu(options: OAuthUserConfig<MailRuProfile> = {}): OAuthConfig<MailRuProfile> {
  return {
    id: "mailru",
    name: "Mail.ru",
    type: "oauth",
    authorization: { url: "https://oauth.mail.ru/login", params: { scope: "userinfo" } },
    token: { url: "https://oauth.mail.ru/token", conform: withTokenType },
    userinfo: {
      url: MAILRU_USERINFO,
      async request({ tokens, provider, fetch }) {
        const url = new URL(String(provider.userinfo?.url ?? MAILRU_USERINFO))
        url.searchParams.set("access_token", String(tokens.access_token))
        const res = await fetch(url, { headers: { Accept: "application/json" } })
        if (!res.ok) throw new Error(`Mail.ru GET /userinfo failed with ${res.status}`)
        const body = (await res.json()) as MailRuProfile & { error?: string }
        if (body.error) throw new Error(`Mail.ru GET /userinfo answered error ${body.error}`)
        return body
      },
    },
    profile(profile) {
      return { id: String(profile.id), name: profile.name ?? null, email: profile.email ?? null, image: profile.image ?? null }
    },
    style: { bg: "#005FF9", text: "#fff" },
    options,
  }
}
