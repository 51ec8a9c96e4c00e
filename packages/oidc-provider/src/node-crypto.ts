/**
 * The synchronous `node:crypto` path for hashing, signing and checking signatures, where
 * the runtime offers it through `process.getBuiltinModule` (Node ≥ 22.3, Bun, Deno). Each
 * WebCrypto call is an asynchronous job in Node — a thread-pool hop and a structured clone
 * of its input — which cost more than the work itself for a short hash or one ECDSA
 * signature: the token endpoint made five such calls per code exchange, userinfo one
 * `verify` (issue 34's profile). Elsewhere (edge runtimes) callers keep WebCrypto.
 *
 * What is detected here is the runtime's capability, the same for every configuration in the
 * process: nothing per configuration lives in this module (keys are converted once and kept
 * on the key ring's own records).
 * @module
 */
import type { CryptoKey } from "jose"
import type { SigningAlg } from "./options.js"

/** The part of `node:crypto` used here (typed locally: no `node:` type import in a runtime-neutral package). */
export interface NodeCryptoLike {
  createHash(alg: string): { update(data: string | Uint8Array): { digest(): Uint8Array; digest(encoding: "hex" | "base64url"): string } }
  sign(alg: string | null, data: Uint8Array, key: unknown): Uint8Array
  verify(alg: string | null, data: Uint8Array, key: unknown, signature: Uint8Array): boolean
  KeyObject: { from(key: CryptoKey): unknown }
  constants: { RSA_PKCS1_PSS_PADDING: number; RSA_PSS_SALTLEN_DIGEST: number }
}

/** `node:crypto` where `process.getBuiltinModule` offers it, else `undefined`. */
export function findNodeCrypto(host: { process?: { getBuiltinModule?: (id: string) => unknown } } = globalThis as never): NodeCryptoLike | undefined {
  const get = host.process?.getBuiltinModule
  if (typeof get !== "function") return undefined
  try {
    const found = get.call(host.process, "node:crypto") as NodeCryptoLike | undefined
    return found && typeof found.sign === "function" && typeof found.KeyObject?.from === "function" ? found : undefined
  } catch {
    return undefined
  }
}

/** The runtime's `node:crypto`, looked up once (a capability of the process, not state). */
export const nodeCrypto: NodeCryptoLike | undefined = findNodeCrypto()

/** A key as `node:crypto` takes it for `alg`, converted once and kept on `holder`. */
function nodeKeyFor(crypto: NodeCryptoLike, holder: { nodeKey?: unknown }, key: CryptoKey, alg: SigningAlg): unknown {
  const keyObject = (holder.nodeKey ??= crypto.KeyObject.from(key))
  if (alg === "ES256") return { key: keyObject, dsaEncoding: "ieee-p1363" }
  if (alg === "PS256") return { key: keyObject, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: crypto.constants.RSA_PSS_SALTLEN_DIGEST }
  return keyObject
}

/** The digest `node:crypto` signs `alg` with (EdDSA hashes internally). */
const digestOf = (alg: SigningAlg): string | null => (alg === "EdDSA" ? null : "sha256")

const encoder = new TextEncoder()

/** A JWS signature over `signingInput` with `node:crypto`, or `undefined` where it is not offered. */
export function nodeSign(holder: { nodeKey?: unknown }, key: CryptoKey, alg: SigningAlg, signingInput: string): Uint8Array | undefined {
  const crypto = nodeCrypto
  if (!crypto) return undefined
  return crypto.sign(digestOf(alg), encoder.encode(signingInput), nodeKeyFor(crypto, holder, key, alg))
}

/** Whether `signature` is `alg`'s over `signingInput` (`node:crypto`), or `undefined` where it is not offered. */
export function nodeVerify(holder: { nodeKey?: unknown }, key: CryptoKey, alg: SigningAlg, signingInput: string, signature: Uint8Array): boolean | undefined {
  const crypto = nodeCrypto
  if (!crypto) return undefined
  try {
    return crypto.verify(digestOf(alg), encoder.encode(signingInput), nodeKeyFor(crypto, holder, key, alg), signature)
  } catch {
    // A malformed signature (wrong length for the curve) is a failed check, not an error.
    return false
  }
}
