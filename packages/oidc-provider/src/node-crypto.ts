/**
 * The synchronous `node:crypto` path for hashing, signing and checking signatures, where
 * the runtime offers it through `process.getBuiltinModule` (Node ≥ 22.3, and runtimes with
 * Node compatibility that implement it). Each WebCrypto call is an asynchronous job in Node —
 * a thread-pool hop and a structured clone of its input — which cost more than the work
 * itself for a short hash or one ECDSA
 * signature: the token endpoint made five such calls per code exchange, userinfo one
 * `verify` (issue 34's profile). Elsewhere (edge runtimes) callers keep WebCrypto.
 *
 * What is detected here is the runtime's capability, the same for every configuration in the
 * process: nothing per configuration lives in this module (keys are converted from their JWK
 * once and kept on the key ring's own records).
 * @module
 */
import type { JWK } from "jose"
import type { SigningAlg } from "./options.js"

/** The part of `node:crypto` used here (typed locally: no `node:` type import in a runtime-neutral package). */
export interface NodeCryptoLike {
  createHash(alg: string): { update(data: string | Uint8Array): { digest(): Uint8Array; digest(encoding: "hex" | "base64url"): string } }
  /** The one-shot digest (Node ≥ 21.7; `"buffer"` from Node 22). */
  hash?(alg: string, data: string, encoding: "hex" | "base64url"): string
  hash?(alg: string, data: string, encoding: "buffer"): Uint8Array
  /** A signature on libuv's thread pool, answered through `callback` (a string is signed as its UTF-8). */
  sign(alg: string | null, data: string | Uint8Array, key: unknown, callback: (error: Error | null, signature: Uint8Array) => void): void
  verify(alg: string | null, data: Uint8Array, key: unknown, signature: Uint8Array): boolean
  createPrivateKey(input: { key: Record<string, unknown>; format: "jwk" }): unknown
  createPublicKey(input: { key: Record<string, unknown>; format: "jwk" }): unknown
  constants: { RSA_PKCS1_PSS_PADDING: number; RSA_PSS_SALTLEN_DIGEST: number }
}

/** `node:crypto` where `process.getBuiltinModule` offers it, else `undefined`. */
export function findNodeCrypto(host: { process?: { getBuiltinModule?: (id: string) => unknown } } = globalThis as never): NodeCryptoLike | undefined {
  const get = host.process?.getBuiltinModule
  if (typeof get !== "function") return undefined
  try {
    const found = get.call(host.process, "node:crypto") as NodeCryptoLike | undefined
    return found && typeof found.sign === "function" && typeof found.createPublicKey === "function" ? found : undefined
  } catch {
    return undefined
  }
}

/** The runtime's `node:crypto`, looked up once (a capability of the process, not state). */
export const nodeCrypto: NodeCryptoLike | undefined = findNodeCrypto()

/** The part of node's `Buffer` used here: base64url in native code. */
export interface NodeBufferLike {
  from(data: ArrayBufferLike, byteOffset: number, length: number): { toString(encoding: "base64url"): string }
  from(data: string, encoding: "utf8"): { toString(encoding: "base64url"): string }
}

/**
 * The runtime's `Buffer` where `process.getBuiltinModule` offers it (as {@link findNodeCrypto}):
 * base64url of a signed token's parts in native code instead of a string built byte by byte
 * for `btoa` (issue 34's profile). A capability of the process, not state.
 */
export const nodeBuffer: NodeBufferLike | undefined = (() => {
  const host = globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
  const get = host.process?.getBuiltinModule
  if (typeof get !== "function") return undefined
  try {
    const found = (get.call(host.process, "node:buffer") as { Buffer?: NodeBufferLike } | undefined)?.Buffer
    return found && typeof found.from === "function" ? found : undefined
  } catch {
    return undefined
  }
})()

/** A private JWK as a `node:crypto` key, or `undefined` where node:crypto is not offered (the key ring keeps it beside the CryptoKey). */
export function nodePrivateKey(jwk: JWK): unknown {
  return nodeCrypto?.createPrivateKey({ key: jwk as Record<string, unknown>, format: "jwk" })
}

/** The options `node:crypto` signs and verifies `alg` with for `keyObject`. */
function keyOptions(crypto: NodeCryptoLike, keyObject: unknown, alg: SigningAlg): unknown {
  if (alg === "ES256") return { key: keyObject, dsaEncoding: "ieee-p1363" }
  if (alg === "PS256") return { key: keyObject, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: crypto.constants.RSA_PSS_SALTLEN_DIGEST }
  return keyObject
}

/** The digest `node:crypto` signs `alg` with (EdDSA hashes internally). */
const digestOf = (alg: SigningAlg): string | null => (alg === "EdDSA" ? null : "sha256")

const encoder = new TextEncoder()

/**
 * A JWS signature over `signingInput` with the key ring's `node:crypto` key, or `undefined`
 * where there is none. Signed on libuv's thread pool (node:crypto's callback form): an ECDSA
 * or RSA signature is most of a token response's work (issue 34's profile: two signatures
 * were 16 % of the loop's time per code exchange). Off the event loop it costs the loop a job
 * handed over and its answer taken back — a quarter of signing in place on an idle machine,
 * about half on two busy cores — and the loop serves other requests meanwhile: the token rows
 * gained a third in req/s (docs/benchmarks.md, sixth pass). The pool is libuv's own (4 threads
 * unless `UV_THREADPOOL_SIZE` says otherwise), shared with file system and DNS work.
 */
export function nodeSign(key: { nodeKey?: unknown }, alg: SigningAlg, signingInput: string): Promise<Uint8Array> | undefined {
  const crypto = nodeCrypto
  if (!crypto || key.nodeKey === undefined) return undefined
  // ES256 is signed with the bare key object and its DER signature re-encoded here: an
  // options object ({ key, dsaEncoding }) makes node:crypto probe it as a key first (two
  // failed brand checks that throw internally), which cost as much as the ECDSA itself (issue 34).
  const es256 = alg === "ES256"
  const options = es256 ? key.nodeKey : keyOptions(crypto, key.nodeKey, alg)
  return new Promise((resolve, reject) => {
    // The string as it is: node:crypto signs its UTF-8 (a JWS signing input is ASCII).
    crypto.sign(digestOf(alg), signingInput, options, (error, signature) => {
      if (error) return reject(error)
      try {
        resolve(es256 ? derToJose(signature, ES256_PART) : signature)
      } catch (thrown) {
        reject(thrown)
      }
    })
  })
}

/** The length of r and of s in an ES256 signature (P-256: 32 bytes each, RFC 7518 §3.4). */
const ES256_PART = 32

/**
 * An ECDSA signature from its DER form (`SEQUENCE { INTEGER r, INTEGER s }`, what OpenSSL
 * answers) to JWS's fixed-length `r || s` (RFC 7518 §3.4). Throws on anything but that shape.
 */
export function derToJose(der: Uint8Array, part: number): Uint8Array {
  let at = 0
  const byte = () => {
    if (at >= der.length) throw new Error("truncated ECDSA signature")
    return der[at++]!
  }
  const length = () => {
    const first = byte()
    if (first < 0x80) return first
    if (first !== 0x81) throw new Error("ECDSA signature too long")
    return byte()
  }
  if (byte() !== 0x30 || length() !== der.length - at) throw new Error("not a DER ECDSA signature")
  const out = new Uint8Array(part * 2)
  for (let i = 0; i < 2; i++) {
    if (byte() !== 0x02) throw new Error("not a DER ECDSA signature")
    let size = length()
    let start = at
    at += size
    if (at > der.length) throw new Error("truncated ECDSA signature")
    // An INTEGER is signed: a leading zero keeps a high bit positive; the JWS form has none.
    while (size > part && der[start] === 0) {
      start++
      size--
    }
    if (size > part) throw new Error("ECDSA signature part too long")
    out.set(der.subarray(start, start + size), i * part + (part - size))
  }
  if (at !== der.length) throw new Error("trailing bytes after an ECDSA signature")
  return out
}

/**
 * Whether `signature` is `alg`'s over `signingInput` with the public key `record.jwk`
 * (converted once, kept on the record), or `undefined` where node:crypto is not offered.
 */
export function nodeVerify(record: { jwk: JWK; nodeKey?: unknown }, alg: SigningAlg, signingInput: string, signature: Uint8Array): boolean | undefined {
  const crypto = nodeCrypto
  if (!crypto) return undefined
  const keyObject = (record.nodeKey ??= crypto.createPublicKey({ key: record.jwk as Record<string, unknown>, format: "jwk" }))
  try {
    return crypto.verify(digestOf(alg), encoder.encode(signingInput), keyOptions(crypto, keyObject, alg), signature)
  } catch {
    // A malformed signature (wrong length for the curve) is a failed check, not an error.
    return false
  }
}
