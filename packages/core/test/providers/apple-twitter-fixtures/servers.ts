/**
 * Loopback servers shaped like Sign in with Apple and X's OAuth 2.0, for the apple-twitter
 * flow tests. The real services cannot be reached from the test environment; each server
 * reproduces what its provider documents and what the preset depends on:
 *
 * - Apple (https://developer.apple.com/documentation/signinwithapplerestapi): discovery at
 *   `/.well-known/openid-configuration` with `/auth/authorize`, `/auth/token`, `/auth/keys`,
 *   only `client_secret_post`, RS256 and no userinfo endpoint. `/auth/authorize` takes the
 *   scopes `name`/`email` (and `openid`) and `response_mode=form_post`, and answers with a
 *   page that auto-submits `code`, `state` and, on the user's first authorization only, the
 *   `user` JSON (name and email) to the redirect URI. `/auth/token` wants a form with
 *   `client_id`, `client_secret`, `code`, `grant_type` and `redirect_uri`; the client secret
 *   is an ES256 JWT signed with the developer's key, whose `iss` is the Team ID, `sub` the
 *   Services ID and `aud` `https://appleid.apple.com`, and which lives at most six months.
 *   The id_token carries `nonce`, `email`, `email_verified` and `is_private_email` as the
 *   strings Apple sends.
 * - X (https://docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token):
 *   `/i/oauth2/authorize` refuses a request without `state` or without an S256
 *   `code_challenge`; `POST /2/oauth2/token` wants HTTP Basic client authentication for a
 *   confidential client and the `code_verifier`; `/2/users/me` answers
 *   `{ data: { id, name, username } }`, plus the `user.fields` asked for.
 */
import { createHash, randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWK } from "jose"

export interface LogEntry {
  method: string
  path: string
  query: URLSearchParams
  headers: IncomingMessage["headers"]
  body: URLSearchParams
}

interface Started {
  baseUrl: string
  log: LogEntry[]
  close(): Promise<void>
}

type Handler = (req: IncomingMessage, url: URL, body: URLSearchParams, res: ServerResponse) => Promise<void> | void

async function start(handler: Handler): Promise<Started> {
  const log: LogEntry[] = []
  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, "http://localhost")
    const body = new URLSearchParams(await read(req))
    log.push({ method: req.method!, path: url.pathname, query: url.searchParams, headers: req.headers, body })
    try {
      await handler(req, url, body, res)
    } catch (error) {
      if (!res.headersSent) json(res, 500, { error: "server_error", error_description: String(error) })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

// ---------------------------------------------------------------------------------------
// Apple

/** The Apple ID the server signs in. */
export const appleUser = {
  sub: "001234.5c2f0e9a8b7d4c3e9f1a2b3c4d5e6f70.1207",
  email: "k3x9q2mz7p@privaterelay.appleid.com",
  firstName: "Ada",
  lastName: "Lovelace",
}

/** The developer account the app's client secret is made with. */
export interface AppleDeveloper {
  teamId: string
  keyId: string
  /** The `.p8` key, as the app holds it. */
  privateKey: CryptoKey
  /** Its public half, as Apple holds it. */
  publicKey: CryptoKey
}

export interface AppleServer extends Started {
  issuer: string
  /** The Services ID. */
  clientId: string
  developer: AppleDeveloper
  /** How the next id_tokens misbehave (cleared by the tests that set it). */
  behaviour: { claims?: (claims: Record<string, unknown>) => Record<string, unknown> }
  /** Forgets the user's earlier authorizations: the next one posts `user` again. */
  forgetConsent(): void
  /** Signs a client secret as the app does (overrides for the tests that break it). */
  clientSecret(overrides?: { iss?: string; sub?: string; aud?: string; lifetime?: number; key?: CryptoKey; kid?: string }): Promise<string>
}

/** The page Apple's authorize endpoint answers a form_post request with: an auto-submitting form. */
function autoSubmit(action: string, fields: Record<string, string>): string {
  const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join("")
  return `<!DOCTYPE html><html><body onload="document.forms[0].submit()"><form method="POST" action="${escape(action)}">${inputs}</form></body></html>`
}

/** The fields of an auto-submitting form page, and where it posts them. */
export function parseAutoSubmit(html: string): { action: URL; fields: Record<string, string> } {
  const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")
  const action = /<form method="POST" action="([^"]*)">/.exec(html)![1]!
  const fields: Record<string, string> = {}
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[unescape(m[1]!)] = unescape(m[2]!)
  return { action: new URL(unescape(action)), fields }
}

const APPLE_AUDIENCE = "https://appleid.apple.com"
const SIX_MONTHS = 15777000

export async function startAppleServer(): Promise<AppleServer> {
  const clientId = "com.example.portcullis.web"
  const signing = await generateKeyPair("RS256", { extractable: true })
  const signingJwk: JWK = { ...(await exportJWK(signing.publicKey)), kid: "YuyXoY", alg: "RS256", use: "sig" }
  const developerKeys = await generateKeyPair("ES256", { extractable: true })
  const developer: AppleDeveloper = { teamId: "A1B2C3D4E5", keyId: "ABC123DEFG", privateKey: developerKeys.privateKey, publicKey: developerKeys.publicKey }
  const codes = new Map<string, { redirectUri: string; nonce?: string }>()
  /** Users who already authorized this Services ID: Apple posts `user` only the first time. */
  const consented = new Set<string>()
  const behaviour: AppleServer["behaviour"] = {}
  let issuer = ""

  /** The client secret JWT, checked as Apple does; the reason it is refused, else undefined. */
  async function refuseClientSecret(secret: string, claimedClientId: string | null): Promise<string | undefined> {
    let header
    try {
      header = decodeProtectedHeader(secret)
    } catch {
      return "not a JWT"
    }
    if (header.alg !== "ES256" || header.kid !== developer.keyId) return "unknown key"
    try {
      const { payload } = await jwtVerify(secret, developer.publicKey, { algorithms: ["ES256"], issuer: developer.teamId, audience: APPLE_AUDIENCE, subject: clientId, requiredClaims: ["iat", "exp"] })
      if (payload.exp! - payload.iat! > SIX_MONTHS) return "lives longer than six months"
      if (claimedClientId !== payload.sub) return "client_id is not the secret's sub"
    } catch (error) {
      return (error as Error).message
    }
    return undefined
  }

  const started = await start(async (req, url, body, res) => {
    if (url.pathname === "/.well-known/openid-configuration") {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/auth/authorize`,
        token_endpoint: `${issuer}/auth/token`,
        revocation_endpoint: `${issuer}/auth/revoke`,
        jwks_uri: `${issuer}/auth/keys`,
        response_types_supported: ["code"],
        response_modes_supported: ["query", "fragment", "form_post"],
        subject_types_supported: ["pairwise"],
        id_token_signing_alg_values_supported: ["RS256"],
        scopes_supported: ["openid", "email", "name"],
        token_endpoint_auth_methods_supported: ["client_secret_post"],
        claims_supported: ["aud", "email", "email_verified", "exp", "iat", "is_private_email", "iss", "nonce", "nonce_supported", "real_user_status", "sub", "transfer_sub"],
      })
    }
    if (url.pathname === "/auth/keys") return json(res, 200, { keys: [signingJwk] })
    if (url.pathname === "/auth/authorize" && req.method === "GET") {
      const q = url.searchParams
      if (q.get("client_id") !== clientId) return json(res, 400, { error: "invalid_client" })
      if (q.get("response_type") !== "code") return json(res, 400, { error: "unsupported_response_type" })
      const scopes = (q.get("scope") ?? "").split(" ").filter(Boolean)
      if (scopes.some((s) => !["openid", "name", "email"].includes(s))) return json(res, 400, { error: "invalid_scope" })
      // Apple requires form_post whenever name or email is asked for.
      if (scopes.some((s) => s !== "openid") && q.get("response_mode") !== "form_post") return json(res, 400, { error: "invalid_request", error_description: "response_mode must be form_post when name or email scope is requested" })
      const redirectUri = q.get("redirect_uri") ?? ""
      const code = `c${randomBytes(16).toString("hex")}.0.nx.${randomBytes(8).toString("hex")}`
      codes.set(code, { redirectUri, nonce: q.get("nonce") ?? undefined })
      const fields: Record<string, string> = { code }
      if (q.has("state")) fields.state = q.get("state")!
      if (!consented.has(appleUser.sub) && scopes.some((s) => s !== "openid")) {
        consented.add(appleUser.sub)
        const user: Record<string, unknown> = {}
        if (scopes.includes("name")) user.name = { firstName: appleUser.firstName, lastName: appleUser.lastName }
        if (scopes.includes("email")) user.email = appleUser.email
        fields.user = JSON.stringify(user)
      }
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(autoSubmit(redirectUri, fields))
      return
    }
    if (url.pathname === "/auth/token" && req.method === "POST") {
      if (req.headers.authorization) return json(res, 400, { error: "invalid_client" })
      if (!(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) return json(res, 400, { error: "invalid_request" })
      if (body.get("client_id") !== clientId) return json(res, 400, { error: "invalid_client" })
      const refused = await refuseClientSecret(body.get("client_secret") ?? "", body.get("client_id"))
      if (refused) return json(res, 400, { error: "invalid_client", error_description: refused })
      if (body.get("grant_type") !== "authorization_code") return json(res, 400, { error: "unsupported_grant_type" })
      const grant = codes.get(body.get("code") ?? "")
      codes.delete(body.get("code") ?? "")
      if (!grant || grant.redirectUri !== body.get("redirect_uri")) return json(res, 400, { error: "invalid_grant" })
      const accessToken = `a${randomBytes(16).toString("hex")}.0.nx.${randomBytes(8).toString("hex")}`
      const now = Math.floor(Date.now() / 1000)
      let claims: Record<string, unknown> = {
        iss: issuer,
        aud: clientId,
        exp: now + 86400,
        iat: now,
        sub: appleUser.sub,
        at_hash: createHash("sha256").update(accessToken).digest().subarray(0, 16).toString("base64url"),
        email: appleUser.email,
        email_verified: "true",
        is_private_email: "true",
        auth_time: now,
        nonce_supported: true,
        ...(grant.nonce && { nonce: grant.nonce }),
      }
      if (behaviour.claims) claims = behaviour.claims(claims)
      const idToken = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: signingJwk.kid! }).sign(signing.privateKey)
      return json(res, 200, { access_token: accessToken, token_type: "Bearer", expires_in: 3600, refresh_token: `r${randomBytes(16).toString("hex")}.0.nx.${randomBytes(8).toString("hex")}`, id_token: idToken })
    }
    json(res, 404, { error: "not_found" })
  })
  issuer = started.baseUrl

  return {
    ...started,
    issuer,
    clientId,
    developer,
    behaviour,
    forgetConsent: () => consented.clear(),
    async clientSecret(o = {}) {
      const now = Math.floor(Date.now() / 1000)
      return new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: o.kid ?? developer.keyId })
        .setIssuer(o.iss ?? developer.teamId)
        .setSubject(o.sub ?? clientId)
        .setAudience(o.aud ?? APPLE_AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(now + (o.lifetime ?? 180 * 86400))
        .sign(o.key ?? developer.privateKey)
    },
  }
}

// ---------------------------------------------------------------------------------------
// X

export const xUser = {
  id: "1460981234567890123",
  name: "Ada Lovelace",
  username: "adalovelace",
  profile_image_url: "https://pbs.twimg.com/profile_images/1460981234567890123/aB3dE5fG_normal.jpg",
  created_at: "2021-11-17T14:03:11.000Z",
}

export interface XServer extends Started {
  clientId: string
  clientSecret: string
}

export async function startXServer(): Promise<XServer> {
  const clientId = "M1M5R3BMVy13QmpScXkzTUt5OE46MTpjaQ"
  const clientSecret = "x-oauth2-client-secret_With+Plus/And=Eq"
  const codes = new Map<string, { redirectUri: string; challenge: string; scope: string }>()
  const tokens = new Map<string, string>()
  const started = await start((req, url, body, res) => {
    if (url.pathname === "/i/oauth2/authorize" && req.method === "GET") {
      const q = url.searchParams
      if (q.get("client_id") !== clientId || q.get("response_type") !== "code") return json(res, 400, { error: "invalid_request" })
      // X refuses a request without state, or without an S256 (or plain) challenge; the tests want S256.
      if (!q.get("state")) return json(res, 400, { error: "invalid_request", error_description: "state is required" })
      if (!q.get("code_challenge") || q.get("code_challenge_method") !== "S256") return json(res, 400, { error: "invalid_request", error_description: "code_challenge with S256 is required" })
      const code = randomBytes(24).toString("base64url")
      codes.set(code, { redirectUri: q.get("redirect_uri") ?? "", challenge: q.get("code_challenge")!, scope: q.get("scope") ?? "" })
      const back = new URL(q.get("redirect_uri")!)
      back.searchParams.set("state", q.get("state")!)
      back.searchParams.set("code", code)
      res.writeHead(302, { location: back.href }).end()
      return
    }
    if (url.pathname === "/2/oauth2/token" && req.method === "POST") {
      const [id, secret] = basic(req.headers.authorization)
      if (id !== clientId || secret !== clientSecret) return json(res, 401, { error: "unauthorized_client", error_description: "Missing valid authorization header" })
      const code = body.get("code") ?? ""
      const grant = codes.get(code)
      codes.delete(code)
      if (body.get("grant_type") !== "authorization_code" || !grant || grant.redirectUri !== body.get("redirect_uri")) {
        return json(res, 400, { error: "invalid_request", error_description: "Value passed for the authorization code was invalid." })
      }
      if (createHash("sha256").update(body.get("code_verifier") ?? "").digest("base64url") !== grant.challenge) {
        return json(res, 400, { error: "invalid_request", error_description: "Value passed for the code verifier did not match the code challenge." })
      }
      const token = randomBytes(32).toString("base64url")
      tokens.set(token, xUser.id)
      return json(res, 200, { token_type: "bearer", expires_in: 7200, access_token: token, scope: grant.scope, ...(grant.scope.split(" ").includes("offline.access") && { refresh_token: randomBytes(32).toString("base64url") }) })
    }
    if (url.pathname === "/2/users/me" && req.method === "GET") {
      const auth = req.headers.authorization ?? ""
      if (!auth.startsWith("Bearer ") || !tokens.has(auth.slice(7))) return json(res, 401, { title: "Unauthorized", type: "about:blank", status: 401, detail: "Unauthorized" })
      const fields = (url.searchParams.get("user.fields") ?? "").split(",").filter(Boolean)
      const data: Record<string, unknown> = { id: xUser.id, name: xUser.name, username: xUser.username }
      for (const f of fields) if (f in xUser) data[f] = xUser[f as keyof typeof xUser]
      return json(res, 200, { data })
    }
    json(res, 404, { title: "Not Found Error", status: 404 })
  })
  return { ...started, clientId, clientSecret }
}

/** Client credentials from an HTTP Basic header (RFC 6749 §2.3.1: each part form-urlencoded). */
function basic(header: string | undefined): [string | undefined, string | undefined] {
  if (!header?.startsWith("Basic ")) return [undefined, undefined]
  const decoded = Buffer.from(header.slice(6), "base64").toString()
  const colon = decoded.indexOf(":")
  if (colon < 0) return [undefined, undefined]
  const part = (s: string) => decodeURIComponent(s.replace(/\+/g, " "))
  return [part(decoded.slice(0, colon)), part(decoded.slice(colon + 1))]
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString()))
    req.on("error", reject)
  })
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
}
