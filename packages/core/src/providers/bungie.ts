/**
 * Bungie.net sign-in (Destiny players).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** A `GeneralUser` (https://bungie-net.github.io/#/components/schemas/User.GeneralUser), the fields sign-in uses. */
export interface BungieNetUser {
  /** The Bungie.net membership id, as a string (an int64). */
  membershipId: string
  uniqueName: string
  displayName: string
  /** Path on www.bungie.net, e.g. `/img/profile/avatars/default_avatar.gif`. */
  profilePicturePath: string
  profilePicture?: number
  locale?: string
  cachedBungieGlobalDisplayName?: string
  cachedBungieGlobalDisplayNameCode?: number
  [key: string]: unknown
}

/**
 * `GET /Platform/User/GetBungieAccount/{membershipId}/254/`: Bungie's envelope
 * (`ErrorCode`, `Message`…) around a `UserMembershipData`.
 */
export interface BungieProfile {
  Response: {
    bungieNetUser: BungieNetUser
    destinyMemberships?: Array<Record<string, unknown>>
    [key: string]: unknown
  }
  ErrorCode: number
  ErrorStatus: string
  Message: string
  [key: string]: unknown
}

/** Bungie options: the application's API key, sent as `X-API-Key` on every Platform call. */
export type BungieUserConfig = OAuthUserConfig<BungieProfile> & {
  /** Defaults to env `AUTH_BUNGIE_KEY`. */
  apiKey?: string
}

const ORIGIN = "https://www.bungie.net"

/**
 * Sign in with Bungie.net.
 *
 * - Env: `AUTH_BUNGIE_ID`, `AUTH_BUNGIE_SECRET` (OAuth client type "Confidential"), and the
 *   application's API key in `AUTH_BUNGIE_KEY` (or `apiKey`).
 * - Redirect URL of the application: `[origin]/auth/callback/bungie`. Bungie allows one, and
 *   it must be https.
 * - Scopes are set on the application at bungie.net/en/Application, not in the request.
 * - Every Platform API call needs the `X-API-Key` header. The token response names the
 *   user (`membership_id`); the profile is `GetBungieAccount/<membership_id>/254/`
 *   (254 = the Bungie.net membership type), read with the token and the key. An answer
 *   whose `ErrorCode` is not 1 (`Success`) fails the sign-in.
 * - No email: Bungie does not share it.
 *
 * @example
 * ```ts
 * import Bungie from "@portcullis/core/providers/bungie"
 * Auth(request, { providers: [Bungie({ apiKey: process.env.AUTH_BUNGIE_KEY })] })
 * ```
 */
export default function Bungie(options: BungieUserConfig = {}): OAuthConfig<BungieProfile> {
  const envKey = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.AUTH_BUNGIE_KEY
  return {
    id: "bungie",
    name: "Bungie",
    type: "oauth",
    authorization: { url: `${ORIGIN}/en/OAuth/Authorize`, params: { reauth: "true" } },
    token: `${ORIGIN}/Platform/App/OAuth/token/`,
    userinfo: {
      url: `${ORIGIN}/Platform/User/GetBungieAccount/{membershipId}/254/`,
      async request({ tokens, provider, fetch }) {
        const apiKey = (provider as { apiKey?: string }).apiKey ?? options.apiKey ?? envKey
        if (!apiKey) throw new Error("Bungie: no API key. Set AUTH_BUNGIE_KEY or pass apiKey to the provider")
        const membershipId = tokens.membership_id
        if (typeof membershipId !== "string" && typeof membershipId !== "number") {
          throw new Error("Bungie: the token response has no membership_id")
        }
        // Honour an overridden base (e.g. a test server) by filling in the template URL.
        const template = provider.userinfo?.url?.href ?? `${ORIGIN}/Platform/User/GetBungieAccount/{membershipId}/254/`
        const url = template.replace(encodeURIComponent("{membershipId}"), "{membershipId}").replace("{membershipId}", encodeURIComponent(String(membershipId)))
        const res = await fetch(url, { headers: { Authorization: `Bearer ${tokens.access_token}`, "X-API-Key": apiKey } })
        if (!res.ok) throw new Error(`Bungie GetBungieAccount failed with ${res.status}`)
        const body = (await res.json()) as BungieProfile
        if (body.ErrorCode !== 1 || !body.Response?.bungieNetUser) throw new Error(`Bungie GetBungieAccount answered ${body.ErrorStatus ?? "no user"}`)
        return body
      },
    },
    profile(profile) {
      const user = profile.Response.bungieNetUser
      const path = user.profilePicturePath
      const image = path ? (/^https?:\/\//.test(path) ? path : `${ORIGIN}${path.startsWith("/") ? "" : "/"}${path}`) : null
      return { id: String(user.membershipId), name: user.displayName ?? user.uniqueName ?? null, email: null, image }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
