/**
 * ES256 signatures made with node:crypto's bare key object and re-encoded from DER to JWS's
 * `r || s` (issue 34: the options-object form cost as much as the ECDSA). Every signature
 * must check under the public key as JOSE reads it, whatever the leading bytes of r and s
 * (a high bit adds a zero byte in DER; a small value drops bytes), and a malformed DER must
 * throw rather than yield a signature.
 */
import { constants, createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto"
import { describe, expect, it } from "vitest"
import { derToJose, nodeSign } from "../src/node-crypto.js"

const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })

describe("ES256 DER to JWS encoding", () => {
  it("turns 5,000 DER signatures into 64-byte r || s that verify as JWS signatures", () => {
    let shortPart = 0
    for (let i = 0; i < 5_000; i++) {
      const data = Buffer.from(`message ${i}`)
      const der = sign("sha256", data, privateKey)
      // r or s shorter than 32 bytes (DER lengths below 0x20 or no leading zero): the padding path.
      if (der[3]! < 32 || der[5 + der[3]!]! < 32) shortPart++
      const jose = derToJose(der, 32)
      expect(jose.length).toBe(64)
      expect(verify("sha256", data, { key: publicKey, dsaEncoding: "ieee-p1363" }, jose)).toBe(true)
    }
    // About 1 in 128 signatures has a short part; 5,000 makes the path certain to run.
    expect(shortPart).toBeGreaterThan(0)
  })

  it("signs a JWS signing input with nodeSign that the public JWK verifies", async () => {
    const input = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0"
    const signature = await nodeSign({ nodeKey: privateKey }, "ES256", input)!
    expect(signature).toHaveLength(64)
    const key = createPublicKey({ key: publicKey.export({ format: "jwk" }), format: "jwk" })
    expect(verify("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" }, signature)).toBe(true)
  })

  it("signs fifty at once on the thread pool, each verifying over its own input", async () => {
    const inputs = Array.from({ length: 50 }, (_, i) => `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(`{"n":${i}}`).toString("base64url")}`)
    const signatures = await Promise.all(inputs.map((input) => nodeSign({ nodeKey: privateKey }, "ES256", input)!))
    const key = createPublicKey({ key: publicKey.export({ format: "jwk" }), format: "jwk" })
    signatures.forEach((signature, i) => expect(verify("sha256", Buffer.from(inputs[i]!), { key, dsaEncoding: "ieee-p1363" }, signature)).toBe(true))
    // Not one input's signature over another's.
    expect(verify("sha256", Buffer.from(inputs[1]!), { key, dsaEncoding: "ieee-p1363" }, signatures[0]!)).toBe(false)
  })

  it("signs PS256 with PSS padding and RS256 without, each verifying only as its own scheme", async () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 })
    const input = "eyJhbGciOiJQUzI1NiJ9.eyJzdWIiOiJ4In0"
    const pss = await nodeSign({ nodeKey: rsa.privateKey }, "PS256", input)!
    const pkcs1 = await nodeSign({ nodeKey: rsa.privateKey }, "RS256", input)!
    const asPss = { key: rsa.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }
    expect(verify("sha256", Buffer.from(input), asPss, pss)).toBe(true)
    expect(verify("sha256", Buffer.from(input), rsa.publicKey, pkcs1)).toBe(true)
    expect(verify("sha256", Buffer.from(input), rsa.publicKey, pss)).toBe(false)
  })

  it("rejects, never throws synchronously or answers bytes, when node:crypto refuses the key", async () => {
    // A public key cannot sign: node:crypto reports it through the callback.
    await expect(nodeSign({ nodeKey: publicKey }, "ES256", "a.b")!).rejects.toThrow()
  })

  it("answers undefined without a node:crypto key (the caller signs with WebCrypto then)", () => {
    expect(nodeSign({}, "ES256", "a.b")).toBeUndefined()
  })

  it("throws on a malformed DER signature instead of answering bytes", () => {
    const der = sign("sha256", Buffer.from("x"), privateKey)
    expect(() => derToJose(der.subarray(0, der.length - 1), 32)).toThrow()
    expect(() => derToJose(Uint8Array.from([0x31, ...der.subarray(1)]), 32)).toThrow()
    expect(() => derToJose(Uint8Array.from([...der, 0]), 32)).toThrow()
    const tooLong = Uint8Array.from([0x30, 0x26, 0x02, 0x21, 0x01, ...new Uint8Array(32), 0x02, 0x01, 0x01])
    expect(() => derToJose(tooLong, 32)).toThrow()
  })
})
