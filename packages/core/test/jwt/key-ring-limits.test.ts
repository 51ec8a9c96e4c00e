/**
 * The key ring's bound and bookkeeping: it holds at most `limit` keys (256 unless told),
 * drops the oldest first, counts every derivation, and keeps the ring consistent when a
 * derivation fails (the failed key is never answered again, from the map or the last-key
 * shortcut).
 */
import { describe, expect, it } from "vitest"
import { KeyRing, type DeriveKey } from "../../src/lib/jwt/keys.js"

/** A cheap, recognisable derivation: the key's bytes spell its inputs. */
function labelled(): { derive: DeriveKey; calls: string[] } {
  const calls: string[] = []
  const derive: DeriveKey = async (secret, salt, enc) => {
    calls.push(`${secret}|${salt}|${enc}`)
    return { key: new TextEncoder().encode(`${secret}|${salt}|${enc}`), kid: `${secret}|${salt}|${enc}` }
  }
  return { derive, calls }
}

describe("the ring holds at most its limit", () => {
  it("256 keys by default: the 257th evicts the oldest, which is derived again when asked", async () => {
    const { derive, calls } = labelled()
    const ring = new KeyRing(undefined, derive)
    expect(ring.limit).toBe(256)
    for (let i = 0; i < 256; i++) await ring.key(`s${i}`, "salt")
    expect(ring.size).toBe(256)
    expect(ring.derived).toBe(256)
    await ring.key("s256", "salt")
    expect(ring.size).toBe(256)
    // s1 is still held (no derivation); s0 went first and is derived again.
    await ring.key("s1", "salt")
    expect(ring.derived).toBe(257)
    expect((await ring.key("s0", "salt")).kid).toBe("s0|salt|A256CBC-HS512")
    expect(ring.derived).toBe(258)
    expect(calls.filter((c) => c === "s0|salt|A256CBC-HS512")).toHaveLength(2)
  })

  it("a ring of 2 holds 2: a third key evicts the first", async () => {
    const { derive } = labelled()
    const ring = new KeyRing(2, derive)
    await ring.key("a", "salt")
    await ring.key("b", "salt")
    expect(ring.size).toBe(2)
    await ring.key("c", "salt")
    expect(ring.size).toBe(2)
    await ring.key("b", "salt")
    expect(ring.derived).toBe(3)
    await ring.key("a", "salt")
    expect(ring.derived).toBe(4)
  })
})

describe("each (secret, salt, enc) is its own key", () => {
  it("a different secret, salt or enc right after another never answers the previous key", async () => {
    const { derive } = labelled()
    const ring = new KeyRing(256, derive)
    const kid = async (secret: string, salt: string, enc?: "A256GCM") => (await ring.key(secret, salt, enc)).kid
    expect(await kid("a", "x")).toBe("a|x|A256CBC-HS512")
    expect(await kid("b", "x")).toBe("b|x|A256CBC-HS512")
    expect(await kid("b", "y")).toBe("b|y|A256CBC-HS512")
    expect(await kid("b", "y", "A256GCM")).toBe("b|y|A256GCM")
    expect(await kid("a", "x")).toBe("a|x|A256CBC-HS512")
    // Inputs that would run together without a separator stay apart.
    expect(await kid("a\u0000b", "c")).toBe("a\u0000b|c|A256CBC-HS512")
    expect(await kid("b", "c\u0000a")).toBe("b|c\u0000a|A256CBC-HS512")
    expect(ring.derived).toBe(6)
  })

  it("the same request twice in a row is answered with the same promise, not derived again", async () => {
    const { derive } = labelled()
    const ring = new KeyRing(256, derive)
    const first = ring.key("a", "x")
    expect(ring.key("a", "x")).toBe(first)
    await first
    expect(ring.derived).toBe(1)
  })

  it("refuses an unknown enc without deriving or holding anything", async () => {
    const { derive, calls } = labelled()
    const ring = new KeyRing(256, derive)
    await expect(ring.key("a", "x", "A128GCM" as "A256GCM")).rejects.toThrow(TypeError)
    expect(calls).toEqual([])
    expect(ring.size).toBe(0)
    expect(ring.derived).toBe(0)
  })
})

describe("a failed derivation is forgotten", () => {
  it("neither the map nor the last-key shortcut answers it again, and other keys stay", async () => {
    let fail = true
    const derive: DeriveKey = async (secret, salt, enc) => {
      if (secret === "flaky" && fail) throw new Error("derivation failed")
      return { key: new Uint8Array(64), kid: `${secret}|${salt}|${enc}` }
    }
    const ring = new KeyRing(256, derive)
    await ring.key("steady", "x")
    await expect(ring.key("flaky", "x")).rejects.toThrow("derivation failed")
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(ring.size).toBe(1)
    fail = false
    // Asked again at once (the last key asked for was the failed one): derived afresh.
    expect((await ring.key("flaky", "x")).kid).toBe("flaky|x|A256CBC-HS512")
    expect(ring.derived).toBe(3)
    expect(ring.size).toBe(2)
    expect((await ring.key("steady", "x")).kid).toBe("steady|x|A256CBC-HS512")
    expect(ring.derived).toBe(3)
  })
})
