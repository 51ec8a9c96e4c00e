/**
 * A session check reads the same protected header on every token of one key, so the header
 * checks keep their last answer (the key ring's `readJweHeader` memo, the Node codec's
 * header memo) and the key ring its last key. These tests hold them to the rule that makes
 * that safe: a kept answer is only ever reused for the very same header segment (or key
 * request); anything else is judged afresh, exactly as without the memo.
 */
import { describe, expect, it } from "vitest"
import { errors } from "jose"
import { readJweHeader, type HeaderMemo } from "../../src/lib/jwt/header.js"
import { KeyRing, hkdfKey, type DeriveKey } from "../../src/lib/jwt/keys.js"
import { claimsOf, joseEncrypt, node, outcome, web } from "./support.js"

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
const tokenWith = (header: unknown, rest = "..AAAAAAAAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA") => `${b64(header)}${rest}`

describe("readJweHeader with a memo", () => {
  it("answers a repeated header from the memo, and judges every other header afresh", () => {
    const memo: HeaderMemo = {}
    const good = tokenWith({ alg: "dir", enc: "A256CBC-HS512", kid: "k1" })
    expect(readJweHeader(good, memo)).toEqual({ enc: "A256CBC-HS512", kid: "k1" })
    expect(memo.last?.segment).toBe(good.slice(0, good.indexOf(".")))
    // The same header again: the memo's (frozen) answer.
    const again = readJweHeader(good, memo)
    expect(again).toBe(memo.last?.header)
    expect(Object.isFrozen(again)).toBe(true)

    // Another alg, another enc, a kid that is not a string: refused, and never remembered.
    for (const header of [{ alg: "none", enc: "A256CBC-HS512" }, { alg: "dir", enc: "A128GCM" }, { alg: "dir", enc: "A256GCM", kid: 5 }]) {
      expect(() => readJweHeader(tokenWith(header), memo)).toThrow()
      expect(readJweHeader(good, memo)).toEqual({ enc: "A256CBC-HS512", kid: "k1" })
    }
    // A header that starts like the remembered one but is longer is not the same header.
    const segment = good.slice(0, good.indexOf("."))
    expect(() => readJweHeader(`${segment}Zm9v${good.slice(segment.length)}`, memo)).toThrow()
    // Another accepted header replaces the memo, and is answered for itself.
    const other = tokenWith({ alg: "dir", enc: "A256GCM", kid: "k2" })
    expect(readJweHeader(other, memo)).toEqual({ enc: "A256GCM", kid: "k2" })
    expect(readJweHeader(good, memo)).toEqual({ enc: "A256CBC-HS512", kid: "k1" })
  })

  it("still refuses a remembered header on a token without exactly five segments", () => {
    const memo: HeaderMemo = {}
    const good = tokenWith({ alg: "dir", enc: "A256CBC-HS512" })
    readJweHeader(good, memo)
    expect(() => readJweHeader(`${good}.extra`, memo)).toThrow(/five segments/)
    expect(() => readJweHeader(good.slice(0, good.lastIndexOf(".")), memo)).toThrow(/five segments/)
  })
})

describe("the Node codec's header memo", () => {
  it("after a token it handled, a token with extra header parameters still goes to jose, with jose's answer", async () => {
    const key = crypto.getRandomValues(new Uint8Array(64))
    const good = await joseEncrypt(claimsOf({ sub: "1" }), "A256CBC-HS512", key, "k")
    expect(await outcome(node, good, key)).toEqual(await outcome(web, good, key))
    // Same encryption, but a header with `crit`: not this path's to judge.
    const [, ...rest] = good.split(".")
    const critical = [b64({ alg: "dir", enc: "A256CBC-HS512", kid: "k", crit: ["x"], x: 1 }), ...rest].join(".")
    const answer = await outcome(node, critical, key)
    expect(answer).toEqual(await outcome(web, critical, key))
    expect(answer).toHaveProperty("code")
    // And back: the good token still opens.
    expect(await outcome(node, good, key)).toEqual({ payload: expect.objectContaining({ sub: "1" }) })
  })

  it("tokens under two keys (two headers) alternate with the right answers", async () => {
    const key1 = crypto.getRandomValues(new Uint8Array(64))
    const key2 = crypto.getRandomValues(new Uint8Array(32))
    const t1 = await joseEncrypt(claimsOf({ sub: "one" }), "A256CBC-HS512", key1, "k1")
    const t2 = await joseEncrypt(claimsOf({ sub: "two" }), "A256GCM", key2, "k2")
    for (let i = 0; i < 4; i++) {
      expect(await node.decrypt(t1, key1)).toMatchObject({ sub: "one" })
      expect(await node.decrypt(t2, key2)).toMatchObject({ sub: "two" })
      // Each token under the other's key is refused as jose refuses it.
      expect(await outcome(node, t1, key2)).toEqual(await outcome(web, t1, key2))
      expect(await outcome(node, t2, key1)).toEqual(await outcome(web, t2, key1))
    }
    await expect(Promise.resolve().then(() => node.decrypt(t2, key1))).rejects.toBeInstanceOf(errors.JOSEError)
  })
})

describe("the key ring's last key", () => {
  it("answers each (secret, salt, enc) with its own key, in any order", async () => {
    const ring = new KeyRing()
    const a = await ring.key("secret-a", "salt")
    const b = await ring.key("secret-b", "salt")
    const c = await ring.key("secret-a", "other-salt")
    const d = await ring.key("secret-a", "salt", "A256GCM")
    expect(new Set([a.kid, b.kid, c.kid, d.kid]).size).toBe(4)
    expect(await ring.key("secret-a", "salt")).toEqual(a)
    expect(await ring.key("secret-b", "salt")).toEqual(b)
    expect(await ring.key("secret-a", "salt")).toBe(await ring.key("secret-a", "salt"))
    expect(ring.derived).toBe(4)
  })

  it("does not keep a failed derivation: the next call derives again", async () => {
    let calls = 0
    const flaky: DeriveKey = async (secret, salt, enc) => {
      calls++
      if (calls === 1) throw new Error("store down")
      return hkdfKey(secret, salt, enc)
    }
    const ring = new KeyRing(256, flaky)
    await expect(ring.key("s", "salt")).rejects.toThrow("store down")
    // Let the ring's own handlers of the failure run.
    await new Promise((resolve) => setTimeout(resolve, 0))
    const key = await ring.key("s", "salt")
    expect(key.key).toHaveLength(64)
    expect(calls).toBe(2)
  })
})
