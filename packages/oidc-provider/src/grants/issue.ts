/**
 * The token response for a grant: the access token (audience = the resources, else the
 * default audience), the ID token when `openid` was granted to a user, and a refresh token when
 * the policy allows one.
 * @module
 */
import type { Client } from "../clients.js"
import { userClaims } from "../claims.js"
import { OAuthError } from "../errors.js"
import type { Locals } from "../locals.js"
import { sha256Hex } from "../random.js"
import { signAccessToken, signIdToken } from "../tokens.js"

export interface Issue {
  locals: Locals
  issuer: string
  client: Client
  grantId: string
  userId?: string
  scope: string
  resources: string[]
  authTime?: number
  nonce?: string
  /** A refresh token already minted by the caller (rotation), else one when the policy says so. */
  refreshToken?: string
  withRefresh: boolean
  withIdToken: boolean
}

export function audienceOf(locals: Locals, issuer: string, resources: string[]): string[] {
  return resources.length ? resources : [locals.options.defaultAudience ?? issuer]
}

export async function tokenResponse(input: Issue): Promise<Record<string, unknown>> {
  const { locals, issuer, client } = input
  const scopes = input.scope.split(" ").filter(Boolean)
  const access = await signAccessToken(locals, issuer, {
    sub: input.userId ?? client.clientId,
    clientId: client.clientId,
    scope: input.scope,
    audience: audienceOf(locals, issuer, input.resources),
    grantId: input.grantId,
    ...(input.authTime !== undefined && { authTime: input.authTime }),
  })
  const answer: Record<string, unknown> = { access_token: access.token, token_type: "Bearer", expires_in: locals.options.ttl.accessToken, scope: input.scope }
  if (input.withIdToken && input.userId && scopes.includes("openid")) {
    // The granted scopes' claims ride in the ID token as well as at userinfo (OpenID Connect
    // Core §2 lets an ID token carry other claims): relying parties that build their profile
    // from the ID token alone — Auth.js's and Portcullis's own `type: "oidc"` providers do by
    // default — otherwise sign people in with no email or name (test/clients/authjs.test.ts).
    const { sub: _sub, ...claims } = (await userClaims(locals, input.userId, scopes)) ?? {}
    if (_sub === undefined) throw new OAuthError("invalid_grant", "The user no longer exists")
    answer.id_token = await signIdToken(locals, issuer, client, {
      sub: input.userId,
      claims,
      ...(input.nonce !== undefined && { nonce: input.nonce }),
      ...(input.authTime !== undefined && { authTime: input.authTime }),
      accessToken: access.token,
    })
  }
  if (input.refreshToken) answer.refresh_token = input.refreshToken
  else if (input.withRefresh) {
    const token = locals.random.token(32)
    await locals.store.saveRefreshToken({
      tokenHash: await sha256Hex(token),
      grantId: input.grantId,
      clientId: client.clientId,
      ...(input.userId !== undefined && { userId: input.userId }),
      scope: input.scope,
      resources: input.resources,
      ...(input.authTime !== undefined && { authTime: input.authTime }),
      expiresAt: new Date(Date.now() + locals.options.ttl.refreshToken * 1000),
    })
    answer.refresh_token = token
  }
  return answer
}

/** Whether a code exchange gets a refresh token: the client may refresh, and `offline_access` was granted (or the policy is `always`). */
export function refreshAllowed(locals: Locals, client: Client, scope: string): boolean {
  if (!(client.grantTypes as string[]).includes("refresh_token")) return false
  return locals.options.refreshTokens === "always" || scope.split(" ").includes("offline_access")
}
