import type { Awaitable } from "../../base-types.js"

/** The decoded token. Known claims plus anything your `jwt` callback adds. */
export interface DefaultJWT extends Record<string, unknown> {
  name?: string | null
  email?: string | null
  picture?: string | null
  sub?: string
  iat?: number
  exp?: number
  jti?: string
}

/** The token your callbacks see. Augment it with module augmentation. */
export interface JWT extends DefaultJWT {}

/** Parameters of {@link encode}. */
export interface JWTEncodeParams<Payload = JWT> {
  /** The payload. */
  token?: Payload
  /** Salt for key derivation; the session cookie's name for session tokens. */
  salt: string
  /** Secret(s); the first one encrypts. */
  secret: string | string[]
  /** Seconds until expiry. Default 30 days. */
  maxAge?: number
}

/** Parameters of {@link decode}. */
export interface JWTDecodeParams {
  token?: string
  salt: string
  /** Secret(s); every one is tried. */
  secret: string | string[]
}

/** The `jwt` option: lifetime and custom encode/decode. */
export interface JWTOptions {
  /** Seconds until a token expires. Default: `session.maxAge` (30 days). */
  maxAge: number
  encode: (params: JWTEncodeParams) => Awaitable<string>
  decode: (params: JWTDecodeParams) => Awaitable<JWT | null>
}
