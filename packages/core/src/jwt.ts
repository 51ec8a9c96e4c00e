/**
 * The token module: encrypted JWTs, wire-compatible with Auth.js v5.
 *
 * Tokens are compact JWE (`alg: "dir"`, `enc: "A256CBC-HS512"`): encrypted and
 * authenticated, not merely signed. The key is derived with HKDF-SHA256 from the secret and
 * a salt (the session cookie's name), so a token made for one purpose never opens as
 * another. Keys are derived once per (secret, salt) and cached.
 *
 * Tokens are for the app that issued them, not for third-party APIs.
 *
 * @example
 * ```ts
 * import { encode, decode, getToken } from "@portcullis/core/jwt"
 *
 * const jwt = await encode({ token: { sub: "42" }, secret, salt: "authjs.session-token" })
 * const payload = await decode({ token: jwt, secret, salt: "authjs.session-token" })
 *
 * // In an API route: the session token from the cookie or `Authorization: Bearer`
 * const token = await getToken({ req: request, secret })
 * ```
 * @module
 */
import { MissingSecret } from "./errors.js"
import { readChunked, parseCookies } from "./lib/cookies.js"
import { decodeWith, encodeWith } from "./lib/jwt/codec.js"
import { DEFAULT_ENC, KeyRing, type DerivedKey } from "./lib/jwt/keys.js"
import type { Awaitable, LoggerInstance } from "./base-types.js"

export type { DefaultJWT, JWT, JWTDecodeParams, JWTEncodeParams, JWTOptions } from "./lib/jwt/types.js"
import type { JWT, JWTDecodeParams, JWTEncodeParams, JWTOptions } from "./lib/jwt/types.js"

// The functions below work without a configuration, so they keep no keys between calls
// (no module-level state: two apps in one process never share anything). Inside `Auth()`
// every token goes through its configuration's own `KeyRing`, which does cache.

/**
 * The key for `secret`+`salt`, derived as Auth.js does, and its `kid` thumbprint.
 * `enc` must be `A256CBC-HS512` (the default) or `A256GCM`.
 */
export function deriveKey(secret: string, salt: string, enc: string = DEFAULT_ENC): Promise<DerivedKey> {
  return new KeyRing().key(secret, salt, enc as typeof DEFAULT_ENC)
}

/** Encrypts `token` with the first secret; sets `iat`, `exp` (now + `maxAge`) and a fresh `jti`. */
export function encode<Payload = JWT>(params: JWTEncodeParams<Payload>): Promise<string> {
  return encodeWith(new KeyRing(), params)
}

/**
 * Decrypts a token, as Auth.js's `decode`: resolves `null` only for a missing token and
 * rejects for one no secret in the list opens, or a malformed, tampered or expired one,
 * or any `alg` other than `dir` or `enc` other than `A256CBC-HS512`/`A256GCM`.
 * {@link getToken} turns those rejections into `null`.
 *
 * @example
 * ```ts
 * const payload = await decode({ token, secret: process.env.AUTH_SECRET!, salt: "authjs.session-token" }).catch(() => null)
 * ```
 */
export function decode<Payload = JWT>(params: JWTDecodeParams): Promise<Payload | null> {
  return decodeWith<Payload>(new KeyRing(), params)
}

/** The same as {@link decode} (which now rejects too); kept for callers of earlier versions. */
export function decodeOrThrow<Payload = JWT>(params: JWTDecodeParams): Promise<Payload | null> {
  return decodeWith<Payload>(new KeyRing(), params)
}

/** Parameters of {@link getToken}. */
export interface GetTokenParams<R extends boolean = false> {
  /** A `Request`, or any object with `headers` (a `Headers` or a plain record). */
  req: Request | { headers: Headers | Record<string, string | string[] | undefined> }
  /** Use the `__Secure-` cookie name. Default: whether `AUTH_URL` (or the request) is https. */
  secureCookie?: boolean
  /** Cookie holding the token. Default: the session cookie's name. */
  cookieName?: string
  /** Return the raw token string instead of decoding it. */
  raw?: R
  /** Default: `AUTH_SECRET`. */
  secret?: string | string[]
  /** Default: the cookie name. */
  salt?: string
  decode?: JWTOptions["decode"]
  logger?: Partial<LoggerInstance> | Console
}

/**
 * Reads the session token of a request: from the session cookie (chunks reassembled), or
 * from `Authorization: Bearer <token>`. Returns the decoded payload, the raw string with
 * `raw: true`, or `null`.
 */
export async function getToken<R extends boolean = false>(
  params: GetTokenParams<R>,
): Promise<R extends true ? string | null : JWT | null>
export async function getToken(params: GetTokenParams<boolean>): Promise<string | JWT | null> {
  const { req } = params
  if (!req) throw new TypeError("getToken() needs `req`")
  const env = (globalThis as any).process?.env ?? {}
  const headers = req.headers instanceof Headers ? req.headers : toHeaders(req.headers)
  const siteUrl: string | undefined = env.AUTH_URL ?? env.NEXTAUTH_URL
  const requestUrl = "url" in req && typeof req.url === "string" ? req.url : undefined
  const secureCookie = params.secureCookie ?? (siteUrl ? siteUrl.startsWith("https://") : !!requestUrl?.startsWith("https:"))
  const cookieName = params.cookieName ?? (secureCookie ? "__Secure-authjs.session-token" : "authjs.session-token")
  const salt = params.salt ?? cookieName

  let token = readChunked(parseCookies(headers.get("cookie")), cookieName)
  if (!token) {
    const [scheme, value] = (headers.get("authorization") ?? "").split(" ")
    if (scheme === "Bearer" && value) {
      try {
        token = decodeURIComponent(value)
      } catch {
        return null
      }
    }
  }
  if (!token) return null
  if (params.raw) return token

  const secret = params.secret ?? env.AUTH_SECRET ?? env.NEXTAUTH_SECRET
  if (!secret || (Array.isArray(secret) && !secret.length)) throw new MissingSecret("getToken() needs a secret: pass `secret` or set AUTH_SECRET")
  try {
    return await (params.decode ?? decode)({ token, secret, salt })
  } catch (error) {
    params.logger?.error?.(error as Error)
    return null
  }
}

function toHeaders(record: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers()
  for (const [k, v] of Object.entries(record ?? {})) {
    if (Array.isArray(v)) for (const item of v) headers.append(k, item)
    else if (v !== undefined) headers.set(k, v)
  }
  return headers
}
