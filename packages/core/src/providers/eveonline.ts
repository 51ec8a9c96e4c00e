/**
 * EVE Online (EVE SSO) sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET https://login.eveonline.com/oauth/verify`: the character the token was issued for. */
export interface EVEOnlineProfile {
  CharacterID: number
  CharacterName: string
  ExpiresOn: string
  Scopes: string
  TokenType: "Character" | string
  /** Changes when the character is transferred to another account. */
  CharacterOwnerHash: string
  IntellectualProperty: "EVE" | string
  [key: string]: unknown
}

/**
 * Sign in with an EVE Online character.
 *
 * - Env: `AUTH_EVEONLINE_ID`, `AUTH_EVEONLINE_SECRET`.
 * - Callback URL of the application on developers.eveonline.com:
 *   `[origin]/auth/callback/eveonline`.
 * - Scope `publicData`. A user is a *character*: the id is the CharacterID, the image is its
 *   portrait from EVE's image server. EVE accounts have no email.
 * - The profile comes from `/oauth/verify`, which CCP keeps for compatibility; the v2 access
 *   token is itself a JWT carrying the same `sub` (`CHARACTER:EVE:<id>`) and `name`.
 *
 * @example
 * ```ts
 * import EVEOnline from "@portcullis/core/providers/eveonline"
 * Auth(request, { providers: [EVEOnline()] })
 * ```
 */
export default function EVEOnline(options: OAuthUserConfig<EVEOnlineProfile> = {}): OAuthConfig<EVEOnlineProfile> {
  return {
    id: "eveonline",
    name: "EVE Online",
    type: "oauth",
    authorization: { url: "https://login.eveonline.com/v2/oauth/authorize", params: { scope: "publicData" } },
    token: "https://login.eveonline.com/v2/oauth/token",
    userinfo: "https://login.eveonline.com/oauth/verify",
    profile(profile) {
      return {
        id: String(profile.CharacterID),
        name: profile.CharacterName,
        email: null,
        image: `https://images.evetech.net/characters/${profile.CharacterID}/portrait?size=128`,
      }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
