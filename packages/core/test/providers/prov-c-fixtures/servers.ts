/**
 * Loopback servers shaped like WeChat, TikTok and VK, for the prov-c flow tests. The real
 * services cannot be reached from the test environment; each server reproduces what its
 * provider documents and what the preset depends on:
 *
 * - WeChat: `/connect/qrconnect` takes `appid` (not `client_id`); `GET /sns/oauth2/access_token`
 *   takes `appid`, `secret`, `code` and `grant_type` as query parameters and answers with
 *   `openid` and without `token_type` (errors are a 200 with `errcode`); `/sns/userinfo`
 *   takes `access_token` and `openid` as query parameters.
 * - TikTok: `/v2/auth/authorize/` takes `client_key`; `POST /v2/oauth/token/` takes a form
 *   with `client_key` and `client_secret` and answers with `open_id`; `/v2/user/info/` wraps
 *   the user in `data.user` next to an `error` object whose code is `"ok"`.
 * - VK: `/authorize` and `/access_token` need the API version `v`; the token answer has
 *   `user_id` and `email` but no `token_type`; `/method/users.get` needs `v` and wraps the
 *   user in `response: [...]`, errors in a 200 `{ error }`.
 */
import { createHash, randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface ProviderServer {
  baseUrl: string
  clientId: string
  clientSecret: string
  log: { method: string; path: string; query: URLSearchParams; headers: IncomingMessage["headers"]; body: URLSearchParams }[]
  close(): Promise<void>
}

type Handler = (req: IncomingMessage, url: URL, body: URLSearchParams, res: ServerResponse) => void

async function start(clientId: string, clientSecret: string, handler: Handler): Promise<ProviderServer> {
  const log: ProviderServer["log"] = []
  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, "http://localhost")
    const body = new URLSearchParams(await read(req))
    log.push({ method: req.method!, path: url.pathname, query: url.searchParams, headers: req.headers, body })
    handler(req, url, body, res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    clientId,
    clientSecret,
    log,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** Issues a code to `redirect_uri`, echoing `state`. */
function redirectWithCode(res: ServerResponse, url: URL, codes: Map<string, Record<string, string>>, extra: Record<string, string> = {}) {
  const code = randomBytes(10).toString("hex")
  codes.set(code, { redirectUri: url.searchParams.get("redirect_uri")!, challenge: url.searchParams.get("code_challenge") ?? "", ...extra })
  const back = new URL(url.searchParams.get("redirect_uri")!)
  back.searchParams.set("code", code)
  if (url.searchParams.has("state")) back.searchParams.set("state", url.searchParams.get("state")!)
  res.writeHead(302, { location: back.href }).end()
}

export const wechatUser = {
  openid: "oLVPpjqs9BhvzwPj5A-vTYAX3GLc",
  nickname: "小明",
  sex: 0,
  province: "",
  city: "",
  country: "",
  headimgurl: "https://thirdwx.qlogo.cn/mmopen/vi_32/Q0j4TwGTfTL/132",
  privilege: [],
  unionid: "o6_bmasdasdsad6_2sgVt7hMZOPfL",
}

export function startWeChatServer(): Promise<ProviderServer> {
  const appid = "wx520c15f417810387"
  const secret = "wechat-app-secret"
  const codes = new Map<string, Record<string, string>>()
  const tokens = new Map<string, string>()
  return start(appid, secret, (req, url, _body, res) => {
    if (url.pathname === "/connect/qrconnect") {
      if (url.searchParams.get("appid") !== appid) return json(res, 200, { errcode: 10016, errmsg: "appid missing" })
      if (url.searchParams.get("scope") !== "snsapi_login") return json(res, 200, { errcode: 10005, errmsg: "scope" })
      return redirectWithCode(res, url, codes)
    }
    if (url.pathname === "/sns/oauth2/access_token" && req.method === "GET") {
      const q = url.searchParams
      if (q.get("appid") !== appid || q.get("secret") !== secret) return json(res, 200, { errcode: 40125, errmsg: "invalid appsecret" })
      if (q.get("grant_type") !== "authorization_code") return json(res, 200, { errcode: 40002, errmsg: "invalid grant_type" })
      const code = q.get("code") ?? ""
      if (!codes.delete(code)) return json(res, 200, { errcode: 40029, errmsg: "invalid code" })
      const token = randomBytes(12).toString("hex")
      tokens.set(token, wechatUser.openid)
      return json(res, 200, { access_token: token, expires_in: 7200, refresh_token: randomBytes(12).toString("hex"), openid: wechatUser.openid, scope: "snsapi_login", unionid: wechatUser.unionid })
    }
    if (url.pathname === "/sns/userinfo") {
      const openid = tokens.get(url.searchParams.get("access_token") ?? "")
      if (!openid || openid !== url.searchParams.get("openid")) return json(res, 200, { errcode: 40003, errmsg: "invalid openid" })
      return json(res, 200, wechatUser)
    }
    json(res, 404, { errcode: -1, errmsg: "not found" })
  })
}

export const tiktokUser = {
  open_id: "723f24d7-e717-40f8-a2b6-cb8464cd23b4",
  avatar_url: "https://p16-sign-va.tiktokcdn.com/tos-maliva-avt-0068/b17f0e4b3a4f4a50993cf72cda8b88b8~c5_168x168.jpeg",
  display_name: "Tik Toker",
  username: "tiktoker",
}

export function startTikTokServer(): Promise<ProviderServer> {
  const clientKey = "aw3kzqpxvfzx0wmd"
  const clientSecret = "tiktok-client-secret"
  const codes = new Map<string, Record<string, string>>()
  const tokens = new Set<string>()
  return start(clientKey, clientSecret, (req, url, body, res) => {
    if (url.pathname === "/v2/auth/authorize/") {
      if (url.searchParams.get("client_key") !== clientKey) return json(res, 400, { error: "invalid_client_key" })
      return redirectWithCode(res, url, codes)
    }
    if (url.pathname === "/v2/oauth/token/" && req.method === "POST") {
      if (body.get("client_key") !== clientKey || body.get("client_secret") !== clientSecret) {
        return json(res, 200, { error: "invalid_client", error_description: "The client_key or client_secret is invalid.", log_id: "x" })
      }
      const grant = codes.get(body.get("code") ?? "")
      codes.delete(body.get("code") ?? "")
      if (!grant || grant.redirectUri !== body.get("redirect_uri") || body.get("grant_type") !== "authorization_code") {
        return json(res, 200, { error: "invalid_grant", error_description: "Authorization code is expired.", log_id: "x" })
      }
      if (grant.challenge && createHash("sha256").update(body.get("code_verifier") ?? "").digest("base64url") !== grant.challenge) {
        return json(res, 200, { error: "invalid_grant", error_description: "code_verifier", log_id: "x" })
      }
      const token = `act.${randomBytes(12).toString("hex")}`
      tokens.add(token)
      return json(res, 200, { access_token: token, expires_in: 86400, open_id: tiktokUser.open_id, refresh_expires_in: 31536000, refresh_token: `rft.${randomBytes(8).toString("hex")}`, scope: "user.info.basic,user.info.profile", token_type: "Bearer" })
    }
    if (url.pathname === "/v2/user/info/") {
      const auth = req.headers.authorization ?? ""
      if (!tokens.has(auth.replace(/^Bearer /, ""))) return json(res, 401, { data: {}, error: { code: "access_token_invalid", message: "", log_id: "x" } })
      const fields = (url.searchParams.get("fields") ?? "").split(",")
      const user = Object.fromEntries(Object.entries(tiktokUser).filter(([k]) => fields.includes(k)))
      return json(res, 200, { data: { user }, error: { code: "ok", message: "", log_id: "20220829194722CBE87ED59D524E727021" } })
    }
    json(res, 404, { error: "not_found" })
  })
}

export const vkUser = { id: 210700286, first_name: "Lindsey", last_name: "Stirling", photo_100: "https://sun1-16.userapi.com/s/v1/ig2/abc.jpg?size=100x100", can_access_closed: true, is_closed: false }

export function startVkServer(): Promise<ProviderServer> {
  const clientId = "51234567"
  const clientSecret = "vk-secure-key"
  const codes = new Map<string, Record<string, string>>()
  const tokens = new Set<string>()
  return start(clientId, clientSecret, (req, url, body, res) => {
    if (url.pathname === "/authorize") {
      if (url.searchParams.get("client_id") !== clientId || !url.searchParams.get("v")) return json(res, 400, { error: "invalid_request" })
      return redirectWithCode(res, url, codes)
    }
    if (url.pathname === "/access_token" && req.method === "POST") {
      if (!url.searchParams.get("v")) return json(res, 400, { error: "invalid_request", error_description: "v is required" })
      if (body.get("client_id") !== clientId || body.get("client_secret") !== clientSecret) return json(res, 401, { error: "invalid_client" })
      const grant = codes.get(body.get("code") ?? "")
      codes.delete(body.get("code") ?? "")
      if (!grant || grant.redirectUri !== body.get("redirect_uri")) return json(res, 401, { error: "invalid_grant", error_description: "Code is invalid or expired." })
      const token = `vk1.a.${randomBytes(12).toString("hex")}`
      tokens.add(token)
      return json(res, 200, { access_token: token, expires_in: 86400, user_id: vkUser.id, email: "Lindsey@Example.com" })
    }
    if (url.pathname === "/method/users.get") {
      if (!tokens.has((req.headers.authorization ?? "").replace(/^Bearer /, ""))) {
        return json(res, 200, { error: { error_code: 5, error_msg: "User authorization failed: no access_token passed." } })
      }
      if (!url.searchParams.get("v")) return json(res, 200, { error: { error_code: 8, error_msg: "Invalid request: v is required" } })
      return json(res, 200, { response: [vkUser] })
    }
    json(res, 404, { error: "not_found" })
  })
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let data = ""
    req.on("data", (c) => (data += c))
    req.on("end", () => resolve(data))
  })
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
}
