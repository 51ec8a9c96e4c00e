/**
 * Wikimedia (Wikipedia and sister projects) sign-in with OAuth 2.0.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /w/rest.php/oauth2/resource/profile` (https://www.mediawiki.org/wiki/Extension:OAuth#OAuth_2). */
export interface WikimediaProfile {
  /** The central (global) user id. */
  sub: string
  username: string
  editcount: number
  confirmed_email: boolean
  blocked: boolean
  registered: string
  groups: string[]
  rights: string[]
  grants: string[]
  /** Only with the "User identity verification, with access to real name and email" grant. */
  realname?: string
  email?: string
  [key: string]: unknown
}

/**
 * Sign in with a Wikimedia account (one account for Wikipedia, Commons, Wikidata…).
 *
 * - Env: `AUTH_WIKIMEDIA_ID`, `AUTH_WIKIMEDIA_SECRET`.
 * - Register an OAuth 2.0 consumer at `https://meta.wikimedia.org/wiki/Special:OAuthConsumerRegistration/propose/oauth2`
 *   with the callback `[origin]/auth/callback/wikimedia`; it can be used by its owner before
 *   it is approved.
 * - Scope `#default`: MediaWiki's name for "every grant the consumer was registered with".
 *   Auth.js sends an empty scope, which MediaWiki treats the same way; an empty scope is not
 *   possible here (the core would send the OIDC `openid profile email`, which MediaWiki refuses
 *   with `invalid_scope`). To ask for less, set `authorization.params.scope` to grant names.
 * - Name = `username`. Email only with the identity grant that includes email (`realname`
 *   too), and `confirmed_email` says whether it is confirmed.
 *
 * @example
 * ```ts
 * import Wikimedia from "@portcullis/core/providers/wikimedia"
 * Auth(request, { providers: [Wikimedia()] })
 * ```
 */
export default function Wikimedia(options: OAuthUserConfig<WikimediaProfile> = {}): OAuthConfig<WikimediaProfile> {
  return {
    id: "wikimedia",
    name: "Wikimedia",
    type: "oauth",
    authorization: { url: "https://meta.wikimedia.org/w/rest.php/oauth2/authorize", params: { scope: "#default" } },
    token: "https://meta.wikimedia.org/w/rest.php/oauth2/access_token",
    userinfo: "https://meta.wikimedia.org/w/rest.php/oauth2/resource/profile",
    profile(profile) {
      return { id: String(profile.sub), name: profile.username ?? null, email: profile.email ?? null, image: null }
    },
    style: { bg: "#fff", text: "#000" },
    options,
  }
}
