/**
 * WeChat (Weixin) sign-in: Official Account web pages or a Website App (QR code).
 * @module
 */
import type { TokenSet } from "../base-types.js"
import { processEnv } from "../lib/config/env.js"
import type { OAuthConfig, OAuthConfigInternal, OAuthUserConfig } from "./oauth.js"

/**
 * `GET /sns/userinfo`
 * (https://developers.weixin.qq.com/doc/oplatform/Website_App/WeChat_Login/Authorized_Interface_Calling_UnionID.html).
 */
export interface WeChatProfile {
  /** The user's id for this app (AppID). */
  openid: string
  nickname: string
  /** 1 male, 2 female, 0 unknown (no longer filled by WeChat for new authorizations). */
  sex: number
  province: string
  city: string
  country: string
  /** Avatar URL; empty when the user has none. */
  headimgurl: string
  privilege: string[]
  /** The user's id across all apps of one Open Platform account; only when the app is bound to one. */
  unionid?: string
  [key: string]: unknown
}

/** The token answer of `/sns/oauth2/access_token`: no `token_type`, and the user's `openid`. */
interface WeChatToken {
  access_token?: string
  expires_in?: number
  refresh_token?: string
  openid?: string
  scope?: string
  unionid?: string
  errcode?: number
  errmsg?: string
}

/** WeChat options: which kind of WeChat app the credentials belong to. */
export type WeChatUserConfig = OAuthUserConfig<WeChatProfile> & {
  /**
   * `"OfficialAccount"` (default): web pages opened inside WeChat, scope `snsapi_userinfo`.
   * `"WebsiteApp"`: a website app of the Open Platform, QR code login, scope `snsapi_login`.
   */
  platformType?: "OfficialAccount" | "WebsiteApp"
}

const TOKEN = "https://api.weixin.qq.com/sns/oauth2/access_token"
const USERINFO = "https://api.weixin.qq.com/sns/userinfo"


/**
 * Sign in with WeChat.
 *
 * - Env: `AUTH_WECHAT_ID` (the AppID), `AUTH_WECHAT_SECRET` (the AppSecret).
 * - Register the callback's *domain* (网页授权域名 / 授权回调域) in the WeChat console; the
 *   callback URL is `[origin]/auth/callback/wechat`.
 * - WeChat is not standard OAuth 2: the authorization URL takes `appid` (not `client_id`), so
 *   pass `clientId` in code or set `AUTH_WECHAT_ID` in `process.env` (read when the preset is
 *   built); the code is exchanged with `GET /sns/oauth2/access_token?appid&secret&code`, whose
 *   answer carries the user's `openid` and no `token_type`; `/sns/userinfo` wants the access
 *   token and `openid` as query parameters.
 * - Checks: `state` only (WeChat has no PKCE).
 * - id = `unionid` (as Auth.js) when the app is bound to an Open Platform account, else `openid`.
 *   WeChat gives no email.
 *
 * @example
 * ```ts
 * import WeChat from "@portcullis/core/providers/wechat"
 * WeChat({ clientId: process.env.AUTH_WECHAT_ID, clientSecret: process.env.AUTH_WECHAT_SECRET, platformType: "WebsiteApp" })
 * ```
 */
export default function WeChat(options: WeChatUserConfig = {}): OAuthConfig<WeChatProfile> {
  const website = options.platformType === "WebsiteApp"
  const appid = options.clientId ?? processEnv().AUTH_WECHAT_ID
  return {
    id: "wechat",
    name: "WeChat",
    type: "oauth",
    checks: ["state"],
    authorization: {
      // `#wechat_redirect` is required by WeChat's authorize page.
      url: website ? "https://open.weixin.qq.com/connect/qrconnect#wechat_redirect" : "https://open.weixin.qq.com/connect/oauth2/authorize#wechat_redirect",
      params: { appid, scope: website ? "snsapi_login" : "snsapi_userinfo" },
    },
    token: {
      url: TOKEN,
      async request(context) {
        const { provider, params } = context
        const url = new URL(provider.token?.url ?? TOKEN)
        url.searchParams.set("appid", provider.clientId ?? "")
        url.searchParams.set("secret", provider.clientSecret ?? "")
        url.searchParams.set("code", params.get("code") ?? "")
        url.searchParams.set("grant_type", "authorization_code")
        const res = await context.fetch(url, { headers: { Accept: "application/json" } })
        if (!res.ok) throw new Error(`WeChat /sns/oauth2/access_token failed with ${res.status}`)
        // WeChat answers errors with 200 and an errcode.
        const body = (await res.json()) as WeChatToken
        if (body.errcode) throw new Error(`WeChat /sns/oauth2/access_token: errcode ${body.errcode}`)
        return { ...body, token_type: "bearer" } as TokenSet
      },
    },
    userinfo: {
      url: USERINFO,
      async request({ tokens, provider, fetch }) {
        const url = new URL(provider.userinfo?.url ?? USERINFO)
        // WeChat takes the token only as a query parameter.
        url.searchParams.set("access_token", tokens.access_token ?? "")
        url.searchParams.set("openid", String(tokens.openid ?? ""))
        url.searchParams.set("lang", "zh_CN")
        const res = await fetch(url, { headers: { Accept: "application/json" } })
        if (!res.ok) throw new Error(`WeChat /sns/userinfo failed with ${res.status}`)
        const profile = (await res.json()) as WeChatProfile & { errcode?: number }
        if (profile.errcode) throw new Error(`WeChat /sns/userinfo: errcode ${profile.errcode}`)
        return profile
      },
    },
    profile(profile) {
      return { id: profile.unionid || profile.openid, name: profile.nickname || null, email: null, image: profile.headimgurl || null }
    },
    style: { bg: "#fff", text: "#000" },
    options,
  }
}
