/**
 * `RandomPool`: the token endpoint's random values (refresh tokens, `jti`s) drawn from a
 * 4 KiB buffer of CSPRNG output instead of one `getRandomValues` call each. Every value is
 * taken once — across refills too — at the asked length, in base64url, and the bytes look
 * like a CSPRNG's (a loose frequency check: a pool that repeated or zeroed its bytes fails).
 */
import { describe, expect, it } from "vitest"
import { RandomPool, base64urlText, fromBase64url } from "../src/random.js"

describe("RandomPool", () => {
  it("never hands out the same value twice, across many refills", () => {
    const pool = new RandomPool()
    const seen = new Set<string>()
    // 20,000 × 32 bytes: about 156 refills, and draws that straddle the buffer's end.
    for (let i = 0; i < 20_000; i++) seen.add(pool.token(i % 3 === 0 ? 16 : 32))
    expect(seen.size).toBe(20_000)
  })

  it("gives base64url of exactly the asked number of bytes (past 256, straight from the CSPRNG)", () => {
    const pool = new RandomPool()
    for (const bytes of [1, 12, 16, 24, 32, 255, 256, 300, 4096]) {
      const token = pool.token(bytes)
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/)
      expect(fromBase64url(token)!.byteLength).toBe(bytes)
    }
  })

  it("two pools draw independently", () => {
    const a = new RandomPool()
    const b = new RandomPool()
    const drawn = new Set<string>()
    for (let i = 0; i < 1_000; i++) {
      drawn.add(a.token(16))
      drawn.add(b.token(16))
    }
    expect(drawn.size).toBe(2_000)
  })

  it("its bytes are spread as a CSPRNG's are (no zeroed or repeated stretches)", () => {
    const pool = new RandomPool()
    const counts = new Array<number>(256).fill(0)
    const draws = 8_192
    for (let i = 0; i < draws; i++) for (const byte of fromBase64url(pool.token(32))!) counts[byte]!++
    const expected = (draws * 32) / 256
    // Chi-square with 255 degrees of freedom: ~255 for random bytes; 400 is p < 1e-8.
    const chi = counts.reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0)
    expect(chi).toBeLessThan(400)
  })
})

describe("base64urlText (a JWS part from its JSON)", () => {
  it("is base64url of the text's UTF-8, for ASCII, accents, CJK, emoji and lone surrogates", () => {
    for (const text of ["", "{\"alg\":\"ES256\"}", "{\"name\":\"Zoë Ünal\"}", "名前", "👩‍💻", "a\ud800b"]) {
      expect(base64urlText(text)).toBe(Buffer.from(new TextEncoder().encode(text)).toString("base64url"))
    }
  })

  it("round-trips through fromBase64url and TextDecoder", () => {
    const text = JSON.stringify({ sub: "1", name: "Zoë 名前 👩‍💻" })
    expect(new TextDecoder().decode(fromBase64url(base64urlText(text))!)).toBe(text)
  })
})
