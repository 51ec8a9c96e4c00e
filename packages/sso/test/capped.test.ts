// The reader of bodies from other parties (SCIM requests, discovery documents): at most
// `limit` bytes, and at most `limit / 64` chunks (at least 64), so a sender cannot make a
// small body cost an object per byte.
import { describe, expect, it } from "vitest"
import { readCapped } from "../src/capped.js"

class TooLarge extends Error {}

function stream(parts: Uint8Array[]) {
  const state = { cancelled: false }
  const queue = [...parts]
  return {
    state,
    body: new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = queue.shift()
        if (next) controller.enqueue(next)
        else controller.close()
      },
      cancel() {
        state.cancelled = true
      },
    }),
  }
}

const ones = (count: number) => Array.from({ length: count }, () => new Uint8Array([120]))

describe("readCapped (sso)", () => {
  it("joins the chunks of a body within the limit", async () => {
    const { body } = stream([new TextEncoder().encode("{\"a\":"), new TextEncoder().encode("1}")])
    expect((await readCapped(body, 100, () => new TooLarge())).toString("utf8")).toBe('{"a":1}')
    expect((await readCapped(null, 100, () => new TooLarge())).length).toBe(0)
  })

  it("refuses a byte past the limit and cancels the stream", async () => {
    const { body, state } = stream([new Uint8Array(60), new Uint8Array(41)])
    await expect(readCapped(body, 100, () => new TooLarge())).rejects.toBeInstanceOf(TooLarge)
    expect(state.cancelled).toBe(true)
  })

  it("takes limit / 64 one-byte chunks and refuses one more, well under the byte limit", async () => {
    const limit = 64 * 1024
    expect((await readCapped(stream(ones(1024)).body, limit, () => new TooLarge())).length).toBe(1024)
    const over = stream(ones(1025))
    await expect(readCapped(over.body, limit, () => new TooLarge())).rejects.toBeInstanceOf(TooLarge)
    expect(over.state.cancelled).toBe(true)
  })

  it("a small limit still takes 64 chunks", async () => {
    expect((await readCapped(stream(ones(64)).body, 100, () => new TooLarge())).length).toBe(64)
    await expect(readCapped(stream(ones(65)).body, 100, () => new TooLarge())).rejects.toBeInstanceOf(TooLarge)
  })
})
