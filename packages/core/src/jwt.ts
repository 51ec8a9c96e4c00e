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
import { calculateJwkThumbprint, EncryptJWT, base64url, jwtDecrypt, type JWTDecryptOptions } from "jose"
import { MissingSecret } from "./errors.js"
import { readChunked, parseCookies } from "./lib/cookies.js"
import type { Awaitable, LoggerInstance } from "./types.js"

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

const DEFAULT_MAX_AGE = 30 * 24 * 60 * 60
const ENC = "A256CBC-HS512"
const encoder = new TextEncoder()
const decryptOptions: JWTDecryptOptions = {
  clockTolerance: 15,
  keyManagementAlgorithms: ["dir"],
  contentEncryptionAlgorithms: [ENC, "A256GCM"],
}

interface DerivedKey {
  key: Uint8Array
  kid: string
}

// Key derivation (HKDF plus a SHA-512 thumbprint) costs more than the decryption itself;
// the same few (secret, salt) pairs recur on every request, so derive each once.
const keyCache = new Map<string, Promise<DerivedKey>>()
const KEY_CACHE_LIMIT = 256

/** The key for `secret`+`salt`, derived as Auth.js does, and its `kid` thumbprint. */
export function deriveKey(secret: string, salt: string, enc: string = ENC): Promise<DerivedKey> {
  const id = `${enc}\u0000${salt}\u0000${secret}`
  let hit = keyCache.get(id)
  if (!hit) {
    hit = derive(secret, salt, enc)
    if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.delete(keyCache.keys().next().value!)
    keyCache.set(id, hit)
    hit.catch(() => keyCache.delete(id))
  }
  return hit
}

async function derive(secret: string, salt: string, enc: string): Promise<DerivedKey> {
  const length = enc === ENC ? 64 : 32
  const ikm = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveBits"])
  const bits = await crypto.subtle.deriveBits(
    {
      name: "HKDF",
      hash: "SHA-256",
      salt: encoder.encode(salt),
      info: encoder.encode(`Auth.js Generated Encryption Key${salt ? ` (${salt})` : ""}`),
    },
    ikm,
    length * 8,
  )
  const key = new Uint8Array(bits)
  const kid = await calculateJwkThumbprint({ kty: "oct", k: base64url.encode(key) }, `sha${key.byteLength << 3}` as "sha512")
  return { key, kid }
}

function secretsOf(secret: string | string[]): string[] {
  const list = Array.isArray(secret) ? secret : [secret]
  if (!list.length || list.some((s) => typeof s !== "string" || !s)) throw new MissingSecret("A non-empty secret is required")
  return list
}

/** Encrypts `token` with the first secret; sets `iat`, `exp` (now + `maxAge`) and a fresh `jti`. */
export async function encode<Payload = JWT>(params: JWTEncodeParams<Payload>): Promise<string> {
  const { token = {}, secret, salt, maxAge = DEFAULT_MAX_AGE } = params
  const [first] = secretsOf(secret)
  const { key, kid } = await deriveKey(first!, salt)
  const now = Math.floor(Date.now() / 1000)
  return new EncryptJWT(token as Record<string, unknown>)
    .setProtectedHeader({ alg: "dir", enc: ENC, kid })
    .setIssuedAt(now)
    .setExpirationTime(now + maxAge)
    .setJti(crypto.randomUUID())
    .encrypt(key)
}

/**
 * Decrypts a token. Returns `null` for a missing, malformed, tampered, expired or
 * foreign token (any secret in the list may open it).
 */
export async function decode<Payload = JWT>(params: JWTDecodeParams): Promise<Payload | null> {
  try {
    return await decodeOrThrow<Payload>(params)
  } catch {
    return null
  }
}

/** Like {@link decode} but throws the reason; for logging inside the library. */
export async function decodeOrThrow<Payload = JWT>(params: JWTDecodeParams): Promise<Payload | null> {
  const { token, secret, salt } = params
  if (!token) return null
  const secrets = secretsOf(secret)
  const header = protectedHeader(token)
  const enc = typeof header.enc === "string" ? header.enc : ENC
  if (typeof header.kid === "string") {
    for (const s of secrets) {
      const { key, kid } = await deriveKey(s, salt, enc)
      if (kid === header.kid) return (await jwtDecrypt(token, key, decryptOptions)).payload as Payload
    }
    throw new Error("no matching decryption secret")
  }
  // Tokens without a kid (older or hand-made) get each secret in turn.
  let lastError: unknown
  for (const s of secrets) {
    try {
      const { key } = await deriveKey(s, salt, enc)
      return (await jwtDecrypt(token, key, decryptOptions)).payload as Payload
    } catch (error) {
      lastError = error
    }
  }
  throw lastError
}

function protectedHeader(token: string): Record<string, unknown> {
  const dot = token.indexOf(".")
  if (dot <= 0 || dot > 2048) throw new Error("malformed token")
  const parsed = JSON.parse(new TextDecoder().decode(base64url.decode(token.slice(0, dot))))
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("malformed token header")
  return parsed
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
