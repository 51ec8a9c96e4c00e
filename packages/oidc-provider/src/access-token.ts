/**
 * The shape of the provider's access tokens' claims (RFC 9068), in a module of its own: the
 * key ring's cache in `locals.ts` holds them, and `tokens.ts` makes and checks them, so
 * neither needs the other for the type.
 * @module
 */
import type { VerifiedAccessToken } from "./resource.js"

/** The claims of an access token this provider issued: what a resource server verifies, and always the grant. */
export interface AccessTokenClaims extends VerifiedAccessToken {
  /** The grant the token was issued under. */
  gid: string
}
