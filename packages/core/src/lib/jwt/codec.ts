import { EncryptJWT, jwtDecrypt, type JWTDecryptOptions } from "jose"
import { MissingSecret } from "../../errors.js"
import type { JWT, JWTDecodeParams, JWTEncodeParams } from "./types.js"
import { readJweHeader } from "./header.js"
import { CONTENT_ENCRYPTIONS, DEFAULT_ENC, type KeyRing } from "./keys.js"

const DEFAULT_MAX_AGE = 30 * 24 * 60 * 60
const decryptOptions: JWTDecryptOptions = {
  clockTolerance: 15,
  keyManagementAlgorithms: ["dir"],
  contentEncryptionAlgorithms: [...CONTENT_ENCRYPTIONS],
}

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
  return new EncryptJWT(token as Record<string, unknown>)
    .setProtectedHeader({ alg: "dir", enc: DEFAULT_ENC, kid })
    .setIssuedAt(now)
    .setExpirationTime(now + maxAge)
    .setJti(crypto.randomUUID())
    .encrypt(key)
}

/**
 * Decrypts a token with keys from `keys`, throwing the reason it cannot. The header is
 * checked first, so a refused `alg`/`enc` never reaches a derivation; an accepted `enc`
 * only ever derives the real key of a configured secret, which the ring keeps.
 */
export async function decodeWith<Payload = JWT>(keys: KeyRing, params: JWTDecodeParams): Promise<Payload | null> {
  const { token, secret, salt } = params
  if (!token) return null
  const secrets = secretsOf(secret)
  const { enc, kid } = readJweHeader(token)
  if (kid !== undefined) {
    for (const s of secrets) {
      const derived = await keys.key(s, salt, enc)
      if (derived.kid === kid) return (await jwtDecrypt(token, derived.key, decryptOptions)).payload as Payload
    }
    throw new NoMatchingKey()
  }
  // Tokens without a kid (older or hand-made) get each secret in turn.
  let lastError: unknown
  for (const s of secrets) {
    try {
      const { key } = await keys.key(s, salt, enc)
      return (await jwtDecrypt(token, key, decryptOptions)).payload as Payload
    } catch (error) {
      lastError = error
    }
  }
  throw lastError
}
