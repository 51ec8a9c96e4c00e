/**
 * `authorize` (GET, and POST for requests sent as a form): the authorization code flow only.
 *
 * parse → check (client and redirect URI first: until both hold, every refusal is a page here,
 * never a redirect) → park the request as an interaction → resume: sign-in, re-authentication
 * (`prompt=login`, `max_age`), consent → issue a code to the redirect URI with `state` and
 * `iss` (RFC 9207).
 * @module
 */
import type { ExtensionRequest, ExtensionResponse, ExtensionSession } from "@portcullis/core/extension"
import { allowsGrant, findClient, redirectUriAllowed, type Client } from "../clients.js"
import { readInteraction, saveInteraction, takeInteraction, type Interaction } from "../interaction.js"
import { issuerOf, routesBase, type Locals } from "../locals.js"
import { consentPage, errorPage } from "../pages.js"
import { OAuthError } from "../errors.js"
import { resourcesOf } from "../resources.js"
import { randomToken, sha256Hex } from "../random.js"

type Req = ExtensionRequest<Locals>

/** `uri` with `params` added to its query (its own query kept, RFC 6749 §3.1.2). */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri)
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v)
  return url.href
}

function errorRedirect(req: Req, redirectUri: string, state: string | undefined, code: string, description: string): ExtensionResponse {
  return { redirect: withParams(redirectUri, { error: code, error_description: description, state, iss: issuerOf(req.locals, req) }) }
}

/** The request's parameters: a GET's query (repeated `resource`s kept) or a POST's form. */
function parametersOf(req: Req): { get(name: string): string | undefined; all(name: string): string[] } {
  if (req.method === "GET") {
    const params = req.url.searchParams
    return { get: (n) => params.get(n) ?? undefined, all: (n) => params.getAll(n) }
  }
  // A form as sent (core's `body` keeps only the last of repeated names, so several `resource`s are read from here).
  const form = req.form ?? new URLSearchParams()
  return { get: (n) => form.get(n) ?? undefined, all: (n) => form.getAll(n) }
}

function repeated(req: Req): boolean {
  const seen = new Set<string>()
  for (const name of (req.method === "GET" ? req.url.searchParams : (req.form ?? new URLSearchParams())).keys()) {
    if (name !== "resource" && seen.has(name)) return true
    seen.add(name)
  }
  return false
}

/** The scopes asked, checked against the configuration and the client: anything else is `invalid_scope` (never silently dropped). */
function scopesOf(asked: string | undefined, client: Client, locals: Locals): string[] {
  const allowed = new Set(client.scope.split(" ").filter(Boolean))
  if (asked === undefined || !asked.trim()) {
    if (allowed.has("openid")) return ["openid"]
    throw new OAuthError("invalid_scope", "scope is required")
  }
  const scopes = [...new Set(asked.split(" ").filter(Boolean))]
  for (const s of scopes) if (!locals.options.scopes.includes(s) || !allowed.has(s)) throw new OAuthError("invalid_scope", `scope ${s} is not allowed for this client`)
  return scopes
}

/** GET or POST `authorize`. */
export async function authorize(req: Req): Promise<ExtensionResponse> {
  const { locals } = req
  const params = parametersOf(req)
  // Each parameter once (RFC 6749 §3.1), `resource` excepted (RFC 8707): two `redirect_uri`s
  // read differently by two checks are how redirect tricks start.
  if (repeated(req)) return errorPage(req, "invalid-request")
  const client = await findClient(locals.clients, locals.store, params.get("client_id") ?? "")
  if (!client) return errorPage(req, "unknown-client")
  const redirectUri = params.get("redirect_uri")
  // OpenID Connect requires redirect_uri; a refusal never goes to a URI not registered exactly.
  if (!redirectUri || !redirectUriAllowed(client.redirectUris, redirectUri)) return errorPage(req, "invalid-redirect-uri")
  const state = params.get("state")
  try {
    const interaction = checkRequest(params, client, redirectUri, locals)
    const id = randomToken(24)
    await saveInteraction(locals, id, interaction)
    // A form post comes cross-site, without the browser's session (core's rule for such
    // routes): the browser continues with a GET of the parked request, as itself.
    if (req.method !== "GET") return { redirect: `${routesBase(req)}/authorize/resume?id=${encodeURIComponent(id)}` }
    return await resume(req, id, interaction, client)
  } catch (error) {
    if (error instanceof OAuthError) return errorRedirect(req, redirectUri, state, error.code, error.description)
    throw error
  }
}

function checkRequest(params: ReturnType<typeof parametersOf>, client: Client, redirectUri: string, locals: Locals): Interaction {
  if (params.get("request") !== undefined) throw new OAuthError("request_not_supported", "Request objects are not supported")
  if (params.get("request_uri") !== undefined) throw new OAuthError("request_uri_not_supported", "request_uri is not supported")
  const responseType = params.get("response_type")
  if (responseType !== "code") throw new OAuthError("unsupported_response_type", "Only response_type=code is supported")
  const mode = params.get("response_mode")
  if (mode !== undefined && mode !== "query") throw new OAuthError("invalid_request", "Only response_mode=query is supported")
  if (!allowsGrant(client, "authorization_code")) throw new OAuthError("unauthorized_client", "This client may not use the authorization code grant")
  const scopes = scopesOf(params.get("scope"), client, locals)
  const challenge = params.get("code_challenge")
  const method = params.get("code_challenge_method")
  if (challenge !== undefined) {
    // `plain` would let whoever sees the authorization request redeem the code.
    if (method !== "S256") throw new OAuthError("invalid_request", "code_challenge_method must be S256")
    if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) throw new OAuthError("invalid_request", "code_challenge must be a base64url SHA-256 (43 characters)")
  } else {
    if (method !== undefined) throw new OAuthError("invalid_request", "code_challenge_method without code_challenge")
    if (client.tokenEndpointAuthMethod === "none") throw new OAuthError("invalid_request", "PKCE (code_challenge with S256) is required for public clients")
  }
  const prompt = [...new Set((params.get("prompt") ?? "").split(" ").filter(Boolean))]
  if (prompt.includes("none") && prompt.length > 1) throw new OAuthError("invalid_request", "prompt=none cannot be combined with other values")
  let maxAge: number | undefined
  const rawMaxAge = params.get("max_age")
  if (rawMaxAge !== undefined) {
    if (!/^\d{1,9}$/.test(rawMaxAge)) throw new OAuthError("invalid_request", "max_age must be a whole number of seconds")
    maxAge = Number(rawMaxAge)
  }
  const resources = resourcesOf(params.all("resource"), client, locals)
  const nonce = params.get("nonce")
  const state = params.get("state")
  const loginHint = params.get("login_hint")
  for (const [name, value] of [["state", state], ["nonce", nonce], ["login_hint", loginHint]] as const) {
    if (value !== undefined && value.length > 512) throw new OAuthError("invalid_request", `${name} is too long`)
  }
  return {
    clientId: client.clientId,
    redirectUri,
    scope: scopes.join(" "),
    resources,
    ...(state !== undefined && { state }),
    ...(nonce !== undefined && { nonce }),
    ...(challenge !== undefined && { codeChallenge: challenge }),
    prompt,
    ...(maxAge !== undefined && { maxAge }),
    ...(loginHint !== undefined && { loginHint }),
    requestedAt: Date.now(),
  }
}

/** GET `authorize/resume?id=`: where sign-in and re-authentication come back to. */
export async function resumeRoute(req: Req): Promise<ExtensionResponse> {
  const id = req.query.id ?? ""
  const interaction = await readInteraction(req.locals, id)
  if (!interaction) return errorPage(req, "interaction-expired")
  const client = await findClient(req.locals.clients, req.locals.store, interaction.clientId)
  if (!client || !redirectUriAllowed(client.redirectUris, interaction.redirectUri)) return errorPage(req, "unknown-client")
  return resume(req, id, interaction, client)
}

const NOT_SIGNED_IN = "The user is not signed in"

/** Whether the user must be asked: first-party is a static client's trait (a registered one never skips consent). */
async function needsConsent(locals: Locals, client: Client, userId: string, interaction: Interaction, scopes: string[]): Promise<boolean> {
  if (client.firstParty && !client.dynamic) return false
  const consent = await locals.store.getConsent(userId, client.clientId)
  if (!consent || interaction.prompt.includes("consent")) return true
  const granted = new Set(consent.scope.split(" "))
  return scopes.some((s) => !granted.has(s)) || interaction.resources.some((r) => !consent.resources.includes(r))
}

/** Sign-in, re-authentication and consent as the interaction needs them, then the code. */
async function resume(req: Req, id: string, interaction: Interaction, client: Client): Promise<ExtensionResponse> {
  const { locals } = req
  const back = `${routesBase(req)}/authorize/resume?id=${encodeURIComponent(id)}`
  const refuse = (code: string, description: string) => errorRedirect(req, interaction.redirectUri, interaction.state, code, description)
  const silent = interaction.prompt.includes("none")
  const session = await req.session()
  if (!session) {
    if (silent) return refuse("login_required", NOT_SIGNED_IN)
    // The app's sign-in page when it has one (`pages.signIn`), as core's own refusals do.
    return { redirect: req.signInUrl(back, interaction.loginHint ? { email: interaction.loginHint } : undefined) }
  }
  const scopes = interaction.scope.split(" ")
  const consentNeeded = await needsConsent(locals, client, session.userId, interaction, scopes)
  // prompt=none from a client the user has not allowed learns nothing about the session: the
  // signed-out answer, word for word, whether signed in or not (with open registration any
  // site can be such a client, and consent_required would tell it "signed in here").
  if (silent && consentNeeded) return refuse("login_required", NOT_SIGNED_IN)
  const authTime = await req.authTime()
  // A re-authentication asked by this request counts once it happened after it: no loop.
  const fresh = authTime !== null && authTime.getTime() > interaction.requestedAt
  const tooOld = interaction.maxAge !== undefined && (authTime === null || Date.now() - authTime.getTime() > interaction.maxAge * 1000)
  if (!fresh && (interaction.prompt.includes("login") || tooOld)) {
    if (silent) return refuse("login_required", "The user must authenticate again")
    return { redirect: `${req.authUrl}/reauthenticate?callbackUrl=${encodeURIComponent(back)}` }
  }
  if (consentNeeded) {
    // The consent page is bound to this user: someone else cannot answer it.
    if (interaction.userId !== session.userId) await saveInteraction(locals, id, { ...interaction, userId: session.userId })
    return consentPage(req, { client, scopes, resources: interaction.resources, user: session.email ?? session.userId, action: `${routesBase(req)}/consent`, interaction: id, csrfToken: await req.csrfToken(), redirectUri: interaction.redirectUri })
  }
  return issueCode(req, id, interaction, client, session, authTime)
}

/** Takes the interaction and redirects with a code for a new grant. */
export async function issueCode(req: Req, id: string, interaction: Interaction, client: Client, session: ExtensionSession, authTime: Date | null): Promise<ExtensionResponse> {
  const { locals } = req
  if (!(await takeInteraction(locals, id))) return errorPage(req, "interaction-expired")
  const now = Date.now()
  const grantId = randomToken(16)
  const authSeconds = authTime ? Math.floor(authTime.getTime() / 1000) : undefined
  await locals.store.createGrant({
    id: grantId,
    clientId: client.clientId,
    userId: session.userId,
    scope: interaction.scope,
    resources: interaction.resources,
    ...(authSeconds !== undefined && { authTime: authSeconds }),
    sessionKey: session.key,
    createdAt: new Date(now),
    expiresAt: new Date(now + locals.options.ttl.grant * 1000),
  })
  const code = randomToken(32)
  await locals.store.saveCode({
    codeHash: await sha256Hex(code),
    grantId,
    clientId: client.clientId,
    userId: session.userId,
    redirectUri: interaction.redirectUri,
    scope: interaction.scope,
    resources: interaction.resources,
    ...(interaction.nonce !== undefined && { nonce: interaction.nonce }),
    ...(interaction.codeChallenge !== undefined && { codeChallenge: interaction.codeChallenge }),
    ...(authSeconds !== undefined && { authTime: authSeconds }),
    expiresAt: new Date(now + locals.options.ttl.code * 1000),
  })
  return { redirect: withParams(interaction.redirectUri, { code, state: interaction.state, iss: issuerOf(locals, req) }) }
}

/** POST `consent`: Allow or Deny, by the user the page was shown to. */
export async function consentRoute(req: Req): Promise<ExtensionResponse> {
  const { locals } = req
  const session = await req.requireSession()
  const id = typeof req.body.interaction === "string" ? req.body.interaction : ""
  const interaction = await readInteraction(locals, id)
  if (!interaction) return errorPage(req, "interaction-expired")
  if (interaction.userId !== session.userId) return errorPage(req, "not-yours", 403)
  const client = await findClient(locals.clients, locals.store, interaction.clientId)
  if (!client || !redirectUriAllowed(client.redirectUris, interaction.redirectUri)) return errorPage(req, "unknown-client")
  if (req.body.decision !== "allow") {
    if (!(await takeInteraction(locals, id))) return errorPage(req, "interaction-expired")
    await req.audit({ type: "consentDenied", outcome: "success", userId: session.userId, details: { clientId: client.clientId } })
    return errorRedirect(req, interaction.redirectUri, interaction.state, "access_denied", "The user denied the request")
  }
  const now = new Date()
  await locals.store.saveConsent({ userId: session.userId, clientId: client.clientId, scope: interaction.scope, resources: interaction.resources, createdAt: now, updatedAt: now })
  await req.audit({ type: "consentGiven", outcome: "success", userId: session.userId, details: { clientId: client.clientId, scope: interaction.scope } })
  return issueCode(req, id, interaction, client, session, await req.authTime())
}
