/**
 * `revoke` (RFC 7009): a refresh token revokes its grant (the family and every access token
 * from it); an access token is marked revoked by its `jti` until it expires. Only the client
 * the token was issued to can revoke it; anything else (unknown, another client's, malformed)
 * is answered 200 all the same (§2.2: no oracle).
 * @module
 */
import type { ExtensionRequest, ExtensionResponse } from "@portcullis/core/extension"
import { authenticateClient } from "../client-auth.js"
import { OAuthError, oauthEndpoint } from "../errors.js"
import { issuerOf, routesBase, type Locals } from "../locals.js"
import { sha256Hex } from "../random.js"
import { verifyOwnAccessToken } from "../tokens.js"
import { clientAuthAudit, formOf } from "./token.js"

export async function revoke(req: ExtensionRequest<Locals>): Promise<ExtensionResponse> {
  return oauthEndpoint(async () => {
    const { locals } = req
    await locals.ready
    const issuer = issuerOf(locals, req)
    const body = formOf(req)
    const client = await authenticateClient(locals, issuer, `${routesBase(req)}/revoke`, req.headers, req.body, clientAuthAudit(req))
    if (!body.token) throw new OAuthError("invalid_request", "token is required")
    const hint = body.token_type_hint
    const tryRefresh = async () => {
      const found = await locals.store.getRefreshToken(await sha256Hex(body.token!))
      if (!found || found.clientId !== client.clientId) return false
      await locals.store.revokeGrant(found.grantId)
      return true
    }
    const tryAccess = async () => {
      const claims = await verifyOwnAccessToken(locals, issuer, body.token!)
      if (!claims || claims.client_id !== client.clientId) return false
      await locals.store.revokeAccessToken(claims.jti, new Date(claims.exp * 1000))
      return true
    }
    if (hint === "access_token") (await tryAccess()) || (await tryRefresh())
    else (await tryRefresh()) || (await tryAccess())
    return { json: {}, headers: { "Cache-Control": "no-store" } }
  })
}
