/**
 * `client_credentials` (RFC 6749 §4.4): a confidential client acting for itself — an access
 * token only (no ID token, no refresh token), under a grant of its own so it can be revoked.
 * @module
 */
import { resourcesOf } from "../resources.js"
import { OAuthError } from "../errors.js"
import { randomToken } from "../random.js"
import type { GrantHandler } from "./types.js"
import { tokenResponse } from "./issue.js"

export const clientCredentials: GrantHandler = async ({ locals, client, body, issuer }) => {
  if (client.tokenEndpointAuthMethod === "none") throw new OAuthError("unauthorized_client", "client_credentials is for confidential clients")
  if (!(client.grantTypes as string[]).includes("client_credentials")) throw new OAuthError("unauthorized_client", "This client may not use client_credentials")
  const allowed = new Set(client.scope.split(" ").filter(Boolean))
  // The OpenID scopes are about a user: none here.
  const userScopes = new Set(["openid", "profile", "email", "offline_access", "organization"])
  const asked = [...new Set((body.scope ?? "").split(" ").filter(Boolean))]
  for (const s of asked) if (!allowed.has(s) || userScopes.has(s)) throw new OAuthError("invalid_scope", `scope ${s} is not allowed for this client`)
  const resources = resourcesOf(body.resource !== undefined ? [body.resource] : [], client, locals)
  const now = Date.now()
  const grantId = randomToken(16)
  await locals.store.createGrant({ id: grantId, clientId: client.clientId, scope: asked.join(" "), resources, createdAt: new Date(now), expiresAt: new Date(now + locals.options.ttl.accessToken * 1000) })
  return tokenResponse({ locals, issuer, client, grantId, scope: asked.join(" "), resources, withRefresh: false, withIdToken: false })
}
