/**
 * What the Node JWE path hands to jose instead of deciding itself, where a lenient decoder
 * would decide differently: `Buffer.from(…, "base64url")` quietly drops a dangling last
 * character that jose's decoder refuses, so a segment of 4k+1 characters must never be
 * read here. Also the refusals this path words itself: a plaintext that does not parse
 * (jose's error, with the parse error kept as its cause), a writer asked for an `alg`
 * other than `dir` (jose's refusal), and the key derivation asked for an unknown `enc`.
 */
import * as nodeCrypto from "node:crypto"
import { Buffer } from "node:buffer"
import { describe, expect, it } from "vitest"
import { errors } from "jose"
import { hkdfKey } from "../../src/lib/jwt/keys.js"
import { content, node, outcome, web } from "./support.js"

const key = nodeCrypto.randomBytes(32)
const iv = nodeCrypto.randomBytes(12)
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url")

/** An A256GCM token for `plaintext` under `header` (a segment, used as the AAD exactly as written). */
function sealed(header: string, plaintext: string) {
  const { ciphertext, tag } = content.encrypt("A256GCM", key, iv, Buffer.from(header, "latin1"), Buffer.from(plaintext))
  return { header, iv: b64(iv), ciphertext: b64(ciphertext), tag: b64(tag) }
}
const join = (t: { header: string; iv: string; ciphertext: string; tag: string }) => [t.header, "", t.iv, t.ciphertext, t.tag].join(".")

// 39 characters of JSON: a 52-character segment, a multiple of 4.
const HEADER = Buffer.from(JSON.stringify({ alg: "dir", enc: "A256GCM", kid: "k" })).toString("base64url")
// 48 bytes of plaintext: a 64-character ciphertext segment, a multiple of 4.
const PLAINTEXT = JSON.stringify({ sub: "user", pad: "x".repeat(48 - 23) })

describe("segments of 4k+1 characters are jose's to refuse", () => {
  it("the fixture is what it says", () => {
    expect(HEADER.length % 4).toBe(0)
    expect(PLAINTEXT.length).toBe(48)
    expect(join(sealed(HEADER, PLAINTEXT)).split(".")[3]!.length % 4).toBe(0)
  })

  it("a ciphertext with a dangling character", async () => {
    const token = sealed(HEADER, PLAINTEXT)
    expect(await outcome(node, join(token), key)).toEqual({ payload: JSON.parse(PLAINTEXT) })
    const dangling = join({ ...token, ciphertext: `${token.ciphertext}A` })
    const answer = await outcome(node, dangling, key)
    expect(answer).not.toHaveProperty("payload")
    expect(answer).toEqual(await outcome(web, dangling, key))
  })

  it("a protected header with a dangling character (the tag made over it as written)", async () => {
    const dangling = join(sealed(`${HEADER}A`, PLAINTEXT))
    const answer = await outcome(node, dangling, key)
    expect(answer).not.toHaveProperty("payload")
    expect(answer).toEqual(await outcome(web, dangling, key))
  })
})

describe("a plaintext that does not parse", () => {
  it("is jose's JWTInvalid, and keeps the parse error as its cause", () => {
    const token = join(sealed(HEADER, "{not json"))
    let error: unknown
    try {
      node.decrypt(token, key)
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(errors.JWTInvalid)
    expect((error as Error).message).toBe("JWT Claims Set must be a top-level JSON object")
    expect((error as Error).cause).toBeInstanceOf(SyntaxError)
  })
})

describe("the writer", () => {
  it("asked for an alg other than dir, refuses as jose does", async () => {
    const header = { alg: "none", enc: "A256GCM" } as unknown as Parameters<typeof node.encrypt>[1]
    const ours = await Promise.resolve().then(() => node.encrypt({ sub: "user" }, header, key)).catch((e: unknown) => e)
    const theirs = await Promise.resolve().then(() => web.encrypt({ sub: "user" }, header, key)).catch((e: unknown) => e)
    expect(ours).toBeInstanceOf(errors.JOSENotSupported)
    expect((ours as Error).message).toBe((theirs as Error).message)
  })
})

describe("the key derivation", () => {
  it("refuses an enc it does not know, naming it", async () => {
    await expect(hkdfKey("a-secret", "a-salt", "A128GCM" as never)).rejects.toThrow(new TypeError('Unsupported content encryption "A128GCM"'))
  })
})
