/**
 * The Node JWE path where it could differ from jose unnoticed: the exact error each refusal
 * carries (class, code, message, claim), the clock tolerance to the second, a CBC
 * ciphertext whose MAC is right but whose padding is not, both layers that hold GCM tags
 * at 16 bytes, the claims objects the writer accepts, and which `node:crypto` is enough
 * to take the Node path at all.
 */
import * as nodeCrypto from "node:crypto"
import { Buffer } from "node:buffer"
import { afterEach, describe, expect, it, vi } from "vitest"
import { errors } from "jose"
import { defaultJwe, nodeContentCipher, nodeCryptoJwe, type JweCodec, type NodeCryptoLike } from "../../src/lib/jwt/jwe.js"
import { content, joseEncrypt, node, random, web } from "./support.js"

afterEach(() => {
  vi.useRealTimers()
})

/** Everything a caller can see of a refusal (jose's classes carry code, claim and reason). */
async function failure(run: () => unknown): Promise<Record<string, unknown>> {
  try {
    await run()
    return { ok: true }
  } catch (error) {
    const e = error as Error & { code?: string; claim?: string; reason?: string }
    return { class: e.constructor.name, name: e.name, code: e.code, message: e.message, claim: e.claim, reason: e.reason }
  }
}

const decryptBoth = async (token: string, key: Uint8Array) => {
  const ours = await failure(() => node.decrypt(token, key))
  expect(ours).toEqual(await failure(() => web.decrypt(token, key)))
  return ours
}

describe("claims refusals are jose's, word for word", () => {
  const key = random(30).bytes(64)
  const NOW = 1_800_000_000

  it("exp: valid 14 s past (tolerance), expired from 15 s past", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW * 1000 })
    expect(await decryptBoth(await joseEncrypt({ exp: NOW - 14 }, "A256CBC-HS512", key), key)).toEqual({ ok: true })
    expect(await decryptBoth(await joseEncrypt({ exp: NOW - 15 }, "A256CBC-HS512", key), key)).toEqual({
      class: "JWTExpired", name: "JWTExpired", code: "ERR_JWT_EXPIRED", message: '"exp" claim timestamp check failed', claim: "exp", reason: "check_failed",
    })
  })

  it("nbf: valid 15 s ahead (tolerance), refused from 16 s ahead", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW * 1000 })
    expect(await decryptBoth(await joseEncrypt({ nbf: NOW + 15 }, "A256CBC-HS512", key), key)).toEqual({ ok: true })
    expect(await decryptBoth(await joseEncrypt({ nbf: NOW + 16 }, "A256CBC-HS512", key), key)).toEqual({
      class: "JWTClaimValidationFailed", name: "JWTClaimValidationFailed", code: "ERR_JWT_CLAIM_VALIDATION_FAILED", message: '"nbf" claim timestamp check failed', claim: "nbf", reason: "check_failed",
    })
  })

  it("iat, nbf and exp that are not numbers", async () => {
    for (const claim of ["iat", "nbf", "exp"]) {
      expect(await decryptBoth(await joseEncrypt({ [claim]: "1" }, "A256CBC-HS512", key), key)).toEqual({
        class: "JWTClaimValidationFailed", name: "JWTClaimValidationFailed", code: "ERR_JWT_CLAIM_VALIDATION_FAILED", message: `"${claim}" claim must be a number`, claim, reason: "invalid",
      })
    }
  })

  it("a plaintext that is not a JSON object", async () => {
    const iv = random(31).bytes(16)
    const header = Buffer.from(JSON.stringify({ alg: "dir", enc: "A256CBC-HS512" })).toString("base64url")
    for (const plaintext of ["[]", "null", "7", "{", "\xff{}"]) {
      const { ciphertext, tag } = content.encrypt("A256CBC-HS512", key, iv, Buffer.from(header, "latin1"), Buffer.from(plaintext, "latin1"))
      const token = [header, "", Buffer.from(iv).toString("base64url"), Buffer.from(ciphertext).toString("base64url"), Buffer.from(tag).toString("base64url")].join(".")
      expect(await decryptBoth(token, key), plaintext).toMatchObject({ code: "ERR_JWT_INVALID", message: "JWT Claims Set must be a top-level JSON object" })
    }
  })
})

describe("A256CBC-HS512: a right MAC over a ciphertext with bad padding", () => {
  it("is a failed decryption, on both paths", async () => {
    const r = random(32)
    const key = r.bytes(64)
    const iv = r.bytes(16)
    const header = Buffer.from(JSON.stringify({ alg: "dir", enc: "A256CBC-HS512" })).toString("base64url")
    const aad = Buffer.from(header, "latin1")
    // A random block decrypts to random padding, which is almost never valid; find one that is not.
    for (let i = 0; ; i++) {
      const ciphertext = r.bytes(16)
      const al = Buffer.alloc(8)
      al.writeUInt32BE(aad.length * 8, 4)
      const tag = nodeCrypto.createHmac("sha512", key.subarray(0, 32)).update(aad).update(iv).update(ciphertext).update(al).digest().subarray(0, 32)
      const decipher = nodeCrypto.createDecipheriv("aes-256-cbc", key.subarray(32), iv)
      try {
        decipher.update(ciphertext)
        decipher.final()
        continue
      } catch {
        // bad padding: the case under test
      }
      expect(() => content.decrypt("A256CBC-HS512", key, iv, aad, ciphertext, tag)).toThrow(errors.JWEDecryptionFailed)
      const token = [header, "", Buffer.from(iv).toString("base64url"), Buffer.from(ciphertext).toString("base64url"), Buffer.from(tag).toString("base64url")].join(".")
      expect(await decryptBoth(token, key)).toMatchObject({ code: "ERR_JWE_DECRYPTION_FAILED" })
      break
    }
  })
})

describe("A256GCM tags are 16 bytes, held by two layers", () => {
  const CEK = random(33).bytes(32)
  const IV = random(34).bytes(12)
  const AAD = Buffer.from("aad")
  const { ciphertext, tag } = content.encrypt("A256GCM", CEK, IV, AAD, Buffer.from('{"sub":"1"}'))

  it("the length check alone: with a node:crypto that would verify a truncated tag, a 12-byte tag is still refused", () => {
    // Without authTagLength, Node's GCM verifies whatever prefix of the tag it is given.
    const lenient = {
      ...(nodeCrypto as unknown as NodeCryptoLike),
      createDecipheriv: (algorithm: string, key: Uint8Array, iv: Uint8Array) => nodeCrypto.createDecipheriv(algorithm, key, iv),
      createSecretKey: nodeCrypto.createSecretKey,
      createHmac: nodeCrypto.createHmac,
    } as unknown as NodeCryptoLike
    const cipher = nodeContentCipher(lenient, Buffer)
    expect(Buffer.from(cipher.decrypt("A256GCM", CEK, IV, AAD, ciphertext, tag)).toString()).toBe('{"sub":"1"}')
    expect(() => cipher.decrypt("A256GCM", CEK, IV, AAD, ciphertext, tag.subarray(0, 12))).toThrow(errors.JWEDecryptionFailed)
  })

  it("node:crypto is asked to fix the tag at 16 bytes too (authTagLength), when decrypting and encrypting", () => {
    const options: unknown[] = []
    const recording = {
      ...(nodeCrypto as unknown as NodeCryptoLike),
      createSecretKey: nodeCrypto.createSecretKey,
      createHmac: nodeCrypto.createHmac,
      createDecipheriv: (algorithm: string, key: never, iv: Uint8Array, opts?: unknown) => {
        options.push(["decipher", algorithm, opts])
        return nodeCrypto.createDecipheriv(algorithm, key, iv, opts as never)
      },
      createCipheriv: (algorithm: string, key: never, iv: Uint8Array, opts?: unknown) => {
        options.push(["cipher", algorithm, opts])
        return nodeCrypto.createCipheriv(algorithm, key, iv, opts as never)
      },
    } as unknown as NodeCryptoLike
    const cipher = nodeContentCipher(recording, Buffer)
    const sealed = cipher.encrypt("A256GCM", CEK, IV, AAD, Buffer.from("x"))
    cipher.decrypt("A256GCM", CEK, IV, AAD, sealed.ciphertext, sealed.tag)
    expect(options).toEqual([["cipher", "aes-256-gcm", { authTagLength: 16 }], ["decipher", "aes-256-gcm", { authTagLength: 16 }]])
  })
})

describe("the writer takes what jose's EncryptJWT takes, and refuses what it refuses", () => {
  const key = random(35).bytes(64)
  const header = { alg: "dir", enc: "A256CBC-HS512", kid: "k" } as const
  const iv = random(36).bytes(16)
  const encryptBoth = async (claims: unknown, h: typeof header = header, k: Uint8Array = key, v?: Uint8Array) => {
    const ours = await failure(() => node.encrypt(claims as Record<string, unknown>, h, k, v))
    expect(ours).toEqual(await failure(() => web.encrypt(claims as Record<string, unknown>, h, k, v)))
    return ours
  }

  it("a null-prototype object is a claims set; other objects are not", async () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { sub: "1" })
    expect(node.encrypt(bare, header, key, iv)).toBe(await web.encrypt(bare, header, key, iv))
    class Claims { sub = "1" }
    for (const claims of [new Claims(), { [Symbol.toStringTag]: "Claims", sub: "1" }, new Date(0), [], null, Object.create({ inherited: 1 })]) {
      expect(await encryptBoth(claims)).toMatchObject({ class: "TypeError", message: "JWT Claims Set MUST be an object" })
    }
  })

  it("a key or IV of the wrong length, or another encryption's header, is jose's to refuse", async () => {
    expect(await encryptBoth({ sub: "1" }, header, key.subarray(0, 32))).toMatchObject({ class: "JWEInvalid" })
    expect(await encryptBoth({ sub: "1" }, header, key, iv.subarray(0, 12))).toMatchObject({ class: "JWEInvalid" })
    const other = { alg: "dir", enc: "A128GCM", kid: "k" } as unknown as typeof header
    expect(await encryptBoth({ sub: "1" }, other)).not.toEqual({ ok: true })
    const wrapped = { alg: "A256KW", enc: "A256CBC-HS512", kid: "k" } as unknown as typeof header
    const ours = await failure(() => node.encrypt({ sub: "1" }, wrapped, key.subarray(0, 32)))
    expect(ours).toEqual(await failure(() => web.encrypt({ sub: "1" }, wrapped, key.subarray(0, 32))))
  })

  it("a time claim that is a number but not finite is refused", async () => {
    for (const claim of ["iat", "nbf", "exp"]) {
      const ours = await failure(() => node.encrypt({ [claim]: Infinity }, header, key, iv))
      expect(ours).toMatchObject({ class: "TypeError", message: `"${claim}" claim must be a finite number` })
    }
    // Not a number at all is written as it is (jose does the same).
    expect(node.encrypt({ exp: "later" }, header, key, iv)).toBe(await web.encrypt({ exp: "later" }, header, key, iv))
  })

  it("the token it writes for a kid-less header has no kid", () => {
    const token = node.encrypt({ sub: "1" }, { alg: "dir", enc: "A256GCM" } as typeof header, random(37).bytes(32)) as string
    expect(JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString())).toEqual({ alg: "dir", enc: "A256GCM" })
  })
})

describe("the decrypter hands anything but a string token and a byte key to jose", () => {
  it("a non-string token or a key that is not a Uint8Array gets jose's refusal", async () => {
    const key = random(38).bytes(64)
    const token = node.encrypt({ sub: "1" }, { alg: "dir", enc: "A256CBC-HS512", kid: "k" }, key) as string
    expect(await decryptBoth(123 as unknown as string, key)).toMatchObject({ code: "ERR_JWE_INVALID" })
    expect(await decryptBoth(token, Array.from(key) as unknown as Uint8Array)).toMatchObject({ class: "TypeError" })
  })
})

describe("which node:crypto takes the Node path", () => {
  const full = nodeCrypto as unknown as Record<string, unknown>
  const host = (crypto: unknown, buffer: unknown = { Buffer }) => ({
    process: {
      getBuiltinModule(this: unknown, id: string) {
        // Called as a method of process, as Node's own is.
        if (this !== host.current) throw new Error("called unbound")
        return id === "node:crypto" ? crypto : id === "node:buffer" ? buffer : undefined
      },
    },
  })
  host.current = undefined as unknown

  const kind = (h: ReturnType<typeof host>) => {
    host.current = h.process
    return defaultJwe(h).kind
  }

  it("all of createDecipheriv, createSecretKey and timingSafeEqual, and a Buffer", () => {
    expect(kind(host(full))).toBe("node-crypto")
    for (const missing of ["createDecipheriv", "createSecretKey", "timingSafeEqual"]) {
      expect(kind(host({ ...full, [missing]: undefined })), missing).toBe("webcrypto")
    }
    expect(kind(host(full, {}))).toBe("webcrypto")
    expect(kind(host(full, null))).toBe("webcrypto")
    expect(kind(host(undefined))).toBe("webcrypto")
  })

  it("the codec it picks works (encrypts with the real random source)", () => {
    const h = host(full)
    host.current = h.process
    const codec: JweCodec = defaultJwe(h)
    const key = random(39).bytes(64)
    const token = codec.encrypt({ sub: "1" }, { alg: "dir", enc: "A256CBC-HS512", kid: "k" }, key) as string
    expect(codec.decrypt(token, key)).toEqual({ sub: "1" })
    expect(nodeCryptoJwe(nodeCrypto as unknown as NodeCryptoLike, Buffer).kind).toBe("node-crypto")
  })
})
