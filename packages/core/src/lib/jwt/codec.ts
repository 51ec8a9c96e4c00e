import { MissingSecret } from "../../errors.js"
import type { JWT, JWTDecodeParams, JWTEncodeParams } from "./types.js"
import { readJweHeader } from "./header.js"
import { DEFAULT_ENC, type KeyRing } from "./keys.js"

const DEFAULT_MAX_AGE = 30 * 24 * 60 * 60

/** No key under any configured secret has the token's `kid`. */
class NoMatchingKey extends Error {
  readonly code = "ERR_JWE_NO_MATCHING_KEY"
  constructor() {
    super("No configured secret has the token's kid")
    this.name = "NoMatchingKey"
  }
}

function secretsOf(secret: string | string[]): string[] {
  const list = Array.isArray(secret) ? secret : [secret]
  if (!list.length || list.some((s) => typeof s !== "string" || !s)) throw new MissingSecret("A non-empty secret is required")
  return list
}

/** Encrypts `token` with the first secret's key from `keys`; sets `iat`, `exp` and a fresh `jti`. */
export async function encodeWith<Payload = JWT>(keys: KeyRing, params: JWTEncodeParams<Payload>): Promise<string> {
  const { token = {}, secret, salt, maxAge = DEFAULT_MAX_AGE } = params
  const [first] = secretsOf(secret)
  const { key, kid } = await keys.key(first!, salt, DEFAULT_ENC)
  const now = Math.floor(Date.now() / 1000)
  // What jose's EncryptJWT did here: a plain object, cloned, then iat, exp (finite) and jti.
  if (!token || typeof token !== "object" || Array.isArray(token)) throw new TypeError("JWT Claims Set MUST be an object")
  const exp = now + maxAge
  if (!Number.isFinite(exp)) throw new TypeError("Invalid setExpirationTime input")
  const claims = structuredClone(token) as Record<string, unknown>
  claims.iat = now
  claims.exp = exp
  claims.jti = crypto.randomUUID()
  return keys.jwe.encrypt(claims, { alg: "dir", enc: DEFAULT_ENC, kid }, key)
}

/**
 * Decrypts a token with keys from `keys`, throwing the reason it cannot. The header is
 * checked first, so a refused `alg`/`enc` never reaches a derivation; an accepted `enc`
 * only ever derives the real key of a configured secret, which the ring keeps.
 */
export async function decodeWith<Payload = JWT>(keys: KeyRing, params: JWTDecodeParams): Promise<Payload | null> {
  return (await openWith<Payload>(keys, params))?.payload ?? null
}

/**
 * {@link decodeWith}, also answering the header's `kid` (read once here), so a caller that
 * needs it (the session check's rotation test) does not parse the header again.
 */
export async function openWith<Payload = JWT>(keys: KeyRing, params: JWTDecodeParams): Promise<{ payload: Payload; kid: string | undefined } | null> {
  const { token, secret, salt } = params
  if (!token) return null
  const secrets = secretsOf(secret)
  const { enc, kid } = readJweHeader(token, keys.headers)
  if (kid !== undefined) {
    for (const s of secrets) {
      const derived = await keys.key(s, salt, enc)
      if (derived.kid === kid) {
        // The Node path answers synchronously: awaited only when the codec returns a promise.
        const payload = keys.jwe.decrypt(token, derived.key)
        return { payload: (payload instanceof Promise ? await payload : payload) as Payload, kid }
      }
    }
    throw new NoMatchingKey()
  }
  // Tokens without a kid (older or hand-made) get each secret in turn.
  let lastError: unknown
  for (const s of secrets) {
    try {
      const { key } = await keys.key(s, salt, enc)
      return { payload: (await keys.jwe.decrypt(token, key)) as Payload, kid }
    } catch (error) {
      lastError = error
    }
  }
  throw lastError
}
