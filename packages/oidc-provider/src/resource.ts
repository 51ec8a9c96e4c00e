/**
 * `@portcullis/oidc-provider/resource`: for resource servers (an API, an MCP server) that
 * accept the provider's access tokens — verification (RFC 9068), protected-resource metadata
 * (RFC 9728) and the `WWW-Authenticate` challenge that points clients to it.
 * @module
 */
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from "jose"

/** The claims of a verified access token. */
export interface VerifiedAccessToken extends JWTPayload {
  iss: string
  sub: string
  aud: string | string[]
  exp: number
  iat: number
  jti: string
  client_id: string
  /** Space-separated. */
  scope: string
  /** The grant it was issued under. */
  gid?: string
  auth_time?: number
}

export interface VerifyAccessTokenOptions {
  /** The provider's issuer, exactly. */
  issuer: string
  /** This resource's identifier (the RFC 8707 `resource` clients ask for): the token's `aud` must name it. */
  audience: string
  /** The provider's public keys, inline; or */
  jwks?: JSONWebKeySet
  /** where to fetch them (default `<issuer>/jwks`), cached. */
  jwksUri?: string
  /** Seconds of clock skew tolerated. Default 30. */
  clockSkew?: number
  /** Scopes the token must all carry. */
  requiredScopes?: string[]
}

/** Why a token was refused: `invalid_token` (401) or `insufficient_scope` (403). */
export class AccessTokenError extends Error {
  override readonly name = "AccessTokenError"
  constructor(
    readonly code: "invalid_token" | "insufficient_scope",
    message: string,
  ) {
    super(message)
  }
  get status(): number {
    return this.code === "invalid_token" ? 401 : 403
  }
}

/**
 * Verifies one access token of the provider (for many, build an {@link accessTokenVerifier}
 * once, which keeps the fetched keys): signature (the provider's keys), `typ: at+jwt`,
 * issuer, audience, expiry (with clock skew) and, when asked, scopes. Revocation is not checked
 * here (a JWT is self-contained, and short-lived): call the provider's introspection, or its
 * in-process `verifyAccessToken` server function, for that.
 *
 * @example
 * ```ts
 * import { verifyAccessToken } from "@portcullis/oidc-provider/resource"
 *
 * const claims = await verifyAccessToken(token, { issuer: "https://app.example/auth/oidc", audience: "https://api.example/mcp" })
 * ```
 * @throws AccessTokenError
 */
export async function verifyAccessToken(token: string, options: VerifyAccessTokenOptions): Promise<VerifiedAccessToken> {
  return accessTokenVerifier(options)(token)
}

/**
 * A verifier for one resource, its key set kept (a remote JWKS fetched once, again only for
 * an unknown kid, with jose's cooldown): build it once and call it per request.
 *
 * @example
 * ```ts
 * import { accessTokenVerifier } from "@portcullis/oidc-provider/resource"
 *
 * const verify = accessTokenVerifier({ issuer: "https://app.example/auth/oidc", audience: "https://api.example/mcp" })
 * const claims = await verify(token)
 * ```
 */
export function accessTokenVerifier(options: VerifyAccessTokenOptions): (token: string) => Promise<VerifiedAccessToken> {
  const keys: JWTVerifyGetKey = options.jwks
    ? createLocalJWKSet(options.jwks)
    : createRemoteJWKSet(new URL(options.jwksUri ?? `${options.issuer}/jwks`), { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 600_000 })
  return async (token) => {
    let payload: JWTPayload
    try {
      ;({ payload } = await jwtVerify(token, keys, {
        issuer: options.issuer,
        audience: options.audience,
        typ: "at+jwt",
        clockTolerance: options.clockSkew ?? 30,
        algorithms: ["ES256", "RS256", "PS256", "EdDSA"],
        requiredClaims: ["exp", "iat", "jti", "sub", "client_id"],
      }))
    } catch (error) {
      throw new AccessTokenError("invalid_token", `The access token is not valid: ${(error as Error).message}`)
    }
    const scopes = typeof payload.scope === "string" ? payload.scope.split(" ") : []
    for (const s of options.requiredScopes ?? []) if (!scopes.includes(s)) throw new AccessTokenError("insufficient_scope", `The access token lacks the scope ${s}`)
    return payload as VerifiedAccessToken
  }
}

/**
 * RFC 9728 protected-resource metadata, to serve at
 * `/.well-known/oauth-protected-resource<resource path>`.
 *
 * @example
 * ```ts
 * protectedResourceMetadata({ resource: "https://api.example/mcp", authorizationServers: ["https://app.example/auth/oidc"], scopesSupported: ["mcp"] })
 * ```
 */
export function protectedResourceMetadata(input: { resource: string; authorizationServers: string[]; scopesSupported?: string[]; resourceName?: string }): Record<string, unknown> {
  return {
    resource: input.resource,
    authorization_servers: input.authorizationServers,
    bearer_methods_supported: ["header"],
    ...(input.scopesSupported && { scopes_supported: input.scopesSupported }),
    ...(input.resourceName && { resource_name: input.resourceName }),
  }
}

/** Where a resource's metadata lives (RFC 9728 §3.1): `https://api.example/.well-known/oauth-protected-resource/mcp`. */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource)
  const path = url.pathname === "/" ? "" : url.pathname
  return `${url.origin}/.well-known/oauth-protected-resource${path}`
}

/**
 * The `WWW-Authenticate` value of a 401 (or 403) from a protected resource, pointing the
 * client to its metadata (RFC 9728 §5.1, as the MCP authorization spec requires).
 *
 * @example
 * ```ts
 * return new Response(null, { status: 401, headers: { "WWW-Authenticate": bearerChallenge({ resource: "https://api.example/mcp" }) } })
 * ```
 */
export function bearerChallenge(input: { resource: string; error?: AccessTokenError; scope?: string }): string {
  const quote = (v: string) => v.replace(/[\\"\r\n]/g, "")
  const parts = [`resource_metadata="${quote(protectedResourceMetadataUrl(input.resource))}"`]
  if (input.error) parts.push(`error="${input.error.code}"`, `error_description="${quote(input.error.message)}"`)
  if (input.scope) parts.push(`scope="${quote(input.scope)}"`)
  return `Bearer ${parts.join(", ")}`
}
