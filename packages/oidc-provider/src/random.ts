/**
 * Random values and hashes for codes, tokens and ids (WebCrypto: runs on every runtime).
 * @module
 */
import { nodeBuffer, nodeCrypto } from "./node-crypto.js"

const encoder = new TextEncoder()

/** `bytes` random bytes as base64url: codes, refresh tokens, ids. */
export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)))
}

/** Bytes fetched from the CSPRNG at once by a {@link RandomPool}. */
const POOL_BYTES = 4096

/**
 * {@link randomToken} from a buffer of CSPRNG output filled 4 KiB at a time: one
 * `getRandomValues` call costs as much as a short hash (a crossing into the runtime's
 * native code and its checks), and the token endpoint draws three values per answer
 * (issue 34's profile: 8% of a refresh). Node's `randomUUID` keeps such a cache too. Each
 * value is taken once: the bytes handed out are zeroed, so none is given twice and none
 * stays in memory after use. One pool per OpenID Provider configuration (`Locals`).
 */
export class RandomPool {
  readonly #pool = new Uint8Array(POOL_BYTES)
  #offset = POOL_BYTES

  /** `bytes` (at most 256) random bytes as base64url. */
  token(bytes = 32): string {
    if (bytes > 256) return randomToken(bytes)
    if (this.#offset + bytes > POOL_BYTES) {
      crypto.getRandomValues(this.#pool)
      this.#offset = 0
    }
    const start = this.#offset
    this.#offset = start + bytes
    const out = base64url(this.#pool.subarray(start, start + bytes))
    this.#pool.fill(0, start, start + bytes)
    return out
  }
}

/** base64url of `text`'s UTF-8 (a JWS part): in native code where `Buffer` is offered. */
export function base64urlText(text: string): string {
  if (nodeBuffer) return nodeBuffer.from(text, "utf8").toString("base64url")
  return base64url(encoder.encode(text))
}

export function base64url(bytes: Uint8Array): string {
  if (nodeBuffer) return nodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url")
  let s = ""
  for (const b of bytes) s += String.fromCharCode(b)
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

/** Bytes of a base64url string (no padding), or `null` when it is not strictly base64url. */
export function fromBase64url(value: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(value) || value.length % 4 === 1) return null
  const binary = atob(value.replace(/-/g, "+").replace(/_/g, "/"))
  const out = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
  return out
}

/** Lowercase hex SHA-256: how codes, tokens and secrets are kept and looked up. */
export async function sha256Hex(value: string): Promise<string> {
  // Synchronous where node:crypto is offered: a WebCrypto digest is a thread-pool job (node-crypto.ts).
  // `hash` (Node ≥ 21.7) is the one-shot digest: no Hash object per call.
  if (nodeCrypto) return nodeCrypto.hash ? nodeCrypto.hash("sha256", value, "hex") : nodeCrypto.createHash("sha256").update(value).digest("hex")
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(value)))
  let out = ""
  for (const b of digest) out += b.toString(16).padStart(2, "0")
  return out
}

/** base64url SHA-256 (PKCE S256, RFC 7636 §4.2). */
export async function sha256B64(value: string): Promise<string> {
  if (nodeCrypto) return nodeCrypto.hash ? nodeCrypto.hash("sha256", value, "base64url") : nodeCrypto.createHash("sha256").update(value).digest("base64url")
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(value))))
}

/**
 * Compares without an early exit (secrets' hashes). Code unit by code unit: equal strings
 * have equal UTF-16 units, and no copy of either is made (this runs on every client
 * authentication).
 */
export function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length
  const n = Math.max(a.length, b.length)
  // charCodeAt past the end is NaN, which `| 0` makes 0: a shorter string reads as zeros.
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0)
  return diff === 0
}
