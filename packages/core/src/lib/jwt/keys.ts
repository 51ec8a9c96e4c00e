import { base64url, calculateJwkThumbprint } from "jose"
import type { HeaderMemo } from "./header.js"
import { defaultJwe, type JweCodec } from "./jwe.js"
import { isContentEncryption, DEFAULT_ENC, type ContentEncryption } from "./encryptions.js"

export { CONTENT_ENCRYPTIONS, DEFAULT_ENC, isContentEncryption, type ContentEncryption } from "./encryptions.js"

/** A derived key and its `kid` (the JWK thumbprint Auth.js puts in the header). */
export interface DerivedKey {
  key: Uint8Array
  kid: string
}

export type DeriveKey = (secret: string, salt: string, enc: ContentEncryption) => Promise<DerivedKey>

const encoder = new TextEncoder()

/** HKDF-SHA256(secret, salt, info "Auth.js Generated Encryption Key (<salt>)"): exactly Auth.js. */
export const hkdfKey: DeriveKey = async (secret, salt, enc) => {
  // Refused here too, so no caller can make this module derive for an arbitrary label.
  if (!isContentEncryption(enc)) throw new TypeError(`Unsupported content encryption ${JSON.stringify(enc)}`)
  const length = enc === "A256CBC-HS512" ? 64 : 32
  const ikm = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveBits"])
  const bits = await crypto.subtle.deriveBits(
    {
      name: "HKDF",
      hash: "SHA-256",
      salt: encoder.encode(salt),
      // Parentheses even around an empty salt: Auth.js writes them unconditionally, and a key
      // derived without them opens none of its tokens (nor it ours).
      info: encoder.encode(`Auth.js Generated Encryption Key (${salt})`),
    },
    ikm,
    length * 8,
  )
  const key = new Uint8Array(bits)
  const kid = await calculateJwkThumbprint({ kty: "oct", k: base64url.encode(key) }, `sha${key.byteLength << 3}` as "sha512")
  return { key, kid }
}

/**
 * Keys derived once per (secret, salt, enc) and kept: derivation (HKDF plus a SHA-512
 * thumbprint) costs more than a decryption, and the same few combinations recur on every
 * request. Only the app chooses secrets and salts, and `enc` is one of two values, so the
 * ring holds a handful of entries; the limit is a backstop against a misuse of the public
 * `deriveKey`, not something request traffic can reach.
 */
export class KeyRing {
  #keys = new Map<string, Promise<DerivedKey>>()
  #derived = 0
  /** The last (secret, salt, enc) asked for and its key: a check asks for the same one each time. */
  #last: { secret: string; salt: string; enc: ContentEncryption; key: Promise<DerivedKey> } | undefined
  /** The last token header this ring's tokens were read with (see `readJweHeader`). */
  readonly headers: HeaderMemo = {}

  constructor(
    readonly limit = 256,
    private readonly derive: DeriveKey = hkdfKey,
    /** How tokens under these keys are encrypted and decrypted (Node's crypto where available). */
    readonly jwe: JweCodec = defaultJwe(),
  ) {}

  /** How many keys are held. */
  get size(): number {
    return this.#keys.size
  }

  /** How many derivations this ring has run (a cache miss each). */
  get derived(): number {
    return this.#derived
  }

  key(secret: string, salt: string, enc: ContentEncryption = DEFAULT_ENC): Promise<DerivedKey> {
    const last = this.#last
    if (last && last.secret === secret && last.salt === salt && last.enc === enc) return last.key
    if (!isContentEncryption(enc)) return Promise.reject(new TypeError(`Unsupported content encryption ${JSON.stringify(enc)}`))
    // JSON, not a separator: ("a\0b", "c") and ("b", "c\0a") joined by NUL are one string.
    const id = JSON.stringify([enc, salt, secret])
    let hit = this.#keys.get(id)
    if (!hit) {
      this.#derived++
      const derived = this.derive(secret, salt, enc)
      hit = derived
      if (this.#keys.size >= this.limit) this.#keys.delete(this.#keys.keys().next().value!)
      this.#keys.set(id, derived)
      derived.catch(() => {
        this.#keys.delete(id)
        // Stryker disable next-line ConditionalExpression: clearing the last-key shortcut after any failure only costs one map lookup on the next call
        if (this.#last?.key === derived) this.#last = undefined
      })
    }
    this.#last = { secret, salt, enc, key: hit }
    return hit
  }
}
