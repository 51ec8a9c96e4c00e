/**
 * `introspect` (RFC 7662), for confidential clients only (a public client has nothing to
 * prove who asks). A client sees only tokens issued to it, or access tokens naming it (or a
 * resource it `serves`, as a resource server) in their audience; anything else is
 * `{ active: false }`, the same as an unknown token.
 * @module
 */
import type { ExtensionRequest, ExtensionResponse } from "@portcullis/core/extension"
import { authenticateClient } from "../client-auth.js"
import { OAuthError, invalidClient, oauthEndpoint } from "../errors.js"
import { issuerOf, routesBase, type Locals } from "../locals.js"
import { sha256Hex } from "../random.js"
import { clientAuthAudit, formOf } from "./token.js"
import { liveAccessToken } from "./userinfo.js"

export async function introspect(req: ExtensionRequest<Locals>): Promise<ExtensionResponse> {
  return oauthEndpoint(async () => {
    const { locals } = req
    await locals.ready
    const issuer = issuerOf(locals, req)
    const body = formOf(req)
    const client = await authenticateClient(locals, issuer, `${routesBase(req)}/introspect`, req.headers, req.body, clientAuthAudit(req))
    if (client.tokenEndpointAuthMethod === "none") throw invalidClient("Introspection is for confidential clients")
    if (!body.token) throw new OAuthError("invalid_request", "token is required")
    const inactive = { json: { active: false }, headers: { "Cache-Control": "no-store" } }
    const claims = body.token.split(".").length === 3 ? await liveAccessToken(locals, issuer, body.token) : null
    if (claims) {
      const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud]
      // Only the resources a static client is configured to serve: `resources` (its own or the
      // provider's) is what a client may ask tokens for, not what it may inspect — a relying
      // party allowed to call an API must not read other clients' tokens for it. Read from the
      // configuration only: a stored client serves nothing, whatever its record holds (a
      // registration, a migration, an edited row); static clients are found first, so a
      // configured id is never a stored client.
      const serves = locals.clients.get(client.clientId)?.serves ?? []
      if (claims.client_id !== client.clientId && !audience.includes(client.clientId) && !audience.some((a) => serves.includes(a))) return inactive
      return {
        json: { active: true, token_type: "Bearer", scope: claims.scope, client_id: claims.client_id, sub: claims.sub, aud: claims.aud, iss: claims.iss, exp: claims.exp, iat: claims.iat, jti: claims.jti, ...(claims.auth_time !== undefined && { auth_time: claims.auth_time }) },
        headers: { "Cache-Control": "no-store" },
      }
    }
    const refresh = await locals.store.getRefreshToken(await sha256Hex(body.token))
    if (!refresh || refresh.clientId !== client.clientId) return inactive
    return {
      json: { active: true, token_type: "refresh_token", scope: refresh.scope, client_id: refresh.clientId, ...(refresh.userId && { sub: refresh.userId }), iss: issuer, exp: Math.floor(refresh.expiresAt.getTime() / 1000) },
      headers: { "Cache-Control": "no-store" },
    }
  })
}
