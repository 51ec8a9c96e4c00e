import * as o from "oauth4webapi"
import type { OAuthRuntime } from "./provider.js"

/** Clock tolerance for `iat`, the same 30 s oauth4webapi allows for `exp`. */
const CLOCK_TOLERANCE = 30

/** An id_token claim that failed one of the checks oauth4webapi leaves to the client. */
class IdTokenClaimError extends Error {
  constructor(readonly claim: string, message: string) {
    super(message)
    this.name = "IdTokenClaimError"
  }
}

/**
 * Completes the id_token validation oauth4webapi started in
 * `processAuthorizationCodeResponse` (iss, aud contains us, exp, nonce, alg allowed):
 *
 * - the signature, against the issuer's `jwks_uri` only. oauth4webapi skips it for tokens
 *   from the token endpoint (TLS vouches for them); verifying also covers a compromised
 *   or misconfigured proxy, and a `customFetch` that misroutes. It refuses `none` and
 *   HMAC algorithms, ignores `jwk`/`jku`/`x5u` headers, and for an unknown `kid` refetches
 *   the key set once (at most once a minute) before refusing;
 * - no audience but us (OIDC Core §3.1.3.7 step 3 lets a client reject audiences it does
 *   not trust, and this client trusts none);
 * - `azp`, when present, is us, even with a single audience;
 * - `iat` is not in the future beyond the clock tolerance.
 *
 * `response` is the token response oauth4webapi processed (it remembers the JWT by it).
 */
export async function verifyIdToken(rt: OAuthRuntime, metadata: o.AuthorizationServer, response: Response, claims: o.IDToken): Promise<void> {
  await o.validateApplicationLevelSignature(metadata, response, rt.http)
  const clientId = rt.client.client_id
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud]
  for (const audience of audiences) {
    if (audience !== clientId) throw new IdTokenClaimError("aud", "The id_token is also meant for another audience")
  }
  if (claims.azp !== undefined && claims.azp !== clientId) throw new IdTokenClaimError("azp", "The id_token was issued to another party (azp)")
  if (typeof claims.iat !== "number" || claims.iat > Math.floor(Date.now() / 1000) + CLOCK_TOLERANCE) {
    throw new IdTokenClaimError("iat", "The id_token is issued in the future")
  }
}
