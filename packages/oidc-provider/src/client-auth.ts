/**
 * Client authentication at the token, revocation and introspection endpoints: exactly the
 * method the client registered — `client_secret_basic` (RFC 6749 §2.3.1, id and secret
 * form-url-decoded), `client_secret_post`, `private_key_jwt` (RFC 7523, the assertion's `jti`
 * used once through the store) or `none` (a public client, which names itself only).
 * @module
 */
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from "jose"
import { findClient, type Client } from "./clients.js"
import { invalidClient, OAuthError } from "./errors.js"
import type { Locals } from "./locals.js"
import { constantTimeEqual, sha256Hex } from "./random.js"

const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
const ASSERTION_ALGS = ["RS256", "PS256", "ES256", "EdDSA"]

/** What a request presented. */
interface Presented {
  method: "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none"
  clientId: string
  secret?: string
  assertion?: string
}

/** `application/x-www-form-urlencoded` decoding (`+` is a space), as RFC 6749 §2.3.1 asks for Basic credentials. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, " "))
}

function presented(headers: Headers, body: Record<string, unknown>): Presented {
  const authorization = headers.get("authorization")
  const str = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : undefined)
  const found: Presented[] = []
  if (authorization && /^basic /i.test(authorization)) {
    let decoded: string
    try {
      decoded = atob(authorization.slice(6).trim())
    } catch {
      throw invalidClient("The Basic credentials are not base64")
    }
    const colon = decoded.indexOf(":")
    if (colon < 0) throw invalidClient("The Basic credentials have no colon")
    try {
      found.push({ method: "client_secret_basic", clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) })
    } catch {
      throw invalidClient("The Basic credentials are not form-url-encoded")
    }
  }
  if (str("client_secret") !== undefined) found.push({ method: "client_secret_post", clientId: str("client_id") ?? "", secret: str("client_secret")! })
  if (str("client_assertion") !== undefined || str("client_assertion_type") !== undefined) {
    if (str("client_assertion_type") !== ASSERTION_TYPE) throw invalidClient("client_assertion_type must be " + ASSERTION_TYPE)
    found.push({ method: "private_key_jwt", clientId: str("client_id") ?? "", assertion: str("client_assertion") ?? "" })
  }
  // One way per request (RFC 6749 §2.3): two are an attempt to confuse which one counts.
  if (found.length > 1) throw new OAuthError("invalid_request", "Use exactly one client authentication method")
  if (found.length === 1) {
    const one = found[0]!
    if (one.method === "client_secret_basic" && str("client_id") !== undefined && str("client_id") !== one.clientId) throw new OAuthError("invalid_request", "client_id differs from the authenticated client")
    return one
  }
  const clientId = str("client_id")
  if (!clientId) throw invalidClient("Client authentication is required")
  return { method: "none", clientId }
}

/**
 * The client a request authenticates as.
 * @param endpoint The URL of the endpoint being called (an assertion's audience may name it).
 * @throws OAuthError `invalid_client` (401) for any failure, audited once.
 */
export async function authenticateClient(locals: Locals, issuer: string, endpoint: string, headers: Headers, body: Record<string, unknown>, audit: (reason: string, clientId?: string) => Promise<void>): Promise<Client> {
  let shown: Presented | undefined
  try {
    shown = presented(headers, body)
    const client = await findClient(locals.clients, locals.store, shown.clientId)
    if (!client) throw invalidClient("Unknown client")
    if (client.tokenEndpointAuthMethod !== shown.method) throw invalidClient(`This client authenticates with ${client.tokenEndpointAuthMethod}`)
    if (shown.method === "client_secret_basic" || shown.method === "client_secret_post") {
      if (!client.secretHash || !constantTimeEqual(await sha256Hex(shown.secret ?? ""), client.secretHash)) throw invalidClient("Wrong client secret")
      if (client.secretExpiresAt && client.secretExpiresAt.getTime() <= Date.now()) throw invalidClient("The client secret expired")
    } else if (shown.method === "private_key_jwt") {
      await checkAssertion(locals, client, shown.assertion ?? "", [issuer, `${issuer}/token`, endpoint])
    }
    return client
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error
    await audit(error.description, shown?.clientId)
    // The challenge names the scheme the client tried (RFC 6749 §5.2): Basic only after Basic.
    throw error.code === "invalid_client" ? invalidClient(error.description, /^basic\b/i.test(headers.get("authorization") ?? "")) : error
  }
}

async function checkAssertion(locals: Locals, client: Client, assertion: string, audiences: string[]): Promise<void> {
  const keys = keySetOf(locals, client)
  let payload
  try {
    ;({ payload } = await jwtVerify(assertion, keys, {
      issuer: client.clientId,
      subject: client.clientId,
      audience: audiences,
      algorithms: ASSERTION_ALGS,
      clockTolerance: locals.options.clockSkew,
      requiredClaims: ["exp", "jti"],
    }))
  } catch {
    throw invalidClient("The client assertion is not valid")
  }
  // An assertion is short-lived: a long one would have to be remembered (its jti) for long.
  if (payload.exp! * 1000 > Date.now() + 600_000 + locals.options.clockSkew * 1000) throw invalidClient("The client assertion lives too long")
  const used = await locals.store.useOnce(`jti:${await sha256Hex(`${client.clientId}\u0000${payload.jti}`)}`, new Date((payload.exp! + locals.options.clockSkew) * 1000))
  if (!used) throw invalidClient("The client assertion was used before")
}

function keySetOf(locals: Locals, client: Client): JWTVerifyGetKey {
  if (client.jwks) return createLocalJWKSet(client.jwks as never)
  let set = locals.remoteKeys.get(client.clientId)
  if (!set) {
    set = createRemoteJWKSet(new URL(client.jwksUri!), { timeoutDuration: 5000, cooldownDuration: 30_000 })
    locals.remoteKeys.set(client.clientId, set)
  }
  return set
}
