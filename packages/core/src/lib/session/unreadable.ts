/**
 * Why a session cookie could not be read, when that is the cookie's fault (expected input:
 * a rotated secret, an expired session, a client sending garbage) rather than ours.
 */
export type UnreadableKind = "malformed" | "refused" | "foreign" | "tampered" | "expired" | "rejected"

/** A custom `jwt.decode` answered `null`. */
export class RejectedByDecode extends Error {
  readonly code = "ERR_DECODE_REJECTED"
  constructor() {
    super("jwt.decode returned null")
    this.name = "RejectedByDecode"
  }
}

// Error codes of jose and of lib/jwt (all carry a `code` string).
const kinds: Record<string, UnreadableKind> = {
  ERR_JWE_MALFORMED: "malformed",
  ERR_JWE_INVALID: "malformed",
  ERR_JWT_INVALID: "malformed",
  ERR_JWT_CLAIM_VALIDATION_FAILED: "malformed",
  ERR_JWE_ALG_REFUSED: "refused",
  ERR_JWE_ENC_REFUSED: "refused",
  ERR_JOSE_ALG_NOT_ALLOWED: "refused",
  ERR_JOSE_NOT_SUPPORTED: "refused",
  ERR_JWE_NO_MATCHING_KEY: "foreign",
  ERR_JWE_DECRYPTION_FAILED: "tampered",
  ERR_JWT_EXPIRED: "expired",
  ERR_DECODE_REJECTED: "rejected",
}

/**
 * The kind of a failure to open a session cookie, or `undefined` when the failure is not
 * the cookie's (a bug, a custom decoder that crashed): that one is a real error.
 */
export function unreadableKind(error: unknown): UnreadableKind | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === "string" && Object.hasOwn(kinds, code) ? kinds[code] : undefined
}
