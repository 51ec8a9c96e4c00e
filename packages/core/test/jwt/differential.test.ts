/**
 * The Node path (`node:crypto`, synchronous) against jose (WebCrypto) on thousands of
 * random tokens, payloads and keys, in both directions, and on every tampered position.
 */
import { describe, expect, it } from "vitest"
import { jwtDecrypt } from "jose"
import { claimsOf, content, ENCS, joseEncrypt, KEY_BYTES, node, outcome, random, web } from "./support.js"

const ROUNDS = 1000
const decryptOptions = { clockTolerance: 15, keyManagementAlgorithms: ["dir"], contentEncryptionAlgorithms: ["A256CBC-HS512", "A256GCM"] }

describe("jose writes, the Node path reads (random tokens, payloads, keys)", () => {
  it(`opens ${ROUNDS} jose tokens per encryption to the payload jose itself reads`, async () => {
    const r = random(7516)
    for (const enc of ENCS) {
      for (let i = 0; i < ROUNDS; i++) {
        const key = r.bytes(KEY_BYTES[enc])
        const claims = claimsOf(r.payload())
        const token = await joseEncrypt(claims, enc, key, r.int(2) ? r.string(90) : undefined)
        const ours = node.decrypt(token, key)
        expect(ours, `${enc} #${i}`).not.toBeInstanceOf(Promise) // the synchronous path took it
        expect(ours, `${enc} #${i}`).toEqual((await jwtDecrypt(token, key, decryptOptions)).payload)
        expect(ours).toEqual(claims)
      }
    }
  })
})

describe("the Node path writes, jose reads", () => {
  it(`writes ${ROUNDS} tokens per encryption that jose opens to the same claims`, async () => {
    const r = random(7518)
    for (const enc of ENCS) {
      for (let i = 0; i < ROUNDS; i++) {
        const key = r.bytes(KEY_BYTES[enc])
        const claims = claimsOf(r.payload())
        const token = node.encrypt(claims, { alg: "dir", enc, kid: r.string(90) }, key) as string
        expect(typeof token).toBe("string")
        expect((await jwtDecrypt(token, key, decryptOptions)).payload, `${enc} #${i}`).toEqual(claims)
      }
    }
  })

  it("is wire-identical to jose: the same claims, header, key and IV give the same token, byte for byte", async () => {
    const r = random(1)
    for (const enc of ENCS) {
      for (let i = 0; i < 300; i++) {
        const key = r.bytes(KEY_BYTES[enc])
        const iv = r.bytes(enc === "A256GCM" ? 12 : 16)
        const claims = claimsOf(r.payload())
        const header = { alg: "dir" as const, enc, kid: r.string(90) }
        expect(node.encrypt(claims, header, key, iv), `${enc} #${i}`).toBe(await web.encrypt(claims, header, key, iv))
      }
    }
  })

  it("draws a fresh random IV per token", () => {
    const key = random(2).bytes(64)
    const claims = claimsOf({ sub: "1" })
    const ivs = new Set(Array.from({ length: 200 }, () => (node.encrypt(claims, { alg: "dir", enc: "A256CBC-HS512", kid: "k" }, key) as string).split(".")[2]))
    expect(ivs.size).toBe(200)
  })
})

/** Every position of `token` with its character replaced by a different base64url one. */
function* characterSubstitutions(token: string): Generator<[number, string]> {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
  for (let i = 0; i < token.length; i++) {
    if (token[i] === ".") continue
    const replacement = alphabet[(alphabet.indexOf(token[i]!) + 17) % 64]!
    yield [i, token.slice(0, i) + replacement + token.slice(i + 1)]
  }
}

/** Whether two compact tokens carry the same bytes (a changed unused trailing bit does not). */
function sameBytes(a: string, b: string): boolean {
  const pa = a.split(".")
  const pb = b.split(".")
  return pa.length === pb.length && pa.every((s, i) => (i === 0 ? s === pb[0] : Buffer.from(s, "base64url").equals(Buffer.from(pb[i]!, "base64url"))))
}

describe("tampering: every position refused, by both paths alike", () => {
  for (const enc of ENCS) {
    it(`${enc}: a changed character anywhere (header, IV, ciphertext, tag) is refused unless it decodes to the same bytes, and both paths agree`, async () => {
      const r = random(enc.length)
      const key = r.bytes(KEY_BYTES[enc])
      const claims = claimsOf({ name: "Ada", email: "ada@example.com", sub: "42" })
      for (const writer of ["jose", "ours"] as const) {
        const token = writer === "jose" ? await joseEncrypt(claims, enc, key, "kid-1") : (node.encrypt(claims, { alg: "dir", enc, kid: "kid-1" }, key) as string)
        let refused = 0
        for (const [i, tampered] of characterSubstitutions(token)) {
          const [ours, theirs] = [await outcome(node, tampered, key), await outcome(web, tampered, key)]
          expect(ours, `${writer} token, position ${i}`).toEqual(theirs)
          if (!sameBytes(token, tampered)) {
            expect(ours, `${writer} token, position ${i}`).toHaveProperty("code")
            refused++
          }
        }
        expect(refused).toBeGreaterThan(token.length * 0.9)
      }
    })

    it(`${enc}: every byte of the IV, ciphertext and tag flipped is refused as a failed decryption`, async () => {
      const key = random(3).bytes(KEY_BYTES[enc])
      const token = node.encrypt(claimsOf({ sub: "1" }), { alg: "dir", enc, kid: "k" }, key) as string
      const parts = token.split(".")
      for (const segment of [2, 3, 4]) {
        const bytes = Buffer.from(parts[segment]!, "base64url")
        for (let i = 0; i < bytes.length; i++) {
          const copy = Buffer.from(bytes)
          copy[i]! ^= 0xff
          const tampered = parts.map((p, j) => (j === segment ? copy.toString("base64url") : p)).join(".")
          const ours = await outcome(node, tampered, key)
          // A wrong-length IV is jose's JWEInvalid; everything else fails authentication.
          expect(ours, `segment ${segment} byte ${i}`).toEqual(await outcome(web, tampered, key))
          expect(ours, `segment ${segment} byte ${i}`).toEqual({ code: "ERR_JWE_DECRYPTION_FAILED" })
        }
      }
    })

    it(`${enc}: truncated, extended and reordered segments are refused alike`, async () => {
      const key = random(4).bytes(KEY_BYTES[enc])
      const token = node.encrypt(claimsOf({ sub: "1" }), { alg: "dir", enc, kid: "k" }, key) as string
      const parts = token.split(".")
      const variants = [
        token.slice(0, -1),
        `${token}A`,
        `${token}.`,
        parts.slice(0, 4).join("."),
        [parts[0], parts[1], parts[3], parts[2], parts[4]].join("."),
        [parts[0], "AAAA", parts[2], parts[3], parts[4]].join("."),
        [parts[0], parts[1], "", parts[3], parts[4]].join("."),
        [parts[0], parts[1], parts[2], parts[3], ""].join("."),
        [parts[0], parts[1], parts[2], "", parts[4]].join("."),
        [parts[0], parts[1], `${parts[2]}=`, parts[3], parts[4]].join("."),
        [parts[0], parts[1], parts[2], parts[3], parts[4]!.slice(0, -2)].join("."),
      ]
      for (const [i, tampered] of variants.entries()) {
        const ours = await outcome(node, tampered, key)
        expect(ours, `variant ${i}`).toEqual(await outcome(web, tampered, key))
        expect(ours, `variant ${i}`).toHaveProperty("code")
      }
    })

    it(`${enc}: a wrong key is refused (random keys, and the right key with one bit flipped)`, async () => {
      const r = random(5)
      const key = r.bytes(KEY_BYTES[enc])
      const token = node.encrypt(claimsOf({ sub: "1" }), { alg: "dir", enc, kid: "k" }, key) as string
      const wrong = [r.bytes(KEY_BYTES[enc]), ...Array.from({ length: KEY_BYTES[enc] }, (_, i) => {
        const k = Uint8Array.from(key)
        k[i]! ^= 1
        return k
      })]
      for (const [i, k] of wrong.entries()) {
        const ours = await outcome(node, token, k)
        expect(await outcome(web, token, k), `key ${i}`).toEqual(ours)
        // A bit flipped in A256CBC-HS512's encryption half leaves the tag valid (it is the
        // MAC half's), so AES decrypts to garbage: usually bad padding (decryption failed),
        // but about 1 in 256 such keys ends in valid padding and the garbage then fails as
        // claims (JWT invalid) — in jose exactly as in ours. Either way it is refused.
        expect(["ERR_JWE_DECRYPTION_FAILED", "ERR_JWT_INVALID"], `key ${i}: ${JSON.stringify(ours)}`).toContain((ours as { code?: string }).code)
      }
    })
  }

  it("a key of the other encryption's length is refused alike (jose's key-length error)", async () => {
    const key = random(6).bytes(64)
    const token = node.encrypt(claimsOf({ sub: "1" }), { alg: "dir", enc: "A256CBC-HS512", kid: "k" }, key) as string
    const ours = await outcome(node, token, key.subarray(0, 32))
    expect(ours).toEqual(await outcome(web, token, key.subarray(0, 32)))
    expect(ours).toHaveProperty("code")
  })
})

describe("claims: the Node path checks them exactly as jose's jwtDecrypt", () => {
  const key = random(8).bytes(64)
  const now = Math.floor(Date.now() / 1000)
  const cases: [string, Record<string, unknown>][] = [
    ["expired beyond the 15 s tolerance", { exp: now - 16 }],
    ["expired within the tolerance", { exp: now - 10 }],
    ["expiring exactly at the tolerance edge", { exp: now - 15 }],
    ["not yet valid (nbf) beyond the tolerance", { nbf: now + 20 }],
    ["nbf within the tolerance", { nbf: now + 10 }],
    ["exp not a number", { exp: "soon" }],
    ["iat not a number", { iat: "then" }],
    ["nbf not a number", { nbf: null }],
    ["no time claims at all", { sub: "1" }],
  ]
  for (const [what, claims] of cases) {
    it(what, async () => {
      const token = await joseEncrypt(claims, "A256CBC-HS512", key)
      expect(await outcome(node, token, key)).toEqual(await outcome(web, token, key))
    })
  }

  it("a plaintext that is not a JSON object (array, string, invalid UTF-8, not JSON) is refused alike", async () => {
    const iv = random(9).bytes(16)
    const header = Buffer.from(JSON.stringify({ alg: "dir", enc: "A256CBC-HS512" })).toString("base64url")
    for (const plaintext of ["[1,2]", '"s"', "nope", "null", "{\"a\":1", "\xff\xfe{}"]) {
      const { ciphertext, tag } = content.encrypt("A256CBC-HS512", key, iv, Buffer.from(header, "latin1"), Buffer.from(plaintext, "latin1"))
      const token = [header, "", Buffer.from(iv).toString("base64url"), Buffer.from(ciphertext).toString("base64url"), Buffer.from(tag).toString("base64url")].join(".")
      const ours = await outcome(node, token, key)
      expect(ours, plaintext).toEqual(await outcome(web, token, key))
      expect(ours, plaintext).toHaveProperty("code")
    }
  })

  it("headers beyond alg/enc/kid (crit, zip, replicated claims, typ) go to jose, and the answers agree", async () => {
    const iv = random(10).bytes(16)
    const headers = [
      { alg: "dir", enc: "A256CBC-HS512", crit: ["exp"] },
      { alg: "dir", enc: "A256CBC-HS512", zip: "DEF" },
      { alg: "dir", enc: "A256CBC-HS512", sub: "other" },
      { alg: "dir", enc: "A256CBC-HS512", typ: "JWT" },
      { alg: "dir", enc: "A256CBC-HS512", kid: 5 },
      { alg: "A256KW", enc: "A256CBC-HS512" },
      { alg: "dir", enc: "A128GCM" },
      { enc: "A256CBC-HS512" },
    ]
    for (const h of headers) {
      const header = Buffer.from(JSON.stringify(h)).toString("base64url")
      const { ciphertext, tag } = content.encrypt("A256CBC-HS512", key, iv, Buffer.from(header, "latin1"), Buffer.from(JSON.stringify({ sub: "1" })))
      const token = [header, "", Buffer.from(iv).toString("base64url"), Buffer.from(ciphertext).toString("base64url"), Buffer.from(tag).toString("base64url")].join(".")
      expect(await outcome(node, token, key), JSON.stringify(h)).toEqual(await outcome(web, token, key))
    }
  })
})
