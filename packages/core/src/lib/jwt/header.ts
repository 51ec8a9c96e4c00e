import { base64url } from "jose"
import { isContentEncryption, type ContentEncryption } from "./encryptions.js"

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
export function readJweHeader(token: string, memo?: HeaderMemo): JweHeader {
  const dot = token.indexOf(".")
  if (dot <= 0 || dot > HEADER_LIMIT) throw new RefusedToken("ERR_JWE_MALFORMED", "The token is not a compact JWE")
  if (!fiveSegments(token)) throw new RefusedToken("ERR_JWE_MALFORMED", "The token is not a compact JWE (five segments)")
  const last = memo?.last
  if (last && dot === last.segment.length && token.startsWith(last.segment)) return last.header
  const segment = token.slice(0, dot)
  const header = checkedHeader(segment)
  if (memo) memo.last = { segment, header }
  return header
}

/**
 * The last header segment {@link readJweHeader} accepted, with its (frozen) answer: every
 * token under one key carries the same header, and the answer is a pure function of the
 * segment, so a key ring keeps one of these and a check parses the header once. A refused
 * header is never kept; a different one is read afresh and replaces it.
 */
export interface HeaderMemo {
  last?: { segment: string; header: JweHeader }
}

/** Exactly four dots (what `split(".").length === 5` says, without making five strings). */
function fiveSegments(token: string): boolean {
  let dots = 0
  for (let i = token.indexOf("."); i !== -1; i = token.indexOf(".", i + 1)) if (++dots > 4) return false
  return dots === 4
}

function checkedHeader(segment: string): JweHeader {
  let header: unknown
  try {
    header = JSON.parse(strictUtf8.decode(base64url.decode(segment)))
  } catch {
    throw new RefusedToken("ERR_JWE_MALFORMED", "The token header does not parse")
  }
  if (!header || typeof header !== "object" || Array.isArray(header)) throw new RefusedToken("ERR_JWE_MALFORMED", "The token header is not an object")
  const { alg, enc, kid } = header as Record<string, unknown>
  if (alg !== "dir") throw new RefusedToken("ERR_JWE_ALG_REFUSED", "The token's alg is not dir")
  if (!isContentEncryption(enc)) throw new RefusedToken("ERR_JWE_ENC_REFUSED", "The token's enc is not A256CBC-HS512 or A256GCM")
  if (kid !== undefined && (typeof kid !== "string" || !kid || kid.length > KID_LIMIT)) throw new RefusedToken("ERR_JWE_MALFORMED", "The token's kid is not a short string")
  return Object.freeze({ enc, kid })
}
