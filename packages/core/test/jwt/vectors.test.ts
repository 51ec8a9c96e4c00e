/**
 * The Node content encryption against the RFCs' own test vectors: RFC 7518 Appendix B.3
 * (AES_256_CBC_HMAC_SHA_512) and the A256GCM content step of RFC 7516 Appendix A.1.
 */
import { describe, expect, it } from "vitest"
import { errors } from "jose"
import { content } from "./support.js"

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ""), "hex"))
const ascii = (s: string) => Uint8Array.from(Buffer.from(s, "latin1"))

describe("A256CBC-HS512: RFC 7518 Appendix B.3", () => {
  const K = hex(`00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f
                 20 21 22 23 24 25 26 27 28 29 2a 2b 2c 2d 2e 2f 30 31 32 33 34 35 36 37 38 39 3a 3b 3c 3d 3e 3f`)
  const P = ascii("A cipher system must not be required to be secret, and it must be able to fall into the hands of the enemy without inconvenience")
  const IV = hex("1a f3 8c 2d c2 b9 6f fd d8 66 94 09 23 41 bc 04")
  const A = ascii("The second principle of Auguste Kerckhoffs")
  const E = hex(`4a ff aa ad b7 8c 31 c5 da 4b 1b 59 0d 10 ff bd 3d d8 d5 d3 02 42 35 26 91 2d a0 37 ec bc c7 bd
                 82 2c 30 1d d6 7c 37 3b cc b5 84 ad 3e 92 79 c2 e6 d1 2a 13 74 b7 7f 07 75 53 df 82 94 10 44 6b
                 36 eb d9 70 66 29 6a e6 42 7e a7 5c 2e 08 46 a1 1a 09 cc f5 37 0d c8 0b fe cb ad 28 c7 3f 09 b3
                 a3 b7 5e 66 2a 25 94 41 0a e4 96 b2 e2 e6 60 9e 31 e6 e0 2c c8 37 f0 53 d2 1f 37 ff 4f 51 95 0b
                 be 26 38 d0 9d d7 a4 93 09 30 80 6d 07 03 b1 f6`)
  const T = hex("4d d3 b4 c0 88 a7 f4 5c 21 68 39 64 5b 20 12 bf 2e 62 69 a8 c5 6a 81 6d bc 1b 26 77 61 95 5b c5")

  it("encrypts P to the vector's ciphertext E and tag T", () => {
    const { ciphertext, tag } = content.encrypt("A256CBC-HS512", K, IV, A, P)
    expect(Buffer.from(ciphertext).toString("hex")).toBe(Buffer.from(E).toString("hex"))
    expect(Buffer.from(tag).toString("hex")).toBe(Buffer.from(T).toString("hex"))
  })

  it("decrypts E with T back to P", () => {
    expect(Buffer.from(content.decrypt("A256CBC-HS512", K, IV, A, E, T)).toString("latin1")).toBe(Buffer.from(P).toString("latin1"))
  })

  it("refuses the vector with any single bit of the tag, ciphertext, IV or AAD flipped", () => {
    const flips: [string, () => Uint8Array][] = []
    for (const [name, bytes] of [["T", T], ["E", E], ["IV", IV], ["A", A]] as const) {
      for (let i = 0; i < bytes.length; i++) {
        flips.push([`${name}[${i}]`, () => {
          const copy = Uint8Array.from(bytes)
          copy[i]! ^= 1 << (i % 8)
          return copy
        }])
      }
    }
    for (const [where, flipped] of flips) {
      const args = { T, E, IV, A, [where.slice(0, where.indexOf("["))]: flipped() }
      expect(() => content.decrypt("A256CBC-HS512", K, args.IV, args.A, args.E, args.T), where).toThrow(errors.JWEDecryptionFailed)
    }
  })

  it("refuses a tag of the wrong length before comparing (truncated, extended, empty)", () => {
    for (const tag of [T.subarray(0, 31), T.subarray(0, 16), new Uint8Array(0), Uint8Array.from([...T, 0])]) {
      expect(() => content.decrypt("A256CBC-HS512", K, IV, A, E, tag)).toThrow(errors.JWEDecryptionFailed)
    }
  })

  it("refuses the vector under a wrong key (MAC half or encryption half changed)", () => {
    for (const i of [0, 31, 32, 63]) {
      const key = Uint8Array.from(K)
      key[i]! ^= 0x80
      expect(() => content.decrypt("A256CBC-HS512", key, IV, A, E, T)).toThrow(errors.JWEDecryptionFailed)
    }
  })
})

describe("A256GCM: RFC 7516 Appendix A.1 (content encryption step)", () => {
  const CEK = Uint8Array.from([177, 161, 244, 128, 84, 143, 225, 115, 63, 180, 3, 255, 107, 154, 212, 246, 138, 7, 110, 91, 112, 46, 34, 105, 47, 130, 203, 46, 122, 234, 64, 252])
  const IV = Uint8Array.from([227, 197, 117, 252, 2, 219, 233, 68, 180, 225, 77, 219])
  const AAD = ascii("eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ")
  const P = ascii("The true sign of intelligence is not knowledge but imagination.")
  const C = "5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX_EFShS8iB7j6jiSdiwkIr3ajwQzaBtQD_A"
  const T = "XFBoMYUZodetZdvTiFvSkQ"

  it("encrypts the plaintext to the example's ciphertext and tag", () => {
    expect(Buffer.from(IV).toString("base64url")).toBe("48V1_ALb6US04U3b")
    const { ciphertext, tag } = content.encrypt("A256GCM", CEK, IV, AAD, P)
    expect(Buffer.from(ciphertext).toString("base64url")).toBe(C)
    expect(Buffer.from(tag).toString("base64url")).toBe(T)
  })

  it("decrypts them back, and refuses a flipped tag byte, ciphertext byte or AAD byte", () => {
    const c = Uint8Array.from(Buffer.from(C, "base64url"))
    const t = Uint8Array.from(Buffer.from(T, "base64url"))
    expect(Buffer.from(content.decrypt("A256GCM", CEK, IV, AAD, c, t)).toString("latin1")).toBe(Buffer.from(P).toString("latin1"))
    for (const [name, bytes] of [["tag", t], ["ciphertext", c], ["aad", AAD]] as const) {
      for (let i = 0; i < bytes.length; i++) {
        const copy = Uint8Array.from(bytes)
        copy[i]! ^= 0x01
        const args = { tag: t, ciphertext: c, aad: AAD, [name]: copy }
        expect(() => content.decrypt("A256GCM", CEK, IV, args.aad, args.ciphertext, args.tag), `${name}[${i}]`).toThrow(errors.JWEDecryptionFailed)
      }
    }
  })

  it("refuses a truncated tag (GCM would otherwise accept shorter tags)", () => {
    const c = Uint8Array.from(Buffer.from(C, "base64url"))
    const t = Uint8Array.from(Buffer.from(T, "base64url"))
    for (const tag of [t.subarray(0, 12), t.subarray(0, 4), new Uint8Array(0)]) {
      expect(() => content.decrypt("A256GCM", CEK, IV, AAD, c, tag)).toThrow(errors.JWEDecryptionFailed)
    }
  })
})
