/** Shared by the JWE tests: both codecs over this process's real `node:crypto`, and random inputs. */
import * as nodeCrypto from "node:crypto"
import { Buffer } from "node:buffer"
import { EncryptJWT, errors } from "jose"
import { nodeContentCipher, nodeCryptoJwe, webCryptoJwe, type JweCodec, type NodeCryptoLike } from "../../src/lib/jwt/jwe.js"
import type { ContentEncryption } from "../../src/lib/jwt/encryptions.js"

export const node = nodeCryptoJwe(nodeCrypto as unknown as NodeCryptoLike, Buffer)
export const web = webCryptoJwe
export const content = nodeContentCipher(nodeCrypto as unknown as NodeCryptoLike, Buffer)
export const ENCS: ContentEncryption[] = ["A256CBC-HS512", "A256GCM"]
export const KEY_BYTES: Record<ContentEncryption, number> = { "A256CBC-HS512": 64, A256GCM: 32 }

/** A seeded generator, so a failure names the iteration that reproduces it. */
export function random(seed: number) {
  let state = seed >>> 0 || 1
  const next = () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 2 ** 32
  }
  const int = (n: number) => Math.floor(next() * n)
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => int(256))
  const alphabet = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.\"\\/<>é漢字😀\u0000\n"
  const string = (max: number) => Array.from({ length: int(max) }, () => [...alphabet][int([...alphabet].length)]).join("")
  const value = (depth: number): unknown => {
    switch (int(depth > 0 ? 7 : 5)) {
      case 0: return string(40)
      case 1: return int(2 ** 31) - 2 ** 30
      case 2: return next() * 1e6
      case 3: return int(2) === 1
      case 4: return null
      case 5: return Array.from({ length: int(4) }, () => value(depth - 1))
      default: return payload(depth - 1)
    }
  }
  const payload = (depth = 2): Record<string, unknown> => {
    const out: Record<string, unknown> = {}
    for (let i = int(8); i > 0; i--) out[string(12) || "k"] = value(depth)
    return out
  }
  return { int, bytes, string, payload }
}

/** Claims as a session token carries them: the payload plus iat, exp (an hour ahead) and jti. */
export function claimsOf(payload: Record<string, unknown>): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000)
  return { ...payload, iat: now, exp: now + 3600, jti: crypto.randomUUID() }
}

/** A token written by jose itself (the reference writer). */
export function joseEncrypt(claims: Record<string, unknown>, enc: ContentEncryption, key: Uint8Array, kid?: string): Promise<string> {
  return new EncryptJWT(claims).setProtectedHeader(kid === undefined ? { alg: "dir", enc } : { alg: "dir", enc, kid }).encrypt(key)
}

/** What decrypting gave: the payload, or the jose error code it was refused with. */
export async function outcome(codec: JweCodec, token: string, key: Uint8Array): Promise<{ payload: unknown } | { code: string }> {
  try {
    return { payload: await codec.decrypt(token, key) }
  } catch (error) {
    if (error instanceof errors.JOSEError) return { code: error.code }
    return { code: `${(error as Error).name}: ${(error as Error).message}` }
  }
}
