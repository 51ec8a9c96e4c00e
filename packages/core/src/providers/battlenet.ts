/**
 * Battle.net (Blizzard) sign-in, OpenID Connect.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Battle.net ID token claims (https://develop.battle.net/documentation/guides/using-oauth). */
export interface BattleNetProfile {
  /** The Battle.net account id, as a string. */
  sub: string
  /** The BattleTag, e.g. `Ada#1815`. */
  battle_tag: string
  [key: string]: unknown
}

/**
 * Battle.net issuers. `https://oauth.battle.net` serves every region but China;
 * `https://oauth.battlenet.com.cn` is China's. The regional ones are the older forms.
 * See https://develop.battle.net/documentation/guides/regionality-and-apis.
 */
export type BattleNetIssuer =
  | "https://oauth.battle.net"
  | "https://oauth.battlenet.com.cn"
  | "https://www.battlenet.com.cn/oauth"
  | `https://${"us" | "eu" | "kr" | "tw"}.battle.net/oauth`

/** Battle.net options: `issuer` picks the region (Auth.js's option, also `AUTH_BATTLENET_ISSUER`). */
export type BattleNetUserConfig = Omit<OAuthUserConfig<BattleNetProfile>, "issuer"> & {
  issuer?: BattleNetIssuer | (string & {})
}

/** The issuer used when none is configured. */
export const DEFAULT_BATTLENET_ISSUER: BattleNetIssuer = "https://oauth.battle.net"

/**
 * Sign in with Battle.net.
 *
 * - Env: `AUTH_BATTLENET_ID`, `AUTH_BATTLENET_SECRET`, `AUTH_BATTLENET_ISSUER`.
 * - Redirect URL of the client on develop.battle.net: `[origin]/auth/callback/battlenet`.
 * - `issuer` is region dependent, one of {@link BattleNetIssuer}. Auth.js requires it; here
 *   it defaults to `https://oauth.battle.net`, the global one. Each issuer's discovery
 *   document names that exact issuer, so pass the value for your region as is (no
 *   trailing slash).
 * - Scope `openid`: the ID token carries `sub` and `battle_tag`. Battle.net has no email
 *   and no picture.
 *
 * @example
 * ```ts
 * import BattleNet from "@portcullis/core/providers/battlenet"
 * BattleNet({ issuer: "https://eu.battle.net/oauth" })
 * ```
 */
export default function BattleNet(options: BattleNetUserConfig = {}): OAuthConfig<BattleNetProfile> {
  return {
    id: "battlenet",
    name: "Battle.net",
    type: "oidc",
    issuer: DEFAULT_BATTLENET_ISSUER,
    authorization: { params: { scope: "openid" } },
    profile(profile) {
      return { id: String(profile.sub), name: profile.battle_tag ?? null, email: null, image: null }
    },
    style: { bg: "#148eff", text: "#fff" },
    options: options as OAuthUserConfig<BattleNetProfile>,
  }
}
