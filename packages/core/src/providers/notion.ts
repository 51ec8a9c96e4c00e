/**
 * Notion sign-in through a public integration.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** What a person user has that a bot has not. */
export interface Person {
  /** Needs the "Read user information including email addresses" capability. */
  email?: string
  [key: string]: unknown
}

/** A Notion user (https://developers.notion.com/reference/user): a person, or a bot (an integration). */
export interface User {
  object: "user"
  id: string
  type?: "person" | "bot"
  name?: string | null
  avatar_url?: string | null
  /** Set when `type` is `"person"`. */
  person?: Person
  /** Set when `type` is `"bot"`. */
  bot?: { owner?: Owner; workspace_name?: string | null; [key: string]: unknown }
  [key: string]: unknown
}

/** Who owns an integration's token: a user (`owner: "user"`, what sign-in asks for) or a whole workspace. */
export interface Owner {
  type: "user" | "workspace"
  /** Set when `type` is `"user"`. */
  user?: User
  /** `true` when `type` is `"workspace"`. */
  workspace?: boolean
}

/** A Notion person user: the integration's owner, whom sign-in signs in. */
export interface NotionProfile extends User {
  type?: "person"
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
        // The token's bot user, whose owner is the person who authorized it.
        const me = (await res.json()) as User
        const owner = me.bot?.owner?.user ?? (tokens.owner as Owner | undefined)?.user
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
