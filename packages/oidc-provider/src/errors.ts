/**
 * OAuth errors (RFC 6749 §5.2, RFC 6750 §3): a client-caused refusal with its registered
 * code, answered as `{ error, error_description }` JSON — with `WWW-Authenticate` where the
 * spec asks for it (client authentication, bearer tokens).
 * @module
 */
import type { ExtensionResponse } from "@portcullis/core/extension"

/** An OAuth refusal: `code` is the registered error (`invalid_grant`), `description` for the developer. */
export class OAuthError extends Error {
  override readonly name = "OAuthError"
  constructor(
    readonly code: string,
    readonly description: string,
    readonly status = 400,
    /** `WWW-Authenticate` to send: a client authentication scheme or a bearer challenge. */
    readonly challenge?: string,
  ) {
    super(description)
  }
}

/**
 * `invalid_client` (401). RFC 6749 §5.2 asks for a challenge "matching the authentication
 * scheme used by the client": `Basic` only when the client tried the Authorization header —
 * a client that sent a secret in the form or a signed assertion is not told to retry with Basic.
 */
export function invalidClient(description: string, triedBasic = false): OAuthError {
  return new OAuthError("invalid_client", description, 401, triedBasic ? 'Basic realm="oidc"' : undefined)
}

/** A bearer token refused at userinfo (RFC 6750 §3.1). */
export function invalidToken(description: string): OAuthError {
  return new OAuthError("invalid_token", description, 401, `Bearer error="invalid_token", error_description="${description.replace(/["\\]/g, "")}"`)
}

/** The JSON answer of an OAuth refusal. */
export function errorAnswer(error: OAuthError): ExtensionResponse {
  return {
    json: { error: error.code, error_description: error.description },
    status: error.status,
    headers: { "Cache-Control": "no-store", ...(error.challenge && { "WWW-Authenticate": error.challenge }) },
  }
}

/** Runs a protocol endpoint: an {@link OAuthError} becomes its JSON answer; anything else (an outage) goes to core (503). */
export async function oauthEndpoint(run: () => Promise<ExtensionResponse>): Promise<ExtensionResponse> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof OAuthError) return errorAnswer(error)
    throw error
  }
}
