import { OAuthProfileParseError } from "../../errors.js"
import type { Account, Profile, TokenSet, User } from "../../base-types.js"
import type { OAuthRuntime } from "./provider.js"

/** What a provider's answer becomes: the user as the app sees them, and the account link. */
export interface MappedProfile {
  /** The user for callbacks and the session; its `id` is set by the sign-in step. */
  user: User
  /** The user's id at the provider: the account's `providerAccountId`. */
  providerAccountId: string
  /** The full normalised token set plus the link fields, as callbacks receive it. */
  account: Account
}

/** Account fields stored by default (Auth.js's selection). */
const storedFields = ["access_token", "id_token", "refresh_token", "expires_at", "scope", "token_type", "session_state"] as const

/** Auth.js's default `profile()`: standard OIDC claims, or `id` for plain OAuth APIs. */
function defaultProfile(profile: Profile): User & { id?: string } {
  return {
    id: stringId(profile.sub ?? profile.id),
    name: (profile.name ?? profile.nickname ?? profile.preferred_username ?? null) as string | null,
    email: profile.email ?? null,
    image: typeof profile.picture === "string" ? profile.picture : null,
  }
}

/**
 * Runs the provider's `profile()` (or the default) and builds the account. The provider's
 * id must be stable: without one (the profile has no `id`, `sub` or `id` claim) the
 * sign-in stops with {@link OAuthProfileParseError}, where Auth.js would invent a random
 * one and so create a new user on every sign-in.
 */
export async function mapProfile(rt: OAuthRuntime, profile: Profile, tokens: TokenSet): Promise<MappedProfile> {
  let mapped: User & { id?: string | number | null }
  try {
    mapped = rt.provider.profile ? await rt.provider.profile(profile, tokens) : defaultProfile(profile)
  } catch (error) {
    throw new OAuthProfileParseError(`The profile() of "${rt.id}" threw`, { providerId: rt.id, err: error as Error })
  }
  if (!mapped || typeof mapped !== "object") throw new OAuthProfileParseError(`The profile() of "${rt.id}" returned no object`, { providerId: rt.id })
  const providerAccountId = stringId(mapped.id) ?? stringId(profile.sub ?? profile.id)
  if (!providerAccountId) throw new OAuthProfileParseError(`The profile of "${rt.id}" has no id`, { providerId: rt.id })
  const { id: _id, ...rest } = mapped
  const email = typeof rest.email === "string" ? rest.email.toLowerCase() : (rest.email ?? null)
  const user: User = { ...rest, email }
  const account: Account = { ...tokens, provider: rt.id, type: rt.type, providerAccountId }
  return { user, providerAccountId, account }
}

/** The account row stored through the adapter: the provider's `account()` selection of the tokens. */
export function storedAccount(rt: OAuthRuntime, mapped: MappedProfile, tokens: TokenSet, userId: string): Account & { userId: string } {
  const selected = rt.provider.account ? (rt.provider.account(tokens) ?? {}) : pick(tokens)
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(selected)) if (value !== undefined) out[key] = value
  return { ...out, provider: rt.id, type: rt.type, providerAccountId: mapped.providerAccountId, userId }
}

function pick(tokens: TokenSet): Partial<Account> {
  const out: Record<string, unknown> = {}
  for (const field of storedFields) if (tokens[field] !== undefined) out[field] = tokens[field]
  return out
}

function stringId(value: unknown): string | undefined {
  if (typeof value === "string" && value) return value
  if (typeof value === "number" && Number.isFinite(value)) return String(value)
  return undefined
}
