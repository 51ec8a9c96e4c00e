/**
 * `authorization_code` (RFC 6749 §4.1.3, RFC 7636): the code redeemed once by the store; a
 * replay revokes the grant — every token issued from the code (§4.1.2). The code must be the
 * client's, `redirect_uri` the one of the request, the PKCE verifier its challenge's.
 * @module
 */
import { OAuthError } from "../errors.js"
import { sha256B64, sha256Hex } from "../random.js"
import type { GrantHandler } from "./types.js"
import { refreshAllowed, tokenResponse } from "./issue.js"

export const authorizationCode: GrantHandler = async ({ req, locals, client, body, issuer }) => {
  if (!(client.grantTypes as string[]).includes("authorization_code")) throw new OAuthError("unauthorized_client", "This client may not use the authorization code grant")
  const code = body.code
  if (!code) throw new OAuthError("invalid_request", "code is required")
  const verifier = body.code_verifier
  if (verifier !== undefined && !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) throw new OAuthError("invalid_grant", "code_verifier is malformed")
  const taken = await locals.store.takeCode(await sha256Hex(code))
  if (taken.status === "missing") throw new OAuthError("invalid_grant", "The code is unknown or expired")
  if (taken.status === "replayed") {
    await locals.store.revokeGrant(taken.code.grantId)
    await req.audit({ type: "codeReplayDetected", outcome: "failure", userId: taken.code.userId, reason: "authorization code redeemed twice: its grant was revoked", details: { clientId: taken.code.clientId } })
    throw new OAuthError("invalid_grant", "The code was already used")
  }
  const found = taken.code
  // A code issued to another client: the thief's client cannot redeem it (and the victim's
  // grant ends, as the code is now spent).
  if (found.clientId !== client.clientId) {
    await locals.store.revokeGrant(found.grantId)
    throw new OAuthError("invalid_grant", "The code was issued to another client")
  }
  if (body.redirect_uri !== found.redirectUri) throw new OAuthError("invalid_grant", "redirect_uri differs from the authorization request's")
  if (found.codeChallenge !== undefined) {
    if (verifier === undefined || (await sha256B64(verifier)) !== found.codeChallenge) throw new OAuthError("invalid_grant", "The PKCE code_verifier does not match")
  } else if (verifier !== undefined) {
    // A verifier for a request without a challenge: a downgrade attempt (RFC 9700 §2.1.1).
    throw new OAuthError("invalid_grant", "code_verifier sent for a code issued without PKCE")
  }
  const grant = await locals.store.getGrant(found.grantId)
  if (!grant) throw new OAuthError("invalid_grant", "The grant was revoked")
  return tokenResponse({
    locals,
    issuer,
    client,
    grantId: found.grantId,
    userId: found.userId,
    scope: found.scope,
    resources: found.resources,
    ...(found.authTime !== undefined && { authTime: found.authTime }),
    ...(found.nonce !== undefined && { nonce: found.nonce }),
    withRefresh: refreshAllowed(locals, client, found.scope),
    withIdToken: true,
  })
}
