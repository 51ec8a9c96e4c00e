import { describe, expect, it } from "vitest"
import { chunkCap, nestsWithin, readCapped } from "../../src/lib/http/body.js"
import { mediaTypeEssence } from "../../src/lib/http/media-type.js"

/**
 * The readers a client's bytes go through before anything parses them (`lib/http/body.ts`,
 * `lib/http/media-type.ts`): a byte cap that holds whatever the stream does, a depth bound
 * on parsed JSON, and the media type compared by its essence alone. Through `Auth()` the
 * same rules are in `../bad-input.test.ts` and `../security/content-type.test.ts`.
 */
class TooLarge extends Error {}

/** A stream of the given chunks that records whether its reader cancelled it. */
function chunks(...parts: string[]) {
  const state = { cancelled: false, pulled: 0 }
  const queue = parts.map((part) => new TextEncoder().encode(part))
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulled++
      const next = queue.shift()
      if (next) controller.enqueue(next)
      else controller.close()
    },
    cancel() {
      state.cancelled = true
    },
  })
  return { stream, state }
}

const read = async (limit: number, ...parts: string[]) => new TextDecoder().decode(await readCapped(chunks(...parts).stream, limit, () => new TooLarge()))

describe("readCapped: at most `limit` bytes, whatever the stream declares or does", () => {
  it("joins every chunk, in order", async () => {
    expect(await read(100, "ab", "cde", "", "f")).toBe("abcdef")
    expect(await read(100, "one chunk")).toBe("one chunk")
    expect(await read(100)).toBe("")
  })

  it("a body of exactly `limit` bytes is read; one byte more is refused", async () => {
    expect(await read(6, "abc", "def")).toBe("abcdef")
    await expect(read(5, "abc", "def")).rejects.toBeInstanceOf(TooLarge)
  })

  it("past the limit it stops reading and cancels the stream, so a peer streaming forever is cut off", async () => {
    const { stream, state } = chunks("abc", "def", "ghi", "jkl")
    await expect(readCapped(stream, 4, () => new TooLarge())).rejects.toBeInstanceOf(TooLarge)
    expect(state.cancelled).toBe(true)
    expect(state.pulled).toBeLessThan(4)
  })

  it("a stream whose cancel fails still ends in the caller's error", async () => {
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(10))
      },
      cancel() {
        throw new Error("cancel failed")
      },
    })
    await expect(readCapped(stream, 15, () => new TooLarge())).rejects.toBeInstanceOf(TooLarge)
  })
})

describe("readCapped: at most limit / 64 chunks (at least 64), so a body cannot cost an object per byte", () => {
  const ones = (count: number) => Array.from({ length: count }, () => "x")

  it("chunkCap is limit / 64, never under 64", () => {
    expect(chunkCap(1024 * 1024)).toBe(16_384)
    expect(chunkCap(64 * 64)).toBe(64)
    expect(chunkCap(100)).toBe(64)
    expect(chunkCap(0)).toBe(64)
  })

  it("takes a body of one-byte chunks up to the cap and refuses the chunk after it, cancelling the stream", async () => {
    const limit = 128 * 64
    expect(await read(limit, ...ones(128))).toBe("x".repeat(128))
    const { stream, state } = chunks(...ones(129))
    await expect(readCapped(stream, limit, () => new TooLarge())).rejects.toBeInstanceOf(TooLarge)
    expect(state.cancelled).toBe(true)
  })

  it("a small limit still takes 64 chunks, empty ones included", async () => {
    expect(await read(100, ...ones(63), "")).toBe("x".repeat(63))
    await expect(read(100, ...ones(64), "")).rejects.toBeInstanceOf(TooLarge)
  })
})

/** `levels` arrays, one inside the other, around `inner`. */
const nested = (levels: number, inner: unknown = null): unknown => (levels === 0 ? inner : [nested(levels - 1, inner)])

describe("nestsWithin: objects and arrays nest at most `limit` deep", () => {
  it("scalars and null nest nowhere", () => {
    for (const value of [null, undefined, 1, "x", true]) expect(nestsWithin(value, 0)).toBe(true)
  })

  it("`limit` levels are within, one more is not", () => {
    expect(nestsWithin(nested(3), 3)).toBe(true)
    expect(nestsWithin(nested(4), 3)).toBe(false)
    expect(nestsWithin({ a: { b: { c: {} } } }, 3)).toBe(false)
    expect(nestsWithin({ a: { b: {} } }, 3)).toBe(true)
  })

  it("scalars and nulls at the deepest level do not count as a level", () => {
    expect(nestsWithin(nested(3, 1), 3)).toBe(true)
    expect(nestsWithin(nested(3, null), 3)).toBe(true)
    expect(nestsWithin({ a: { b: { c: null, d: "x", e: 1 } } }, 3)).toBe(true)
  })

  it("every branch is walked, not only the first or the last", () => {
    expect(nestsWithin([nested(4), 1, 2], 4)).toBe(false)
    expect(nestsWithin([1, nested(4), 2], 4)).toBe(false)
    expect(nestsWithin({ a: 1, b: nested(4), c: 2 }, 4)).toBe(false)
  })
})

describe("mediaTypeEssence: type/subtype before any parameter, trimmed, lower-cased", () => {
  it.each([
    [null, ""],
    ["", ""],
    ["application/json", "application/json"],
    ["Application/JSON; charset=utf-8", "application/json"],
    ["  application/x-www-form-urlencoded  ;x=y", "application/x-www-form-urlencoded"],
    ["text/plain;x=application/json", "text/plain"],
    ["multipart/form-data; boundary=AbC", "multipart/form-data"],
  ])("%j is %j", (header, essence) => {
    expect(mediaTypeEssence(header)).toBe(essence)
  })
})
