import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { EncryptJWT, base64url } from "jose"
import { decode, encode } from "@portcullis/core/jwt"
import { runtimeFor } from "../../src/lib/runtime.js"

const resolveConfig = (config: Parameters<typeof runtimeFor>[0]) => runtimeFor(config).config
import { decodeWith, encodeWith } from "../../src/lib/jwt/codec.js"
import { hkdfKey, KeyRing, type DeriveKey } from "../../src/lib/jwt/keys.js"
import { Browser, SECRET, captureLogger, credentialsConfig, direct } from "../helpers.js"

/**
 * JWE headers chosen by the attacker (issue #12, item 2; T43, T44). The protected header
 * of a session cookie is the attacker's to write. Only `alg: "dir"` with `A256CBC-HS512`
 * or `A256GCM` may cause a key derivation; any other value is refused first, so a flood
 * of crafted headers neither costs an HKDF per token nor evicts the real keys.
 */
const salt = "authjs.session-token"
const b64 = (value: unknown) => base64url.encode(JSON.stringify(value))
const random = () => randomBytes(12).toString("base64url")

/** A compact JWE shape with the given header and junk in the other four segments. */
function crafted(header: Record<string, unknown>): string {
  return [b64(header), "", random(), random(), random()].join(".")
}

/** Header shapes an attacker cycles through; `i` makes every one of them unique. */
function garbageHeader(i: number): Record<string, unknown> {
  switch (i % 6) {
    case 0:
      return { alg: "dir", enc: `A${i}GCM` }
    case 1:
      return { alg: "dir", enc: random(), kid: random() }
    case 2:
      return { alg: "PBES2-HS512+A256KW", enc: "A256CBC-HS512", p2c: 1e9, p2s: random() }
    case 3:
      return { alg: random(), enc: "A256GCM" }
    case 4:
      return { alg: "dir", enc: "A256CBC-HS512", kid: random() }
    default:
      return { alg: "dir", enc: ["A256CBC-HS512"], kid: { toString: i } }
  }
}

function countingRing(): { ring: KeyRing; calls: string[] } {
  const calls: string[] = []
  const derive: DeriveKey = (secret, s, enc) => {
    calls.push(enc)
    return hkdfKey(secret, s, enc)
  }
  return { ring: new KeyRing(256, derive), calls }
}

describe("the protected header is checked before any key is derived", () => {
  it.each([
    ["alg none", { alg: "none", enc: "A256CBC-HS512" }],
    ["a key-wrapping alg (A256KW)", { alg: "A256KW", enc: "A256CBC-HS512" }],
    ["PBES2 with a billion iterations", { alg: "PBES2-HS512+A256KW", enc: "A256CBC-HS512", p2c: 1e9, p2s: "c2FsdHNhbHQ" }],
    ["RSA-OAEP", { alg: "RSA-OAEP", enc: "A256GCM" }],
    ["an unknown enc", { alg: "dir", enc: "A128GCM" }],
    ["an enc that is an attacker's label", { alg: "dir", enc: "evict-me-1" }],
    ["no enc at all", { alg: "dir" }],
    ["a kid that is not a string", { alg: "dir", enc: "A256CBC-HS512", kid: 42 }],
  ])("%s → refused, nothing derived", async (_name, header) => {
    const { ring, calls } = countingRing()
    await expect(decodeWith(ring, { token: crafted(header), secret: SECRET, salt })).rejects.toThrow()
    expect(calls).toEqual([])
    expect(ring.size).toBe(0)
    await expect(decode({ token: crafted(header), secret: SECRET, salt })).rejects.toThrow()
  })

  it("still opens real tokens, and A256GCM ones as Auth.js does", async () => {
    const token = await encode({ token: { sub: "1" }, secret: SECRET, salt })
    expect(await decode({ token, secret: SECRET, salt })).toMatchObject({ sub: "1" })
    const { key, kid } = await hkdfKey(SECRET, salt, "A256GCM")
    const gcm = await new EncryptJWT({ sub: "2" }).setProtectedHeader({ alg: "dir", enc: "A256GCM", kid }).setExpirationTime("1h").encrypt(key)
    expect(await decode({ token: gcm, secret: SECRET, salt })).toMatchObject({ sub: "2" })
  })
})

describe("garbage traffic cannot grow the key ring or evict the real key", () => {
  it("5,000 tokens with random enc, alg and kid headers: no derivation, same size, same key", async () => {
    const { ring, calls } = countingRing()
    const real = await encodeWith(ring, { token: { sub: "real" }, secret: SECRET, salt })
    const before = { size: ring.size, calls: calls.length, key: await ring.key(SECRET, salt) }

    for (let i = 0; i < 5_000; i++) {
      expect(await decodeWith(ring, { token: crafted(garbageHeader(i)), secret: SECRET, salt }).catch(() => null)).toBeNull()
    }

    expect(ring.size).toBe(before.size)
    expect(calls.length).toBe(before.calls)
    expect(await ring.key(SECRET, salt)).toBe(before.key)
    expect(await decodeWith(ring, { token: real, secret: SECRET, salt })).toMatchObject({ sub: "real" })
  })

  it("through Auth(): 3,000 crafted session cookies leave the configuration's key ring as it was", async () => {
    const config = credentialsConfig({ logger: captureLogger().logger })
    const browser = new Browser(direct(config))
    await browser.signIn()
    expect((await browser.session()).user.name).toBe("Ada Lovelace")
    const { keys } = resolveConfig(config)
    const before = { size: keys.size, derived: keys.derived, key: await keys.key(SECRET, salt) }

    const send = direct(config)
    for (let i = 0; i < 3_000; i++) {
      const response = await send(new Request("http://localhost:3000/auth/session", { headers: { cookie: `${salt}=${crafted(garbageHeader(i))}` } }))
      expect(await response.json()).toBeNull()
    }

    expect(keys.size).toBe(before.size)
    expect(keys.derived).toBe(before.derived)
    expect(await keys.key(SECRET, salt)).toBe(before.key)
    expect((await browser.session()).user.name).toBe("Ada Lovelace")
  })
})
