/**
 * Which JWE path runs where, the constant-time tag comparison, and that core's default
 * entry never names a `node:` module (it must bundle for runtimes without them).
 */
import * as nodeCrypto from "node:crypto"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { decode, encode } from "@portcullis/core/jwt"
import { defaultJwe, nodeCryptoJwe, type NodeCryptoLike } from "../../src/lib/jwt/jwe.js"
import { KeyRing } from "../../src/lib/jwt/keys.js"
import { decodeWith, encodeWith } from "../../src/lib/jwt/codec.js"
import { claimsOf, outcome, random, web } from "./support.js"

describe("choosing the path at runtime", () => {
  it("uses node:crypto where process.getBuiltinModule offers it (this Node)", () => {
    expect(defaultJwe().kind).toBe("node-crypto")
    expect(new KeyRing().jwe.kind).toBe("node-crypto")
  })

  it("falls back to WebCrypto where there is no process, no getBuiltinModule, or it offers nothing", () => {
    expect(defaultJwe({}).kind).toBe("webcrypto")
    expect(defaultJwe({ process: {} }).kind).toBe("webcrypto")
    expect(defaultJwe({ process: { getBuiltinModule: () => undefined } }).kind).toBe("webcrypto")
    expect(defaultJwe({ process: { getBuiltinModule: () => { throw new Error("no") } } }).kind).toBe("webcrypto")
  })

  it("both paths give identical answers through the token codec (encode → decode, each way, and refusals)", async () => {
    const secret = "a-secret-of-sufficient-length-0123456789"
    const salt = "authjs.session-token"
    const nodeRing = new KeyRing()
    const webRing = new KeyRing(256, undefined, web)
    const r = random(11)
    for (let i = 0; i < 200; i++) {
      const token = r.payload()
      const fromNode = await encodeWith(nodeRing, { token, secret, salt })
      const fromWeb = await encodeWith(webRing, { token, secret, salt })
      const a = await decodeWith(webRing, { token: fromNode, secret, salt })
      const b = await decodeWith(nodeRing, { token: fromWeb, secret, salt })
      expect({ ...a, jti: undefined, iat: undefined, exp: undefined }).toEqual({ ...b, jti: undefined, iat: undefined, exp: undefined })
      expect(await decodeWith(nodeRing, { token: fromNode, secret, salt })).toEqual(a)
      const tampered = fromNode.slice(0, -3) + (fromNode.endsWith("AAA") ? "BBB" : "AAA")
      await expect(decodeWith(nodeRing, { token: tampered, secret, salt })).rejects.toMatchObject({ code: "ERR_JWE_DECRYPTION_FAILED" })
      await expect(decodeWith(webRing, { token: tampered, secret, salt })).rejects.toMatchObject({ code: "ERR_JWE_DECRYPTION_FAILED" })
    }
  })

  it("the public encode/decode keep working end to end (and refuse another secret)", async () => {
    const token = await encode({ token: { sub: "7" }, secret: "s1-0123456789abcdef", salt: "x" })
    expect(await decode({ token, secret: "s1-0123456789abcdef", salt: "x" })).toMatchObject({ sub: "7" })
    // As Auth.js's decode: no configured secret opens it → a rejection, not null.
    await expect(decode({ token, secret: "s2-0123456789abcdef", salt: "x" })).rejects.toThrow()
  })
})

describe("the tag comparison is constant-time", () => {
  /** node:crypto with timingSafeEqual recorded. */
  function recording() {
    const calls: [number, number][] = []
    const crypto = {
      ...(nodeCrypto as unknown as NodeCryptoLike),
      createHmac: nodeCrypto.createHmac,
      createSecretKey: nodeCrypto.createSecretKey,
      createDecipheriv: nodeCrypto.createDecipheriv,
      createCipheriv: nodeCrypto.createCipheriv,
      randomFillSync: nodeCrypto.randomFillSync,
      timingSafeEqual(a: Uint8Array, b: Uint8Array) {
        calls.push([a.length, b.length])
        return nodeCrypto.timingSafeEqual(a, b)
      },
    } as unknown as NodeCryptoLike
    return { codec: nodeCryptoJwe(crypto, Buffer), calls }
  }

  it("compares A256CBC-HS512 tags with timingSafeEqual on two 32-byte buffers, for a good and a forged tag", async () => {
    const { codec, calls } = recording()
    const key = random(12).bytes(64)
    const token = codec.encrypt(claimsOf({ sub: "1" }), { alg: "dir", enc: "A256CBC-HS512", kid: "k" }, key) as string
    expect(codec.decrypt(token, key)).toMatchObject({ sub: "1" })
    const parts = token.split(".")
    const forged = Buffer.from(parts[4]!, "base64url")
    forged[31]! ^= 1
    expect(await outcome(codec, [...parts.slice(0, 4), forged.toString("base64url")].join("."), key)).toEqual({ code: "ERR_JWE_DECRYPTION_FAILED" })
    expect(calls).toEqual([[32, 32], [32, 32]])
  })

  it("never calls timingSafeEqual with a tag of another length (refused before; jose answers it)", async () => {
    const { codec, calls } = recording()
    const key = random(13).bytes(64)
    const parts = (codec.encrypt(claimsOf({ sub: "1" }), { alg: "dir", enc: "A256CBC-HS512", kid: "k" }, key) as string).split(".")
    for (const tag of [parts[4]!.slice(0, 22), `${parts[4]}AAAA`]) {
      expect(await outcome(codec, [...parts.slice(0, 4), tag].join("."), key)).toEqual({ code: "ERR_JWE_DECRYPTION_FAILED" })
    }
    expect(calls).toEqual([])
  })
})

describe("core's default entry names no node: module", () => {
  it("no source file of @portcullis/core imports or requires a node: specifier", () => {
    const src = fileURLToPath(new URL("../../src", import.meta.url))
    const offenders: string[] = []
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        if (statSync(path).isDirectory()) walk(path)
        else if (/\.tsx?$/.test(name)) {
          const text = readFileSync(path, "utf8")
          if (/(?:from\s+|import\s*\(\s*|require\s*\(\s*)["']node:/.test(text)) offenders.push(path.slice(src.length + 1))
        }
      }
    }
    walk(src)
    expect(offenders).toEqual([])
  })
})
