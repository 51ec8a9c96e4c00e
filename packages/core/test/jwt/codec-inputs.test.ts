/**
 * What the token codec refuses before any cryptography, and how: secrets that are missing
 * or empty (a configuration error, `MissingSecret`), claims that are not an object or a
 * lifetime that is not finite (a programming error, `TypeError` as jose words it), and a
 * token whose `kid` no configured secret has (`NoMatchingKey`, which session checks log as
 * a foreign cookie by its code).
 */
import { describe, expect, it } from "vitest"
import { MissingSecret } from "../../src/errors.js"
import { KeyRing } from "../../src/lib/jwt/keys.js"
import { decodeWith, encodeWith, openWith } from "../../src/lib/jwt/codec.js"
import { unreadableKind } from "../../src/lib/session/unreadable.js"

const SECRET = "codec-secret-0123456789abcdef0123456789"
const salt = "authjs.session-token"
const ring = new KeyRing()

describe("secrets", () => {
  it("an empty list, an empty secret, or a non-string anywhere in the list is a MissingSecret, for encode and decode", async () => {
    const token = await encodeWith(ring, { token: { sub: "1" }, secret: SECRET, salt })
    for (const secret of [[], "", [SECRET, ""], ["", SECRET], [SECRET, 5 as unknown as string], [undefined as unknown as string]]) {
      await expect(encodeWith(ring, { token: {}, secret, salt }), JSON.stringify(secret)).rejects.toThrow(MissingSecret)
      await expect(decodeWith(ring, { token, secret, salt }), JSON.stringify(secret)).rejects.toThrow(MissingSecret)
      await expect(decodeWith(ring, { token, secret, salt })).rejects.toThrow("A non-empty secret is required")
    }
  })

  it("a missing token is null before the secrets are looked at", async () => {
    expect(await decodeWith(ring, { token: "", secret: SECRET, salt })).toBeNull()
    expect(await decodeWith(ring, { token: undefined, secret: SECRET, salt })).toBeNull()
    expect(await openWith(ring, { token: "", secret: SECRET, salt })).toBeNull()
  })
})

describe("claims and lifetime", () => {
  it("claims that are not a plain object are a TypeError", async () => {
    for (const token of [null, [], ["sub"], "sub", 5]) {
      await expect(encodeWith(ring, { token: token as never, secret: SECRET, salt }), JSON.stringify(token)).rejects.toThrow(new TypeError("JWT Claims Set MUST be an object"))
    }
  })

  it("no claims at all is an empty claims set (plus iat, exp, jti)", async () => {
    const payload = await decodeWith(ring, { token: await encodeWith(ring, { secret: SECRET, salt }), secret: SECRET, salt })
    expect(Object.keys(payload!).sort()).toEqual(["exp", "iat", "jti"])
  })

  it("a lifetime that is not finite is a TypeError; a given one sets exp that far from iat", async () => {
    for (const maxAge of [Infinity, -Infinity, NaN]) {
      await expect(encodeWith(ring, { token: {}, secret: SECRET, salt, maxAge }), String(maxAge)).rejects.toThrow(new TypeError("Invalid setExpirationTime input"))
    }
    const payload = await decodeWith(ring, { token: await encodeWith(ring, { token: {}, secret: SECRET, salt, maxAge: 60 }), secret: SECRET, salt })
    expect(payload!.exp! - payload!.iat!).toBe(60)
  })

  it("the caller's claims object is copied, not changed", async () => {
    const claims = { sub: "1", nested: { a: 1 } }
    await encodeWith(ring, { token: claims, secret: SECRET, salt })
    expect(claims).toEqual({ sub: "1", nested: { a: 1 } })
  })
})

describe("a kid no configured secret has", () => {
  it("is refused as NoMatchingKey (code ERR_JWE_NO_MATCHING_KEY), which a session check counts as a foreign cookie", async () => {
    const foreign = await encodeWith(ring, { token: { sub: "1" }, secret: "another-secret-0123456789abcdef", salt })
    const error = await decodeWith(ring, { token: foreign, secret: [SECRET, "third-secret-0123456789abcdef"], salt }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({ name: "NoMatchingKey", code: "ERR_JWE_NO_MATCHING_KEY", message: "No configured secret has the token's kid" })
    expect(unreadableKind(error)).toBe("foreign")
  })

  it("answers the kid it opened the token with", async () => {
    const token = await encodeWith(ring, { token: { sub: "1" }, secret: SECRET, salt })
    const { kid } = await ring.key(SECRET, salt)
    expect(await openWith(ring, { token, secret: ["other-secret-0123456789abcdef", SECRET], salt })).toMatchObject({ kid, payload: { sub: "1" } })
  })

  it("a kid-less token is tried under each secret in turn; when none opens it, the last failure is the answer", async () => {
    const key = await ring.key(SECRET, salt)
    const kidless = await ring.jwe.encrypt({ sub: "1", exp: Math.floor(Date.now() / 1000) + 60 }, { alg: "dir", enc: "A256CBC-HS512" } as never, key.key)
    expect(await decodeWith(ring, { token: kidless, secret: ["first-wrong-secret-0123456789ab", SECRET], salt })).toMatchObject({ sub: "1" })
    const error = await decodeWith(ring, { token: kidless, secret: ["first-wrong-secret-0123456789ab", "second-wrong-secret-0123456789"], salt }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: "ERR_JWE_DECRYPTION_FAILED" })
  })
})
