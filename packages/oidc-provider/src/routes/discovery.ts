/**
 * Discovery (OpenID Connect Discovery 1.0, RFC 8414 — one document for both) and the JWKS.
 * Advertises only what is implemented.
 * @module
 */
import type { ExtensionRequest, ExtensionResponse } from "@portcullis/core/extension"
import { issuerOf, routesBase, type Locals } from "../locals.js"

const CLIENT_AUTH = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]
const ASSERTION_ALGS = ["RS256", "PS256", "ES256", "EdDSA"]

/** The provider's metadata for a request. */
export function metadata(req: Pick<ExtensionRequest<Locals>, "locals" | "authUrl" | "originTrusted">): Record<string, unknown> {
  const { locals } = req
  const issuer = issuerOf(locals, req)
  const base = routesBase(req)
  return {
    issuer,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/token`,
    userinfo_endpoint: `${base}/userinfo`,
    jwks_uri: `${base}/jwks`,
    revocation_endpoint: `${base}/revoke`,
    introspection_endpoint: `${base}/introspect`,
    end_session_endpoint: `${base}/logout`,
    scopes_supported: locals.options.scopes,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token", "client_credentials", "urn:ietf:params:oauth:grant-type:device_code"],
    device_authorization_endpoint: `${base}/device_authorization`,
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: locals.options.signingAlgs,
    token_endpoint_auth_methods_supported: CLIENT_AUTH,
    token_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH,
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH.filter((m) => m !== "none"),
    introspection_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGS,
    code_challenge_methods_supported: ["S256"],
    prompt_values_supported: ["none", "login", "consent"],
    claims_supported: ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "azp", "at_hash", "name", "email", "email_verified", ...(locals.options.organizations ? ["organizations"] : [])],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    authorization_response_iss_parameter_supported: true,
    ...(locals.options.resources.length && { resource_indicators_supported: true }),
    ...(locals.options.registration && { registration_endpoint: `${base}/register` }),
  }
}

export async function discovery(req: ExtensionRequest<Locals>): Promise<ExtensionResponse> {
  return { json: metadata(req), headers: { "Cache-Control": "public, max-age=300" } }
}

export async function jwks(req: ExtensionRequest<Locals>): Promise<ExtensionResponse> {
  return { json: await req.locals.keys.jwks(), contentType: "application/jwk-set+json", headers: { "Cache-Control": "public, max-age=300" } }
}
