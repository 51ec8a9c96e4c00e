/**
 * Local stand-ins for the SaaS providers of the prov-b presets (LINE, Mail.ru, HubSpot, a
 * Mastodon instance, and the Loops/Mailgun mail APIs). The real services cannot be reached
 * from the test machines, so one node:http server on 127.0.0.1 plays them, shaped after each
 * provider's public API documentation: the authorize redirect, the token endpoint's real
 * answer (quirks included), and the profile endpoint.
 *
 * Fixed-origin providers (`https://api.line.me/…`) are reached through `reroute`, a fetch the
 * test passes as `[customFetch]`: it sends `https://<host>/<path>` to
 * `<server>/<host>/<path>`, so the routes below are keyed by host and path. The browser's
 * front-channel hop to the authorize URL is rerouted the same way with `frontChannel`.
 */
import { createHash, randomBytes } from "node:crypto"
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from "jose"

export interface Seen {
  method: string
  /** `host/path` for rerouted calls, `path` for direct ones (Mastodon). */
  route: string
  query: URLSearchParams
  headers: IncomingHttpHeaders
  /** The raw request body. */
  text: string
  /** The body as a form, when it is one. */
  form: URLSearchParams
}

export type Handler = (req: Seen, res: ServerResponse) => void | Promise<void>

export interface StandIn {
  origin: string
  seen: Seen[]
  /** Routes by `host/path` (or `/path` for a server reached directly); replaceable per test. */
  routes: Map<string, Handler>
  /** A fetch that sends any https URL to this server (for `[customFetch]`). */
  reroute: typeof fetch
  /** The local URL standing in for an https front-channel URL. */
  frontChannel(url: URL | string): URL
  close(): Promise<void>
}

export async function startStandIn(): Promise<StandIn> {
  const seen: Seen[] = []
  const routes = new Map<string, Handler>()
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url!, "http://stand-in")
    const text = await read(req)
    const isForm = (req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")
    const request: Seen = { method: req.method!, route: url.pathname.replace(/^\/+/, ""), query: url.searchParams, headers: req.headers, text, form: new URLSearchParams(isForm ? text : "") }
    seen.push(request)
    const handler = routes.get(request.route) ?? [...routes].find(([key]) => key.endsWith("*") && request.route.startsWith(key.slice(0, -1)))?.[1]
    if (!handler) return json(res, 404, { error: "not_found", route: request.route })
    await handler(request, res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const frontChannel = (input: URL | string) => {
    const url = new URL(input)
    if (url.protocol !== "https:") throw new Error(`not an https URL: ${url.href}`)
    return new URL(`${origin}/${url.host}${url.pathname}${url.search}`)
  }
  return {
    origin,
    seen,
    routes,
    frontChannel,
    reroute: (async (input: string | URL | Request, init?: RequestInit) => {
      if (input instanceof Request) {
        const target = frontChannel(input.url)
        return fetch(new Request(target, input), init)
      }
      return fetch(frontChannel(input), init)
    }) as typeof fetch,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body))
}

export function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let data = ""
    req.on("data", (c) => (data += c))
    req.on("end", () => resolve(data))
  })
}

/** Client credentials from HTTP Basic, else from the form body. */
export function clientCredentials(req: Seen): { id: string | null; secret: string | null; via: "basic" | "post" } {
  const auth = req.headers.authorization
  if (auth?.startsWith("Basic ")) {
    const [id, secret] = Buffer.from(auth.slice(6), "base64").toString().split(":").map((s) => decodeURIComponent(s.replace(/\+/g, " ")))
    return { id: id ?? null, secret: secret ?? null, via: "basic" }
  }
  return { id: req.form.get("client_id"), secret: req.form.get("client_secret"), via: "post" }
}

/** One authorization the stand-in granted. */
export interface Grant {
  redirectUri: string
  challenge?: string
  nonce?: string
  scope?: string
}

/**
 * The authorize → code part every provider shares: remembers the grant and redirects back
 * with `code` and `state`. Refuses an unknown client like the real ones do (no redirect).
 */
export function authorizeHandler(clientId: string, codes: Map<string, Grant>): Handler {
  return (req, res) => {
    if (req.query.get("client_id") !== clientId) return json(res, 400, { error: "invalid_client" })
    if (req.query.get("response_type") !== "code") return json(res, 400, { error: "unsupported_response_type" })
    const code = randomBytes(12).toString("hex")
    codes.set(code, {
      redirectUri: req.query.get("redirect_uri")!,
      challenge: req.query.get("code_challenge") ?? undefined,
      nonce: req.query.get("nonce") ?? undefined,
      scope: req.query.get("scope") ?? undefined,
    })
    const back = new URL(req.query.get("redirect_uri")!)
    back.searchParams.set("code", code)
    if (req.query.has("state")) back.searchParams.set("state", req.query.get("state")!)
    res.writeHead(302, { location: back.href }).end()
  }
}

/** Redeems a code: one use, same redirect_uri, PKCE S256 when a challenge was sent. */
export function redeem(req: Seen, codes: Map<string, Grant>): Grant | undefined {
  const code = req.form.get("code") ?? ""
  const grant = codes.get(code)
  codes.delete(code)
  if (!grant || grant.redirectUri !== req.form.get("redirect_uri")) return undefined
  if (grant.challenge && createHash("sha256").update(req.form.get("code_verifier") ?? "").digest("base64url") !== grant.challenge) return undefined
  return grant
}

// LINE Login v2.1 (https://developers.line.biz/en/reference/line-login/)

export const lineUser = { sub: "U4af4980629ea4d2ac7f8b7a8f2d6a1b1", name: "Taro Line", picture: "https://profile.line-scdn.net/0h8bZ0" }

export interface LineStandIn {
  channelId: string
  channelSecret: string
}

/** LINE's discovery document, JWKS (ES256), authorize, and token endpoint with its ID tokens. */
export async function installLine(standIn: StandIn): Promise<LineStandIn> {
  const channelId = "1656543210"
  const channelSecret = "line-channel-secret-0123456789abcdef"
  const codes = new Map<string, Grant>()
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true })
  const kid = "a2a459aec5b65fa4e8ea4b1e6b1f5f0f"
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" }
  standIn.routes.set("access.line.me/.well-known/openid-configuration", (_req, res) =>
    json(res, 200, {
      issuer: "https://access.line.me",
      authorization_endpoint: "https://access.line.me/oauth2/v2.1/authorize",
      token_endpoint: "https://api.line.me/oauth2/v2.1/token",
      revocation_endpoint: "https://api.line.me/oauth2/v2.1/revoke",
      userinfo_endpoint: "https://api.line.me/oauth2/v2.1/userinfo",
      scopes_supported: ["openid", "profile", "email"],
      jwks_uri: "https://api.line.me/oauth2/v2.1/certs",
      response_types_supported: ["code"],
      subject_types_supported: ["pairwise"],
      id_token_signing_alg_values_supported: ["ES256"],
      code_challenge_methods_supported: ["S256"],
    }),
  )
  standIn.routes.set("api.line.me/oauth2/v2.1/certs", (_req, res) => json(res, 200, { keys: [jwk] }))
  standIn.routes.set("access.line.me/oauth2/v2.1/authorize", authorizeHandler(channelId, codes))
  standIn.routes.set("api.line.me/oauth2/v2.1/token", async (req, res) => {
    if (req.method !== "POST" || req.form.get("grant_type") !== "authorization_code") return json(res, 400, { error: "invalid_request" })
    // LINE documents client_id and client_secret as body parameters.
    const client = clientCredentials(req)
    if (client.via !== "post" || client.id !== channelId || client.secret !== channelSecret) return json(res, 400, { error: "invalid_client" })
    const grant = redeem(req, codes)
    if (!grant) return json(res, 400, { error: "invalid_grant", error_description: "invalid authorization code" })
    const now = Math.floor(Date.now() / 1000)
    const claims = { iss: "https://access.line.me", sub: lineUser.sub, aud: channelId, exp: now + 3600, iat: now, auth_time: now, amr: ["linesso"], name: lineUser.name, picture: lineUser.picture, ...(grant.nonce && { nonce: grant.nonce }) }
    // Web login signs with HS256 under the channel secret unless id_token_key_type=JWK asks for ES256.
    const idToken = req.form.get("id_token_key_type") === "JWK"
      ? await new SignJWT(claims).setProtectedHeader({ alg: "ES256", typ: "JWT", kid }).sign(privateKey as CryptoKey)
      : await new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(new TextEncoder().encode(channelSecret))
    json(res, 200, { access_token: `line-at-${randomBytes(8).toString("hex")}`, expires_in: 2592000, id_token: idToken, refresh_token: "line-rt", scope: grant.scope ?? "openid profile", token_type: "Bearer" })
  })
  return { channelId, channelSecret }
}

// Mail.ru OAuth (https://help.mail.ru/developers/oauth)

export const mailRuUser = { id: "1234567890123456789", client_id: "mailru-app", gender: "m", name: "Ivan Petrov", nickname: "ivan", locale: "ru_RU", first_name: "Ivan", last_name: "Petrov", email: "ivan.petrov@mail.ru", birthday: "01.01.1990", image: "https://filin.mail.ru/pic?email=ivan.petrov%40mail.ru" }

/** Mail.ru: token answer without token_type, /userinfo reading the token from the query. */
export function installMailRu(standIn: StandIn): { clientId: string; clientSecret: string; tokens: Set<string> } {
  const clientId = "mailru-app"
  const clientSecret = "mailru-secret"
  const codes = new Map<string, Grant>()
  const tokens = new Set<string>()
  standIn.routes.set("oauth.mail.ru/login", authorizeHandler(clientId, codes))
  standIn.routes.set("oauth.mail.ru/token", (req, res) => {
    const client = clientCredentials(req)
    if (client.id !== clientId || client.secret !== clientSecret) return json(res, 401, { error: "invalid_client" })
    if (!redeem(req, codes)) return json(res, 400, { error: "invalid_grant", error_description: "token not found or expired" })
    const token = `mailru-at-${randomBytes(8).toString("hex")}`
    tokens.add(token)
    // The documented answer: no token_type.
    json(res, 200, { expires_in: 3600, refresh_token: "mailru-rt", access_token: token })
  })
  standIn.routes.set("oauth.mail.ru/userinfo", (req, res) => {
    // A bad token is reported in the body with HTTP 200.
    if (!tokens.has(req.query.get("access_token") ?? "")) return json(res, 200, { error: "invalid_token", error_description: "token not found" })
    json(res, 200, mailRuUser)
  })
  return { clientId, clientSecret, tokens }
}

// HubSpot OAuth v1 (https://developers.hubspot.com/docs/api-reference/legacy/authentication/oauth-tokens/v1/)

export const hubSpotMetadata = { user: "Ada@Example.com", hub_domain: "example-4242.hs-sites.com", scopes: ["oauth"], hub_id: 4242, app_id: 456789, expires_in: 1800, user_id: 9876543, token_type: "access" }

/** HubSpot: client_secret in the body, and the profile only as the token's metadata. */
export function installHubSpot(standIn: StandIn): { clientId: string; clientSecret: string } {
  const clientId = "7fff1e36-2d40-4ae1-bbb1-5266d59564fb"
  const clientSecret = "hubspot-secret"
  const codes = new Map<string, Grant>()
  const tokens = new Set<string>()
  standIn.routes.set("app.hubspot.com/oauth/authorize", authorizeHandler(clientId, codes))
  standIn.routes.set("api.hubapi.com/oauth/v1/token", (req, res) => {
    const client = clientCredentials(req)
    if (client.via !== "post" || client.id !== clientId || client.secret !== clientSecret) return json(res, 400, { status: "BAD_CLIENT_ID", message: "missing or unknown client id" })
    if (!redeem(req, codes)) return json(res, 400, { status: "BAD_AUTH_CODE", message: "missing or unknown auth code" })
    const token = `CJSP5qf1KhICAQEYs-gDIIGOBii1hQIyGQ${randomBytes(6).toString("hex")}`
    tokens.add(token)
    json(res, 200, { token_type: "bearer", refresh_token: "6f18f21e-a743-4509-b7fd-1a5e632fffa1", access_token: token, expires_in: 1800 })
  })
  standIn.routes.set("api.hubapi.com/oauth/v1/access-tokens/*", (req, res) => {
    const token = decodeURIComponent(req.route.slice("api.hubapi.com/oauth/v1/access-tokens/".length))
    if (!tokens.has(token)) return json(res, 404, { status: "error", message: "The OAuth token used to make this call expired 0 second(s) ago." })
    json(res, 200, { token, ...hubSpotMetadata })
  })
  return { clientId, clientSecret }
}

// A Mastodon instance (https://docs.joinmastodon.org/methods/oauth/), reached directly on its loopback origin.

export const mastodonAccount = {
  id: "109302436954721982", username: "ada", acct: "ada", display_name: "Ada Lovelace", locked: false, bot: false,
  created_at: "2022-11-07T00:00:00.000Z", note: "<p>Analyst</p>", url: "https://mastodon.example/@ada",
  avatar: "https://files.mastodon.example/accounts/avatars/ada.gif", avatar_static: "https://files.mastodon.example/accounts/avatars/ada.png",
  header: "https://files.mastodon.example/headers/ada.png", header_static: "https://files.mastodon.example/headers/ada.png",
  followers_count: 3, following_count: 5, statuses_count: 42, source: { privacy: "public", sensitive: false, language: "en", note: "Analyst", fields: [] },
}

/** Mastodon's `/oauth/authorize`, `/oauth/token` and `/api/v1/accounts/verify_credentials`. */
export function installMastodon(standIn: StandIn): { clientId: string; clientSecret: string } {
  const clientId = "mastodon-client-id"
  const clientSecret = "mastodon-client-secret"
  const codes = new Map<string, Grant>()
  const tokens = new Set<string>()
  standIn.routes.set("oauth/authorize", authorizeHandler(clientId, codes))
  standIn.routes.set("oauth/token", (req, res) => {
    const client = clientCredentials(req)
    if (client.id !== clientId || client.secret !== clientSecret) return json(res, 401, { error: "invalid_client", error_description: "Client authentication failed due to unknown client." })
    const grant = redeem(req, codes)
    if (!grant) return json(res, 400, { error: "invalid_grant", error_description: "The provided authorization grant is invalid." })
    const token = `ZA-${randomBytes(12).toString("hex")}`
    tokens.add(token)
    json(res, 200, { access_token: token, token_type: "Bearer", scope: grant.scope ?? "read", created_at: Math.floor(Date.now() / 1000) })
  })
  standIn.routes.set("api/v1/accounts/verify_credentials", (req, res) => {
    const auth = req.headers.authorization ?? ""
    if (!auth.startsWith("Bearer ") || !tokens.has(auth.slice(7))) return json(res, 401, { error: "The access token is invalid" })
    json(res, 200, mastodonAccount)
  })
  return { clientId, clientSecret }
}
