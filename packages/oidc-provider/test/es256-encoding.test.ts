/**
 * ES256 signatures made with node:crypto's bare key object and re-encoded from DER to JWS's
 * `r || s` (issue 34: the options-object form cost as much as the ECDSA). Every signature
 * must check under the public key as JOSE reads it, whatever the leading bytes of r and s
 * (a high bit adds a zero byte in DER; a small value drops bytes), and a malformed DER must
 * throw rather than yield a signature.
 */
import { createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto"
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

  it("signs a JWS signing input with nodeSign that the public JWK verifies", () => {
    const input = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0"
    const signature = nodeSign({ nodeKey: privateKey }, "ES256", input)!
    const key = createPublicKey({ key: publicKey.export({ format: "jwk" }), format: "jwk" })
    expect(verify("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" }, signature)).toBe(true)
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
