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
  sign(alg: string | null, data: Uint8Array, key: unknown): Uint8Array
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

/** A JWS signature over `signingInput` with the key ring's `node:crypto` key, or `undefined` where there is none. */
export function nodeSign(key: { nodeKey?: unknown }, alg: SigningAlg, signingInput: string): Uint8Array | undefined {
  const crypto = nodeCrypto
  if (!crypto || key.nodeKey === undefined) return undefined
  return crypto.sign(digestOf(alg), encoder.encode(signingInput), keyOptions(crypto, key.nodeKey, alg))
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
