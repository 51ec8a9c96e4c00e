/**
 * Key derivation and token wire format against outside oracles: `node:crypto`'s own HKDF
 * (what the derivation must equal), @auth/core's `encode`/`decode` (tokens must cross in
 * both directions, under every salt, on both JWE paths) and jose (A256GCM tokens, which
 * Auth.js opens but never writes).
 */
import { hkdfSync } from "node:crypto"
import { describe, expect, it } from "vitest"
import { base64url, calculateJwkThumbprint, EncryptJWT } from "jose"
import * as authjs from "@auth/core/jwt"
import { decode, deriveKey, encode } from "@portcullis/core/jwt"
import { hkdfKey, KeyRing } from "../../src/lib/jwt/keys.js"
import { decodeWith, encodeWith } from "../../src/lib/jwt/codec.js"
import { web } from "./support.js"

const SECRET = "interop-secret-0123456789abcdef0123456789"
// The empty salt too: Auth.js's info string has "()" around it even then.
const SALTS = ["authjs.session-token", "__Secure-authjs.session-token", "", "x"]

/** The derivation spelled out with node:crypto: HKDF-SHA256, info with the salt in parentheses. */
function referenceKey(secret: string, salt: string, length: number): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", secret, salt, `Auth.js Generated Encryption Key (${salt})`, length))
}

describe("the derived key is Auth.js's HKDF, byte for byte", () => {
  for (const salt of SALTS) {
    it(`salt ${JSON.stringify(salt)}: 64 bytes for A256CBC-HS512, 32 for A256GCM, and the kid is the key's JWK thumbprint`, async () => {
      for (const [enc, length, hash] of [["A256CBC-HS512", 64, "sha512"], ["A256GCM", 32, "sha256"]] as const) {
        const expected = referenceKey(SECRET, salt, length)
        const derived = await hkdfKey(SECRET, salt, enc)
        expect(Buffer.from(derived.key).toString("hex"), enc).toBe(Buffer.from(expected).toString("hex"))
        expect(derived.kid).toBe(await calculateJwkThumbprint({ kty: "oct", k: base64url.encode(expected) }, hash))
        // The public entry and a key ring answer the same.
        expect(await deriveKey(SECRET, salt, enc)).toEqual(derived)
      }
    })
  }

  it("refuses to derive for any other content encryption, even when called directly", async () => {
    for (const enc of ["A128GCM", "A192CBC-HS384", "", "A256CBC-HS512 ", "a256gcm"]) {
      await expect(hkdfKey(SECRET, "s", enc as "A256GCM")).rejects.toThrow(TypeError)
      await expect(new KeyRing().key(SECRET, "s", enc as "A256GCM")).rejects.toThrow(/Unsupported content encryption/)
    }
  })
})

describe("tokens cross between Auth.js and Portcullis under every salt", () => {
  for (const salt of SALTS) {
    it(`salt ${JSON.stringify(salt)}: Auth.js's token opens here (both paths), and ours opens in Auth.js`, async () => {
      const theirs = await authjs.encode({ token: { sub: "ada", name: "Ada" }, secret: SECRET, salt })
      expect(await decode({ token: theirs, secret: SECRET, salt })).toMatchObject({ sub: "ada", name: "Ada" })
      expect(await decodeWith(new KeyRing(256, undefined, web), { token: theirs, secret: SECRET, salt })).toMatchObject({ sub: "ada" })
      const ours = await encode({ token: { sub: "bob" }, secret: SECRET, salt })
      expect(await authjs.decode({ token: ours, secret: SECRET, salt })).toMatchObject({ sub: "bob" })
      // Written with the same kid as Auth.js (the header is the same but for nothing).
      const header = (t: string) => JSON.parse(Buffer.from(t.split(".")[0]!, "base64url").toString())
      expect(header(ours)).toEqual(header(theirs))
    })
  }

  it("a token Auth.js wrote under an older secret opens with the rotated list, and ours under the first opens in Auth.js with the list", async () => {
    const old = "old-interop-secret-0123456789abcdef"
    const theirs = await authjs.encode({ token: { sub: "1" }, secret: old, salt: "s" })
    expect(await decode({ token: theirs, secret: [SECRET, old], salt: "s" })).toMatchObject({ sub: "1" })
    const ours = await encode({ token: { sub: "2" }, secret: [SECRET, old], salt: "s" })
    expect(await authjs.decode({ token: ours, secret: [SECRET], salt: "s" })).toMatchObject({ sub: "2" })
    await expect(authjs.decode({ token: ours, secret: [old], salt: "s" })).rejects.toThrow()
  })

  it("an A256GCM token (which Auth.js opens but never writes) opens here too, with or without a kid", async () => {
    const key = referenceKey(SECRET, "s", 32)
    const kid = await calculateJwkThumbprint({ kty: "oct", k: base64url.encode(key) }, "sha256")
    for (const header of [{ alg: "dir", enc: "A256GCM", kid }, { alg: "dir", enc: "A256GCM" }]) {
      const token = await new EncryptJWT({ sub: "gcm" }).setProtectedHeader(header).setExpirationTime("1h").encrypt(key)
      expect(await authjs.decode({ token, secret: SECRET, salt: "s" })).toMatchObject({ sub: "gcm" })
      expect(await decode({ token, secret: SECRET, salt: "s" })).toMatchObject({ sub: "gcm" })
      expect(await decode({ token, secret: ["another-secret-0123456789abcdef", SECRET], salt: "s" })).toMatchObject({ sub: "gcm" })
    }
  })

  it("the default lifetime is Auth.js's: 30 days from iat, on both sides", async () => {
    const ours = (await decode({ token: await encodeWith(new KeyRing(), { token: {}, secret: SECRET, salt: "s" }), secret: SECRET, salt: "s" }))!
    const theirs = (await decode({ token: await authjs.encode({ token: {}, secret: SECRET, salt: "s" }), secret: SECRET, salt: "s" }))!
    expect(ours.exp! - ours.iat!).toBe(2_592_000)
    expect(theirs.exp! - theirs.iat!).toBe(2_592_000)
  })
})
