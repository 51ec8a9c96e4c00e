import { base64url } from "jose"
import { isContentEncryption, type ContentEncryption } from "./keys.js"

/** Why a token was refused before any key was touched; `code` is in the style of jose's errors. */
class RefusedToken extends Error {
  constructor(
    readonly code: "ERR_JWE_MALFORMED" | "ERR_JWE_ALG_REFUSED" | "ERR_JWE_ENC_REFUSED",
    message: string,
  ) {
    super(message)
    this.name = "RefusedToken"
  }
}

/** The parts of a JWE protected header decryption depends on, checked. */
export interface JweHeader {
  enc: ContentEncryption
  kid: string | undefined
}

/** Longest header segment read; ours is about 180 characters. */
const HEADER_LIMIT = 2048
/** Longest `kid` compared; ours is a 86-character thumbprint. */
const KID_LIMIT = 256
/** Strict UTF-8 (stateless for one-shot decodes, so one serves every call). */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * Reads and checks a compact JWE's protected header before anything is derived or
 * decrypted. The header is the attacker's to write: an `enc` taken from it used to pick
 * which key to derive, so random values each cost an HKDF and evicted real keys. Now only
 * `alg: "dir"` with `A256CBC-HS512` or `A256GCM` goes further; the rest is refused here,
 * for the price of a JSON parse.
 */
export function readJweHeader(token: string): JweHeader {
  const dot = token.indexOf(".")
  if (dot <= 0 || dot > HEADER_LIMIT) throw new RefusedToken("ERR_JWE_MALFORMED", "The token is not a compact JWE")
  if (token.split(".", 6).length !== 5) throw new RefusedToken("ERR_JWE_MALFORMED", "The token is not a compact JWE (five segments)")
  let header: unknown
  try {
    header = JSON.parse(strictUtf8.decode(base64url.decode(token.slice(0, dot))))
  } catch {
    throw new RefusedToken("ERR_JWE_MALFORMED", "The token header does not parse")
  }
  if (!header || typeof header !== "object" || Array.isArray(header)) throw new RefusedToken("ERR_JWE_MALFORMED", "The token header is not an object")
  const { alg, enc, kid } = header as Record<string, unknown>
  if (alg !== "dir") throw new RefusedToken("ERR_JWE_ALG_REFUSED", "The token's alg is not dir")
  if (!isContentEncryption(enc)) throw new RefusedToken("ERR_JWE_ENC_REFUSED", "The token's enc is not A256CBC-HS512 or A256GCM")
  if (kid !== undefined && (typeof kid !== "string" || !kid || kid.length > KID_LIMIT)) throw new RefusedToken("ERR_JWE_MALFORMED", "The token's kid is not a short string")
  return { enc, kid }
}
