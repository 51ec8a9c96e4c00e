/**
 * `userinfo` (OpenID Connect Core §5.3), GET and POST with a Bearer access token: the token's
 * signature checked with the cached key, then one round of store reads (the grant and the
 * token's revocation, in parallel) and the user.
 * @module
 */
import type { ExtensionRequest, ExtensionResponse } from "@portcullis/core/extension"
import { userClaims } from "../claims.js"
import { invalidToken, OAuthError, oauthEndpoint } from "../errors.js"
import { issuerOf, type Locals } from "../locals.js"
import { verifyOwnAccessToken, type AccessTokenClaims } from "../tokens.js"

/** The bearer token of a request: the `Authorization` header, or (POST) the `access_token` form field — never both (RFC 6750 §2). */
export function bearerOf(req: ExtensionRequest<Locals>): string {
  const header = req.headers.get("authorization")
  const inBody = req.method === "POST" && typeof req.body.access_token === "string" ? (req.body.access_token as string) : undefined
  if (header && inBody) throw new OAuthError("invalid_request", "Send the token once", 400, 'Bearer error="invalid_request"')
  if (header) {
    const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim())
    if (!match) throw new OAuthError("invalid_request", "Authorization must be a Bearer token", 401, 'Bearer error="invalid_request"')
    return match[1]!
  }
  if (inBody) return inBody
  throw new OAuthError("invalid_token", "An access token is required", 401, "Bearer")
}

/** A live access token of ours: valid, its grant active, not revoked. */
export async function liveAccessToken(locals: Locals, issuer: string, token: string): Promise<AccessTokenClaims | null> {
  const claims = await verifyOwnAccessToken(locals, issuer, token)
  if (!claims) return null
  // A registered client can be deleted (RFC 7592 §2.3): its tokens end with it. Static
  // clients are in memory, so only a registered client's token costs the extra read.
  const [grant, revoked, client] = await Promise.all([
    locals.store.getGrant(claims.gid),
    locals.store.accessTokenRevoked(claims.jti),
    locals.clients.has(claims.client_id) ? true : locals.store.getClient(claims.client_id),
  ])
  return grant && !revoked && client ? claims : null
}

export async function userinfo(req: ExtensionRequest<Locals>): Promise<ExtensionResponse> {
  return oauthEndpoint(async () => {
    const { locals } = req
    const issuer = issuerOf(locals, req)
    const claims = await liveAccessToken(locals, issuer, bearerOf(req))
    if (!claims) throw invalidToken("The access token is invalid, expired or revoked")
    // A token asked for a resource (RFC 8707) is that resource's alone: the resource server
    // holding it cannot replay it here. Userinfo takes tokens whose audience is the provider.
    const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud]
    if (!audience.includes(issuer) && !(locals.options.defaultAudience && audience.includes(locals.options.defaultAudience))) throw invalidToken("The access token was issued for another audience")
    const scopes = claims.scope.split(" ")
    // A client_credentials token never has openid: it is about no user.
    if (!scopes.includes("openid")) throw new OAuthError("insufficient_scope", "The token was not granted openid", 403, 'Bearer error="insufficient_scope", scope="openid"')
    const user = await userClaims(locals, claims.sub, scopes)
    if (!user) throw invalidToken("The user no longer exists")
    return { json: user, headers: { "Cache-Control": "no-store" } }
  })
}
