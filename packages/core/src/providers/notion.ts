/**
 * Notion sign-in through a public integration.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** A Notion person user (https://developers.notion.com/reference/user): the integration's owner. */
export interface NotionProfile {
  object: "user"
  id: string
  type?: "person"
  name?: string | null
  avatar_url?: string | null
  /** `email` needs the "Read user information including email addresses" capability. */
  person?: { email?: string }
  [key: string]: unknown
}

/** `GET /v1/users/me`: the token's bot user, whose owner is the person who authorized it. */
interface NotionBotUser {
  bot?: { owner?: { type?: string; user?: NotionProfile } }
}

const ME = "https://api.notion.com/v1/users/me"

/**
 * Sign in with Notion.
 *
 * - Env: `AUTH_NOTION_ID` (OAuth client ID), `AUTH_NOTION_SECRET`.
 * - Redirect URI of the public integration: `[origin]/auth/callback/notion`.
 * - The token endpoint wants HTTP Basic client authentication (`client_secret_basic`), and
 *   `owner=user` is required on the authorization URL.
 * - Notion has no "me" for people: the access token belongs to a bot, and the signed-in
 *   user is that bot's owner, `bot.owner.user` of `/v1/users/me` (falling back to the
 *   `owner.user` of the token response).
 *
 * @example
 * ```ts
 * import Notion from "@portcullis/core/providers/notion"
 * Auth(request, { providers: [Notion()] })
 * ```
 */
export default function Notion(options: OAuthUserConfig<NotionProfile> = {}): OAuthConfig<NotionProfile> {
  return {
    id: "notion",
    name: "Notion",
    type: "oauth",
    authorization: { url: "https://api.notion.com/v1/oauth/authorize", params: { owner: "user" } },
    token: "https://api.notion.com/v1/oauth/token",
    client: { token_endpoint_auth_method: "client_secret_basic" },
    userinfo: {
      url: ME,
      async request({ tokens, fetch }) {
        const res = await fetch(ME, {
          // Every Notion API call must name an API version.
          headers: { Authorization: `Bearer ${tokens.access_token}`, "Notion-Version": "2022-06-28" },
        })
        if (!res.ok) throw new Error(`Notion GET /v1/users/me failed with ${res.status}`)
        const me = (await res.json()) as NotionBotUser
        const owner = me.bot?.owner?.user ?? (tokens.owner as { user?: NotionProfile } | undefined)?.user
        if (!owner?.id) throw new Error("Notion: the token is not owned by a user (workspace-level integration?)")
        return owner
      },
    },
    profile(profile) {
      return { id: profile.id, name: profile.name ?? null, email: profile.person?.email ?? null, image: profile.avatar_url ?? null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
