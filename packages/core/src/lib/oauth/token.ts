import * as o from "oauth4webapi"
import { decodeJwt } from "jose"
import { InvalidEndpoints } from "../../errors.js"
import type { TokenSet } from "../../base-types.js"
import type { ExpectedChecks } from "./checks.js"
import { isTenantTemplate, metadataForTenant } from "./endpoints.js"
import { callbackFailure } from "./failure.js"
import { verifyIdToken } from "./id-token.js"
import { internalProvider } from "./internal.js"
import type { OAuthRuntime } from "./provider.js"

/** The outcome of the code exchange: the token response and, if any, the verified id_token claims. */
export interface ExchangedTokens {
  tokens: o.TokenEndpointResponse
  claims: o.IDToken | undefined
  /** The metadata the id_token verified against (per tenant for multi-tenant issuers). */
  metadata: o.AuthorizationServer
}

/**
 * Exchanges the authorization code (RFC 6749 §4.1.3) with the same `redirect_uri` as the
 * authorization request and the PKCE verifier, then validates the response in full
 * (see {@link verifyIdToken}). A nonce is required of OIDC providers with the nonce check,
 * and refused of those without it.
 *
 * `token.request` (a custom exchange) and `token.conform` (a fix-up of a non-standard
 * response) are honoured, but what they produce goes through the same validation.
 */
export async function exchangeCode(
  rt: OAuthRuntime,
  metadata: o.AuthorizationServer,
  callbackParams: URLSearchParams,
  expected: ExpectedChecks,
): Promise<ExchangedTokens> {
  const token = typeof rt.provider.token === "object" ? rt.provider.token : undefined
  let response: Response
  try {
    if (token?.request) {
      const checks = { code_verifier: expected.codeVerifier, state: expected.state, nonce: expected.nonce }
      const tokens = await token.request({ provider: internalProvider(rt, metadata), params: callbackParams, checks, fetch: rt.fetch, redirectUri: rt.redirectUri })
      response = Response.json(tokens)
    } else {
      if (!metadata.token_endpoint) throw new InvalidEndpoints(`Provider "${rt.id}" has no token endpoint`)
      response = await o.authorizationCodeGrantRequest(
        metadata,
        rt.client,
        rt.clientAuth,
        callbackParams,
        rt.redirectUri,
        expected.codeVerifier ?? o.nopkce,
        { ...rt.http, ...(token?.params && { additionalParameters: stringParams(token.params) }) },
      )
    }
    if (token?.conform) response = (await token.conform(response.clone())) ?? response
  } catch (error) {
    throw callbackFailure(error, rt.id, "token")
  }

  let validating = metadata
  let tokens: o.TokenEndpointResponse
  try {
    if (isTenantTemplate(metadata)) validating = metadataForTenant(metadata, await unverifiedTenant(response))
    tokens = await o.processAuthorizationCodeResponse(validating, rt.client, response, {
      expectedNonce: expected.nonce ?? o.expectNoNonce,
      requireIdToken: rt.type === "oidc",
    })
  } catch (error) {
    throw callbackFailure(error, rt.id, "token")
  }
  const claims = o.getValidatedIdTokenClaims(tokens)
  if (claims) {
    try {
      await verifyIdToken(rt, validating, response, claims)
    } catch (error) {
      throw callbackFailure(error, rt.id, "id_token")
    }
  }
  return { tokens, claims, metadata: validating }
}

/** The `tid` of the id_token in a token response, unverified: it only picks the issuer to expect. */
async function unverifiedTenant(response: Response): Promise<unknown> {
  const body = (await response.clone().json().catch(() => undefined)) as { id_token?: unknown } | undefined
  if (typeof body?.id_token !== "string") return undefined
  try {
    return decodeJwt(body.id_token).tid
  } catch {
    return undefined
  }
}

function stringParams(params: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) out[key] = typeof value === "object" ? JSON.stringify(value) : String(value)
  }
  return out
}

/** The token set as stored and handed to callbacks: `expires_at` added, `token_type` lower case (§2.5–2.6). */
export function normaliseTokens(tokens: o.TokenEndpointResponse): TokenSet {
  const out: TokenSet = { ...(tokens as Record<string, unknown>) }
  if (typeof tokens.token_type === "string") out.token_type = tokens.token_type.toLowerCase() as Lowercase<string>
  if (typeof tokens.expires_in === "number" && Number.isFinite(tokens.expires_in)) {
    out.expires_at = Math.floor(Date.now() / 1000) + Math.floor(tokens.expires_in)
  }
  return out
}
