/**
 * The shape of the provider's access tokens' claims (RFC 9068), in a module of its own: the
 * key ring's cache in `locals.ts` holds them, and `tokens.ts` makes and checks them, so
 * neither needs the other for the type.
 * @module
 */
import type { JWTPayload } from "jose"

/** The claims of an access token this provider issued. */
export interface AccessTokenClaims extends JWTPayload {
  iss: string
  sub: string
  aud: string | string[]
  exp: number
  iat: number
  jti: string
  client_id: string
  scope: string
  /** The grant the token was issued under. */
  gid: string
  auth_time?: number
}
