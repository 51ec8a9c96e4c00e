/**
 * A Bungie.net-shaped OAuth 2 server on a loopback port: `/en/OAuth/Authorize`,
 * `/Platform/App/OAuth/token/` (confidential client: HTTP Basic; answers with Bungie's
 * shape, `membership_id` included) and `/Platform/User/GetBungieAccount/{id}/254/`, which
 * like every Bungie Platform endpoint wants the application's `X-API-Key` next to the
 * bearer token and wraps its answer in Bungie's envelope (`Response`, `ErrorCode`,
 * `ErrorStatus`, `Message`, …). A wrong key is ErrorCode 2101 (`ApiInvalidOrExpiredKey`).
 */
import { randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { clientCredentials, json, readBody, s256, type Logged } from "./http.js"

export interface BungieServer {
  origin: string
  clientId: string
  clientSecret: string
  apiKey: string
  membershipId: string
  log: Logged[]
  close(): Promise<void>
}

export const guardian = {
  membershipId: "4611686018467284386",
  uniqueName: "Ada#1815",
  displayName: "Ada",
  profilePicturePath: "/img/profile/avatars/bungieday_27.jpg",
  profilePicture: 70588,
  locale: "en",
  cachedBungieGlobalDisplayName: "Ada",
  cachedBungieGlobalDisplayNameCode: 1815,
  isDeleted: false,
  firstAccess: "2017-09-06T17:31:35.193Z",
}

function envelope(response: unknown, errorCode = 1, errorStatus = "Success", message = "Ok") {
  return { Response: response, ErrorCode: errorCode, ThrottleSeconds: 0, ErrorStatus: errorStatus, Message: message, MessageData: {} }
}

export async function startBungieServer(): Promise<BungieServer> {
  const grants = new Map<string, { redirectUri?: string; challenge?: string }>()
  const tokens = new Set<string>()
  const state: BungieServer = {
    origin: "",
    clientId: "41234",
    clientSecret: "bungie-client-secret",
    apiKey: "0123456789abcdef0123456789abcdef",
    membershipId: guardian.membershipId,
    log: [],
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url!, "http://localhost")
    const body = new URLSearchParams(await readBody(req))
    state.log.push({ method: req.method!, path: url.pathname, query: url.searchParams, headers: req.headers, body })
    if (url.pathname === "/en/OAuth/Authorize") {
      const q = url.searchParams
      if (q.get("client_id") !== state.clientId || q.get("response_type") !== "code") return json(res, 400, { error: "invalid_request" })
      const code = randomBytes(16).toString("hex")
      grants.set(code, { redirectUri: q.get("redirect_uri") ?? undefined, challenge: q.get("code_challenge") ?? undefined })
      const back = new URL(q.get("redirect_uri")!)
      back.searchParams.set("code", code)
      if (q.has("state")) back.searchParams.set("state", q.get("state")!)
      res.writeHead(302, { location: back.href }).end()
      return
    }
    if (url.pathname === "/Platform/App/OAuth/token/" && req.method === "POST") {
      const [id, secret] = clientCredentials(req, body)
      if (id !== state.clientId || secret !== state.clientSecret) return json(res, 400, { error: "invalid_client", error_description: "AuthorizationCodeInvalid" })
      const grant = grants.get(body.get("code") ?? "")
      grants.delete(body.get("code") ?? "")
      if (!grant || body.get("grant_type") !== "authorization_code") return json(res, 400, { error: "invalid_grant", error_description: "AuthorizationCodeInvalid" })
      if (grant.challenge && (await s256(body.get("code_verifier") ?? "")) !== grant.challenge) return json(res, 400, { error: "invalid_grant" })
      const token = `CK${randomBytes(24).toString("base64")}`
      tokens.add(token)
      return json(res, 200, {
        access_token: token,
        token_type: "Bearer",
        expires_in: 3600,
        refresh_token: `CM${randomBytes(24).toString("base64")}`,
        refresh_expires_in: 7776000,
        membership_id: state.membershipId,
      })
    }
    const account = /^\/Platform\/User\/GetBungieAccount\/(\d+)\/254\/$/.exec(url.pathname)
    if (account) {
      if (req.headers["x-api-key"] !== state.apiKey) {
        return json(res, 401, envelope(undefined, 2101, "ApiInvalidOrExpiredKey", "Please use a valid API key."))
      }
      const auth = req.headers.authorization ?? ""
      if (!auth.startsWith("Bearer ") || !tokens.has(auth.slice(7))) return json(res, 401, envelope(undefined, 99, "WebAuthRequired", "Please sign-in to continue."))
      if (account[1] !== state.membershipId) return json(res, 200, envelope(undefined, 217, "UserCannotResolveCentralAccount", "We couldn't find the account you're looking for."))
      return json(res, 200, envelope({ bungieNetUser: guardian, destinyMemberships: [] }))
    }
    return json(res, 404, envelope(undefined, 4, "NotFound", "Not found"))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return state
}
