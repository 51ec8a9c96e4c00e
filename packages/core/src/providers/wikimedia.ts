/**
 * Wikimedia (Wikipedia and sister projects) sign-in with OAuth 2.0.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/**
 * A user group (`groups`): the common ones across Wikimedia wikis; a wiki may define more.
 * See https://meta.wikimedia.org/wiki/Special:GlobalGroupPermissions and each wiki's `Special:ListGroupRights`.
 */
export type WikimediaGroup =
  | "*"
  | "user"
  | "autoconfirmed"
  | "extendedconfirmed"
  | "confirmed"
  | "bot"
  | "flood"
  | "sysop"
  | "bureaucrat"
  | "steward"
  | "checkuser"
  | "oversight"
  | "rollbacker"
  | "accountcreator"
  | "import"
  | "transwiki"
  | "ipblock-exempt"
  | "propertycreator"
  | "wikidata-staff"
  | "translationadmin"
  | "flow-bot"
  | (string & {})

/** An OAuth grant the consumer holds (`grants`), by its MediaWiki name; `basic` is always there. */
export type WikimediaGrant =
  | "basic"
  | "blockusers"
  | "checkuser"
  | "createaccount"
  | "delete"
  | "editinterface"
  | "editmycssjs"
  | "editmyoptions"
  | "editmywatchlist"
  | "editpage"
  | "editprotected"
  | "editsiteconfig"
  | "globalblock"
  | "highvolume"
  | "import"
  | "mergehistory"
  | "oath"
  | "oversight"
  | "patrol"
  | "privateinfo"
  | "protect"
  | "rollback"
  | "sendemail"
  | "shortenurls"
  | "uploadfile"
  | "viewdeleted"
  | "viewmywatchlist"
  | (string & {})

/** A user right (`rights`), as `Special:ListGroupRights` names it; extensions add more. */
export type WikimediaRight =
  | "read"
  | "edit"
  | "createpage"
  | "createtalk"
  | "minoredit"
  | "move"
  | "move-subpages"
  | "movefile"
  | "upload"
  | "reupload"
  | "reupload-own"
  | "reupload-shared"
  | "upload_by_url"
  | "purge"
  | "writeapi"
  | "applychangetags"
  | "changetags"
  | "sendemail"
  | "editmyoptions"
  | "editmywatchlist"
  | "viewmywatchlist"
  | "editmyusercss"
  | "editmyuserjs"
  | "editmyuserjson"
  | "autoconfirmed"
  | "editsemiprotected"
  | "skipcaptcha"
  | "abusefilter-log"
  | "translate"
  | "transcode-reset"
  | "createaccount"
  | "autopatrol"
  | "autoreview"
  | "patrol"
  | "patrolmarks"
  | "rollback"
  | "markbotedits"
  | "bot"
  | "apihighlimits"
  | "noratelimit"
  | "nominornewtalk"
  | "ipblock-exempt"
  | "torunblocked"
  | "block"
  | "blockemail"
  | "delete"
  | "bigdelete"
  | "delete-redirect"
  | "deletedhistory"
  | "deletedtext"
  | "deletelogentry"
  | "deleterevision"
  | "browsearchive"
  | "undelete"
  | "editprotected"
  | "editinterface"
  | "editsitecss"
  | "editsitejs"
  | "editsitejson"
  | "editusercss"
  | "edituserjs"
  | "edituserjson"
  | "protect"
  | "movestable"
  | "mergehistory"
  | "import"
  | "importupload"
  | "nuke"
  | "tboverride"
  | "templateeditor"
  | "unwatchedpages"
  | "massmessage"
  | "globalblock"
  | "checkuser"
  | "checkuser-log"
  | "suppressionlog"
  | "viewsuppressed"
  | "edit-legal"
  | "mwoauth-authonlyprivate"
  | "item-merge"
  | "item-redirect"
  | "item-term"
  | "property-create"
  | "property-term"
  | (string & {})

/** `GET /w/rest.php/oauth2/resource/profile` (https://www.mediawiki.org/wiki/Extension:OAuth#OAuth_2). */
export interface WikimediaProfile {
  /** The central (global) user id. */
  sub: string
  username: string
  editcount: number
  confirmed_email: boolean
  blocked: boolean
  registered: string
  groups: WikimediaGroup[]
  rights: WikimediaRight[]
  grants: WikimediaGrant[]
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
