/**
 * `refresh_token` (RFC 6749 §6): rotation with reuse detection — the store rotates the token
 * in one step; a token rotated before is a theft's sign, and the store revokes the whole
 * family (the grant) in the same step (RFC 9700 §4.14.2). The scope may narrow, never widen;
 * `resource` may narrow the audience to one of the grant's resources.
 * @module
 */
import { resourcesOf } from "../resources.js"
import { OAuthError } from "../errors.js"
import { sha256Hex } from "../random.js"
import type { GrantHandler } from "./types.js"
import { tokenResponse } from "./issue.js"

export const refreshToken: GrantHandler = async ({ req, locals, client, body, issuer }) => {
  if (!(client.grantTypes as string[]).includes("refresh_token")) throw new OAuthError("unauthorized_client", "This client may not use refresh tokens")
  const presented = body.refresh_token
  if (!presented) throw new OAuthError("invalid_request", "refresh_token is required")
  const hash = await sha256Hex(presented)
  // Read first only to check the client and the scope before spending the token; the
  // single-use step is the store's rotation below.
  const current = await locals.store.getRefreshToken(hash)
  if (current && current.clientId !== client.clientId) throw new OAuthError("invalid_grant", "The refresh token was issued to another client")
  let scope = current?.scope ?? ""
  if (current && body.scope !== undefined) {
    const granted = new Set(current.scope.split(" "))
    const asked = [...new Set(body.scope.split(" ").filter(Boolean))]
    if (!asked.length || asked.some((s) => !granted.has(s))) throw new OAuthError("invalid_scope", "The scope may only narrow what was granted")
    scope = asked.join(" ")
  }
  // `resource` may narrow the audience to one the grant holds — checked before the rotation
  // too: a refused request must not spend the token (the client's next refresh would look
  // like reuse and end the family).
  let resources = current?.resources ?? []
  if (current && body.resource !== undefined) {
    resources = resourcesOf([body.resource], client, locals)
    if (!current.resources.includes(body.resource)) throw new OAuthError("invalid_target", "resource was not granted")
  }
  const next = locals.random.token(32)
  const rotation = await locals.store.rotateRefreshToken(hash, {
    tokenHash: await sha256Hex(next),
    grantId: current?.grantId ?? "",
    clientId: client.clientId,
    ...(current?.userId !== undefined && { userId: current.userId }),
    // The family keeps the grant's scope: a narrowed request narrows this response only.
    scope: current?.scope ?? "",
    resources: current?.resources ?? [],
    ...(current?.authTime !== undefined && { authTime: current.authTime }),
    expiresAt: new Date(Date.now() + locals.options.ttl.refreshToken * 1000),
  })
  if (rotation.status === "reused") {
    await req.audit({ type: "refreshReuseDetected", outcome: "failure", ...(rotation.previous.userId && { userId: rotation.previous.userId }), reason: "a rotated refresh token was presented again: its family was revoked", details: { clientId: rotation.previous.clientId } })
    throw new OAuthError("invalid_grant", "The refresh token was already used")
  }
  if (rotation.status === "missing" || !current) throw new OAuthError("invalid_grant", "The refresh token is unknown, expired or revoked")
  const previous = rotation.previous
  if (previous.clientId !== client.clientId) throw new OAuthError("invalid_grant", "The refresh token was issued to another client")
  return tokenResponse({
    locals,
    issuer,
    client,
    grantId: previous.grantId,
    ...(previous.userId !== undefined && { userId: previous.userId }),
    scope,
    resources,
    ...(previous.authTime !== undefined && { authTime: previous.authTime }),
    refreshToken: next,
    withRefresh: true,
    withIdToken: true,
  })
}
