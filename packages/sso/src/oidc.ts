/**
 * OpenID Connect connections: the client core's relying party is given for a connection
 * (`req.oidc`), and what its verified ID token says, as an SSO identity.
 * @module
 */
import type { ExtensionOidcClient, ExtensionTools } from "@portcullis/core/extension"
import type { Asserted } from "./jit.js"
import type { Connection } from "./store/types.js"

/** Where a connection's IdP sends the browser back: the redirect URI to register at the IdP. */
export const oidcRedirectUri = (authUrl: string, connection: Pick<Connection, "id">) => `${authUrl}/sso/oidc/${encodeURIComponent(connection.id)}/callback`

/** The client of a connection for core's relying party; its id names the check cookies (`sso-<connection id>`). */
export function oidcClient(tools: Pick<ExtensionTools, "authUrl">, connection: Connection): ExtensionOidcClient {
  const settings = connection.oidc!
  return {
    id: `sso-${connection.id.toLowerCase().replace(/[^a-z0-9-]/g, "-")}`.slice(0, 64),
    issuer: settings.issuer,
    clientId: settings.clientId,
    ...(settings.clientSecret !== undefined && { clientSecret: settings.clientSecret }),
    ...(settings.scope !== undefined && { scope: settings.scope }),
    redirectUri: oidcRedirectUri(tools.authUrl, connection),
  }
}

/**
 * The identity in verified claims. The address counts only when the IdP does not say it is
 * unverified (`email_verified: false`); whether it is *vouched for* is the domain's business
 * (jit.ts). Entra ID sends no `email` for some accounts: `preferred_username` is not used
 * in its place, since it need not be an address the user receives mail at.
 */
export function oidcAsserted(connection: Connection, claims: Record<string, unknown> & { sub: string }): Asserted {
  const email = typeof claims.email === "string" && claims.email_verified !== false && claims.email_verified !== "false" ? claims.email : null
  const name = typeof claims.name === "string" ? claims.name.slice(0, 256) : null
  // Claims that only tie the token to this sign-in (nonce, at_hash…) say nothing about the user.
  const { nonce: _nonce, at_hash: _atHash, c_hash: _cHash, auth_time: _authTime, iat: _iat, exp: _exp, ...attributes } = claims
  return { subject: `${claims.iss}#${claims.sub}`.slice(0, 512), email, name, attributes }
}
