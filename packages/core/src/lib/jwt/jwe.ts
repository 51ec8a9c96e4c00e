import { EncryptJWT, errors, jwtDecrypt, type JWTDecryptOptions } from "jose"
import { CONTENT_ENCRYPTIONS, type ContentEncryption } from "./encryptions.js"

/**
 * The compact-JWE work behind session tokens (`alg: "dir"`), in two interchangeable
 * implementations with the same wire format and the same accept/reject decisions:
 *
 * - {@link webCryptoJwe}: jose over WebCrypto, for every runtime (edge runtimes included);
 * - {@link nodeCryptoJwe}: synchronous `node:crypto` (`createDecipheriv`, `createHmac`,
 *   `timingSafeEqual`) for tokens of the exact shape Portcullis and Auth.js write. Anything
 *   else (extra header parameters, an encrypted key, odd segment lengths or encodings) is
 *   handed to the WebCrypto path, so that jose keeps deciding every unusual case.
 *
 * {@link defaultJwe} picks one at runtime: there is no static `node:` import, so the module
 * bundles for runtimes without Node's built-ins.
 */
export interface JweCodec {
  readonly kind: "node-crypto" | "webcrypto"
  /**
   * Decrypts `token` with the content-encryption key `key` and checks its claims like
   * jose's `jwtDecrypt` with Portcullis's options (15 s clock tolerance, `dir` only,
   * {@link CONTENT_ENCRYPTIONS} only); throws jose's error classes.
   */
  decrypt(token: string, key: Uint8Array): Record<string, unknown> | Promise<Record<string, unknown>>
  /**
   * Encrypts the finished claims (`iat`, `exp`, `jti` set) under the protected header
   * `{ alg: "dir", enc, kid }`. `iv` is for tests only: production IVs are random.
   */
  encrypt(claims: Record<string, unknown>, header: JweWriteHeader, key: Uint8Array, iv?: Uint8Array): string | Promise<string>
}

/** The protected header Portcullis writes (key order as written: alg, enc, kid). */
export interface JweWriteHeader {
  alg: "dir"
  enc: ContentEncryption
  kid: string
}

/** Seconds of clock tolerance on `exp` and `nbf`, for both paths. */
const CLOCK_TOLERANCE = 15
const decryptOptions: JWTDecryptOptions = {
  clockTolerance: CLOCK_TOLERANCE,
  keyManagementAlgorithms: ["dir"],
  contentEncryptionAlgorithms: [...CONTENT_ENCRYPTIONS],
}

/** jose over WebCrypto: the portable path, and the reference the Node path is tested against. */
export const webCryptoJwe: JweCodec = {
  kind: "webcrypto",
  async decrypt(token, key) {
    return (await jwtDecrypt(token, key, decryptOptions)).payload as Record<string, unknown>
  },
  encrypt(claims, header, key, iv) {
    const jwt = new EncryptJWT(claims).setProtectedHeader({ ...header })
    if (iv) jwt.setInitializationVector(iv)
    return jwt.encrypt(key)
  },
}

/** The part of `node:crypto` the Node path uses (typed here, so no `node:` type import either). */
export interface NodeCryptoLike {
  createSecretKey(key: Uint8Array): NodeKeyObject
  createHmac(algorithm: string, key: NodeKeyObject): { update(data: Uint8Array): unknown; digest(): Uint8Array }
  createDecipheriv(algorithm: string, key: NodeKeyObject, iv: Uint8Array, options?: { authTagLength: number }): NodeCipherLike & {
    setAAD(data: Uint8Array): unknown
    setAuthTag(tag: Uint8Array): unknown
  }
  createCipheriv(algorithm: string, key: NodeKeyObject, iv: Uint8Array, options?: { authTagLength: number }): NodeCipherLike & {
    setAAD(data: Uint8Array): unknown
    getAuthTag(): Uint8Array
  }
  timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean
  randomFillSync<T extends Uint8Array>(buffer: T): T
}
/** A `node:crypto` `KeyObject` (opaque here). */
export interface NodeKeyObject {
  readonly type: string
}
interface NodeCipherLike {
  update(data: Uint8Array): Uint8Array
  final(): Uint8Array
}
/** The part of `node:buffer`'s `Buffer` the Node path uses. */
export interface NodeBufferLike {
  from(data: string, encoding: "base64url" | "latin1"): Uint8Array & { toString(encoding: "base64url"): string }
  from(data: Uint8Array): Uint8Array & { toString(encoding: "base64url"): string }
  concat(list: readonly Uint8Array[]): Uint8Array
  alloc(size: number): Uint8Array & { writeUInt32BE(value: number, offset: number): number }
}

/** Unpadded base64url of a length jose decodes (a remainder of 1 character is never valid). */
const BASE64URL = /^[A-Za-z0-9_-]*$/
function canonicalSegment(segment: string): boolean {
  return segment.length % 4 !== 1 && BASE64URL.test(segment)
}

/**
 * jose's `isObject`: a plain object (JSON objects are; arrays are not). jose also asks
 * `typeof value === "object" && value !== null` first; the tag alone answers the same
 * (a primitive's or null's tag is never `[object Object]`).
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (Object.prototype.toString.call(value) !== "[object Object]") return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === null || Object.getPrototypeOf(prototype) === null
}

/**
 * The claims of a decrypted token, checked exactly as jose's `jwtDecrypt` checks them with
 * {@link decryptOptions}: a top-level JSON object in strict UTF-8; `iat`, `nbf` and `exp`
 * numbers when present; not before `nbf` and not past `exp`, 15 s either way.
 */
function checkedClaims(plaintext: Uint8Array, decoder: TextDecoder): Record<string, unknown> {
  let claims: unknown
  try {
    claims = JSON.parse(decoder.decode(plaintext))
  } catch (cause) {
    throw new errors.JWTInvalid("JWT Claims Set must be a top-level JSON object", { cause })
  }
  if (!isPlainObject(claims)) throw new errors.JWTInvalid("JWT Claims Set must be a top-level JSON object")
  const now = Math.floor(Date.now() / 1000)
  const numeric = (claim: "iat" | "nbf" | "exp") => {
    const value = claims[claim]
    if (value !== undefined && typeof value !== "number") {
      throw new errors.JWTClaimValidationFailed(`"${claim}" claim must be a number`, claims, claim, "invalid")
    }
    return value
  }
  numeric("iat")
  const nbf = numeric("nbf")
  if (nbf !== undefined && nbf > now + CLOCK_TOLERANCE) {
    throw new errors.JWTClaimValidationFailed('"nbf" claim timestamp check failed', claims, "nbf", "check_failed")
  }
  const exp = numeric("exp")
  if (exp !== undefined && exp <= now - CLOCK_TOLERANCE) {
    throw new errors.JWTExpired('"exp" claim timestamp check failed', claims, "exp", "check_failed")
  }
  return claims
}

/** Segment sizes of the two encryptions: key, IV and tag bytes. */
const SHAPES: Record<ContentEncryption, { key: number; iv: number; tag: number }> = {
  "A256CBC-HS512": { key: 64, iv: 16, tag: 32 },
  A256GCM: { key: 32, iv: 12, tag: 16 },
}

/** RFC 7518 content encryption (§5.2.5 A256CBC-HS512, §5.3 A256GCM) over `node:crypto`. */
export interface ContentCipher {
  encrypt(enc: ContentEncryption, key: Uint8Array, iv: Uint8Array, aad: Uint8Array, plaintext: Uint8Array): { ciphertext: Uint8Array; tag: Uint8Array }
  /** Throws jose's `JWEDecryptionFailed` for a wrong tag, key or padding. */
  decrypt(enc: ContentEncryption, key: Uint8Array, iv: Uint8Array, aad: Uint8Array, ciphertext: Uint8Array, tag: Uint8Array): Uint8Array
}

/** Content encryption over `crypto`; the caller checks key, IV and tag lengths ({@link SHAPES}). */
export function nodeContentCipher(crypto: NodeCryptoLike, buffer: NodeBufferLike): ContentCipher {
  /**
   * `KeyObject`s of each key, made once: handed raw bytes, every `createHmac` and
   * `createDecipheriv` first probes whether they are a KeyObject or a CryptoKey, which costs
   * more than the decryption itself. Keyed by the key's bytes object (a key ring keeps one
   * per derived key, and never changes its bytes), weakly, so keys dropped by their ring
   * are dropped here too.
   */
  const keyObjects = new WeakMap<Uint8Array, { for: ContentEncryption; mac: NodeKeyObject; enc: NodeKeyObject }>()
  function keyObjectsOf(enc: ContentEncryption, key: Uint8Array) {
    let objects = keyObjects.get(key)
    if (objects?.for !== enc) {
      // A256CBC-HS512: MAC_KEY is the first half, ENC_KEY the second (RFC 7518 §5.2.2.1).
      objects = enc === "A256CBC-HS512"
        ? { for: enc, mac: crypto.createSecretKey(buffer.from(key.subarray(0, 32))), enc: crypto.createSecretKey(buffer.from(key.subarray(32))) }
        : { for: enc, mac: crypto.createSecretKey(buffer.from(key)), enc: crypto.createSecretKey(buffer.from(key)) }
      // Stryker disable next-line CallExpression: a cache only; without it the same KeyObjects are made again on every call
      keyObjects.set(key, objects)
    }
    return objects
  }
  /** 64-bit big-endian bit length of the AAD (RFC 7518 §5.2.2.1 "AL"). */
  function aadBits(aad: Uint8Array): Uint8Array {
    const al = buffer.alloc(8)
    const bits = aad.length * 8
    al.writeUInt32BE(Math.floor(bits / 2 ** 32), 0)
    al.writeUInt32BE(bits % 2 ** 32, 4)
    return al
  }

  /** RFC 7518 §5.2.2.1: T = the first 32 bytes of HMAC-SHA-512(MAC_KEY, AAD || IV || C || AL). */
  function cbcTag(macKey: NodeKeyObject, aad: Uint8Array, iv: Uint8Array, ciphertext: Uint8Array): Uint8Array {
    const hmac = crypto.createHmac("sha512", macKey)
    hmac.update(aad)
    hmac.update(iv)
    hmac.update(ciphertext)
    hmac.update(aadBits(aad))
    return hmac.digest().subarray(0, 32)
  }

  return {
    encrypt(enc, key, iv, aad, plaintext) {
      const keys = keyObjectsOf(enc, key)
      if (enc === "A256CBC-HS512") {
        const cipher = crypto.createCipheriv("aes-256-cbc", keys.enc, iv)
        const ciphertext = buffer.concat([cipher.update(plaintext), cipher.final()])
        return { ciphertext, tag: cbcTag(keys.mac, aad, iv, ciphertext) }
      }
      const cipher = crypto.createCipheriv("aes-256-gcm", keys.enc, iv, { authTagLength: 16 })
      cipher.setAAD(aad)
      const ciphertext = buffer.concat([cipher.update(plaintext), cipher.final()])
      return { ciphertext, tag: cipher.getAuthTag() }
    },
    decrypt(enc, key, iv, aad, ciphertext, tag) {
      const keys = keyObjectsOf(enc, key)
      if (enc === "A256CBC-HS512") {
        const expected = cbcTag(keys.mac, aad, iv, ciphertext)
        // Lengths first (timingSafeEqual needs equal ones), then a constant-time comparison.
        if (expected.length !== tag.length || !crypto.timingSafeEqual(expected, tag)) throw new errors.JWEDecryptionFailed()
        try {
          const decipher = crypto.createDecipheriv("aes-256-cbc", keys.enc, iv)
          return buffer.concat([decipher.update(ciphertext), decipher.final()])
        // Stryker disable next-line BlockStatement,CallExpression: emptied, a padding failure falls through to the GCM tag-length check below, which throws the same JWEDecryptionFailed for this 32-byte tag
        } catch {
          // Stryker disable next-line CallExpression: as above, the fall-through throws the same error
          throw new errors.JWEDecryptionFailed()
        }
      }
      // GCM compares the tag inside OpenSSL (constant time); its length is fixed to 16 bytes.
      if (tag.length !== 16) throw new errors.JWEDecryptionFailed()
      try {
        const decipher = crypto.createDecipheriv("aes-256-gcm", keys.enc, iv, { authTagLength: 16 })
        decipher.setAAD(aad)
        decipher.setAuthTag(tag)
        return buffer.concat([decipher.update(ciphertext), decipher.final()])
      } catch {
        throw new errors.JWEDecryptionFailed()
      }
    },
  }
}

/**
 * The synchronous Node path over the given `node:crypto` and `Buffer` (see
 * {@link defaultJwe} for how they are found). Tokens it does not handle itself go to
 * `fallback` (jose), so both paths decide every input alike.
 */
export function nodeCryptoJwe(crypto: NodeCryptoLike, buffer: NodeBufferLike, fallback: JweCodec = webCryptoJwe): JweCodec {
  const strictUtf8 = new TextDecoder("utf-8", { fatal: true })
  const content = nodeContentCipher(crypto, buffer)
  const b64 = (bytes: Uint8Array) => buffer.from(bytes).toString("base64url")

  /**
   * What a protected-header segment says, if it is one this path handles: its `enc` and
   * its bytes as the AAD (which nothing changes: they only go to the MAC or the cipher).
   * A pure function of the segment, and every token under one key has the same header, so
   * the last answer is kept: a session check then parses no header here. A different
   * segment (another key, or an attacker's) is worked out afresh, at today's cost.
   */
  let lastHeader: { segment: string; answer: { enc: ContentEncryption; aad: Uint8Array } | undefined } | undefined
  function plainHeader(segment: string): { enc: ContentEncryption; aad: Uint8Array } | undefined {
    if (lastHeader?.segment === segment) return lastHeader.answer
    const answer = readPlainHeader(segment)
    lastHeader = { segment, answer }
    return answer
  }
  function readPlainHeader(header: string): { enc: ContentEncryption; aad: Uint8Array } | undefined {
    if (!canonicalSegment(header)) return undefined
    let parsed: unknown
    try {
      parsed = JSON.parse(strictUtf8.decode(buffer.from(header, "base64url")))
    } catch {
      // Not UTF-8 JSON: `parsed` stays undefined, which the object check below hands to jose.
    }
    if (!isPlainObject(parsed)) return undefined
    // Only alg, enc and kid: crit, zip, replicated claims and the rest are jose's to judge.
    for (const name in parsed) if (name !== "alg" && name !== "enc" && name !== "kid") return undefined
    // `kid` is not looked at: jose ignores it when decrypting (a `kid` of 5 opens there
    // too), so both engines answer alike without a check of it here.
    const { alg, enc } = parsed
    if (alg !== "dir" || (enc !== "A256CBC-HS512" && enc !== "A256GCM")) return undefined
    return { enc: enc as ContentEncryption, aad: buffer.from(header, "latin1") }
  }

  /** The token's segments and `enc` if it has exactly the shape this path handles, else undefined. */
  function plainShape(token: string, key: Uint8Array) {
    const parts = token.split(".")
    if (parts.length !== 5) return undefined
    const [header, encryptedKey, iv, ciphertext, tag] = parts as [string, string, string, string, string]
    // `dir` carries no encrypted key; jose words the refusal of one.
    if (encryptedKey !== "" || !canonicalSegment(iv) || !canonicalSegment(ciphertext) || !canonicalSegment(tag)) return undefined
    const checked = plainHeader(header)
    if (!checked) return undefined
    const { enc, aad } = checked
    const shape = SHAPES[enc]
    const ivBytes = buffer.from(iv, "base64url")
    const tagBytes = buffer.from(tag, "base64url")
    if (key.length !== shape.key || ivBytes.length !== shape.iv || tagBytes.length !== shape.tag) return undefined
    return { enc, aad, iv: ivBytes, ciphertext: buffer.from(ciphertext, "base64url"), tag: tagBytes }
  }

  return {
    kind: "node-crypto",
    decrypt(token, key) {
      const shape = typeof token === "string" && key instanceof Uint8Array ? plainShape(token, key) : undefined
      if (!shape) return fallback.decrypt(token, key)
      const { enc, aad, iv, ciphertext, tag } = shape
      return checkedClaims(content.decrypt(enc, key, iv, aad, ciphertext, tag), strictUtf8)
    },
    encrypt(claims, header, key, iv) {
      const shape = SHAPES[header.enc]
      if (!shape || header.alg !== "dir" || !(key instanceof Uint8Array) || key.length !== shape.key || (iv && iv.length !== shape.iv)) {
        return fallback.encrypt(claims, header, key, iv)
      }
      const plaintext = encodedClaims(claims)
      const protectedHeader = b64(new TextEncoder().encode(JSON.stringify({ alg: header.alg, enc: header.enc, kid: header.kid })))
      const nonce = iv ?? crypto.randomFillSync(buffer.alloc(shape.iv))
      const { ciphertext, tag } = content.encrypt(header.enc, key, nonce, buffer.from(protectedHeader, "latin1"), plaintext)
      return `${protectedHeader}..${b64(nonce)}.${b64(ciphertext)}.${b64(tag)}`
    },
  }
}

/**
 * The claims as jose's `EncryptJWT` serialises them: a plain object, `iat`/`nbf`/`exp`
 * finite when they are numbers, then `JSON.stringify`.
 */
function encodedClaims(claims: Record<string, unknown>): Uint8Array {
  if (!isPlainObject(claims)) throw new TypeError("JWT Claims Set MUST be an object")
  for (const claim of ["iat", "nbf", "exp"]) {
    const value = claims[claim]
    if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError(`"${claim}" claim must be a finite number`)
  }
  return new TextEncoder().encode(JSON.stringify(claims))
}

/**
 * The Node path where `process.getBuiltinModule` offers `node:crypto` and `node:buffer`
 * (Node ≥ 22.3, Deno, Bun), otherwise WebCrypto. Looked up when called — no `node:`
 * specifier anywhere in core — and called once per key ring (one per configuration).
 * `host` is the global scope to look in (a test passes one without `process`).
 */
export function defaultJwe(host: { process?: { getBuiltinModule?: (id: string) => unknown } } = globalThis): JweCodec {
  const get = host.process?.getBuiltinModule
  if (typeof get !== "function") return webCryptoJwe
  try {
    const crypto = get.call(host.process, "node:crypto") as NodeCryptoLike | undefined
    const buffer = (get.call(host.process, "node:buffer") as { Buffer?: NodeBufferLike } | undefined)?.Buffer
    if (!crypto || !buffer || typeof crypto.createDecipheriv !== "function" || typeof crypto.createSecretKey !== "function" || typeof crypto.timingSafeEqual !== "function") return webCryptoJwe
    return nodeCryptoJwe(crypto, buffer)
  } catch {
    return webCryptoJwe
  }
}
