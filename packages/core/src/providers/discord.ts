/**
 * Discord sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /users/@me` (https://discord.com/developers/docs/resources/user#user-object). */
export interface DiscordProfile {
  /** A snowflake, as a string. */
  id: string
  username: string
  /** `"0"` for accounts migrated to unique usernames. */
  discriminator: string
  global_name: string | null
  /** Avatar hash; `a_` prefix means animated. */
  avatar: string | null
  bot?: boolean
  mfa_enabled?: boolean
  locale?: string
  /** Whether the email has been verified. */
  verified?: boolean
  email?: string | null
  [key: string]: unknown
}

/** Discord's CDN URL for the avatar, or for the default avatar when none is set. */
function avatarUrl(p: DiscordProfile): string {
  if (p.avatar) {
    const ext = p.avatar.startsWith("a_") ? "gif" : "png"
    return `https://cdn.discordapp.com/avatars/${p.id}/${p.avatar}.${ext}`
  }
  // Default avatars: (id >> 22) % 6 for new usernames, discriminator % 5 for legacy ones.
  const index = p.discriminator === "0" ? Number((BigInt(p.id) >> 22n) % 6n) : Number(p.discriminator) % 5
  return `https://cdn.discordapp.com/embed/avatars/${index}.png`
}

/**
 * Sign in with Discord.
 *
 * - Env: `AUTH_DISCORD_ID`, `AUTH_DISCORD_SECRET`.
 * - Redirect to add in the application's OAuth2 settings: `[origin]/auth/callback/discord`.
 * - Scope `identify email`; `profile.verified` tells whether the email is verified.
 *
 * @example
 * ```ts
 * import Discord from "@portcullis/core/providers/discord"
 * Auth(request, { providers: [Discord()] })
 * ```
 */
export default function Discord(options: OAuthUserConfig<DiscordProfile> = {}): OAuthConfig<DiscordProfile> {
  return {
    id: "discord",
    name: "Discord",
    type: "oauth",
    authorization: { url: "https://discord.com/oauth2/authorize", params: { scope: "identify email" } },
    token: "https://discord.com/api/oauth2/token",
    userinfo: "https://discord.com/api/users/@me",
    profile(profile) {
      return { id: profile.id, name: profile.global_name ?? profile.username, email: profile.email ?? null, image: avatarUrl(profile) }
    },
    style: { bg: "#5865F2", text: "#fff" },
    options,
  }
}
