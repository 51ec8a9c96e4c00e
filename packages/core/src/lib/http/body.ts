/**
 * Reads a byte stream to the end, but stops and throws `tooLarge()` as soon as it passes
 * `limit` bytes or {@link chunkCap} chunks — a declared length may lie, and a peer may stream
 * forever. Used for request bodies and for back-channel responses from providers.
 */
export async function readCapped(stream: ReadableStream<Uint8Array>, limit: number, tooLarge: () => Error): Promise<Uint8Array> {
  const reader = stream.getReader()
  const parts: Uint8Array[] = []
  const cap = chunkCap(limit)
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > limit || parts.length >= cap) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    parts.push(value)
  }
  return concatBytes(parts, total)
}

/**
 * The most chunks a body of `limit` bytes may come in: `limit / 64` (16,384 for 1 MiB), and
 * never fewer than 64. Each chunk is an object of its own, a few hundred bytes of heap, so
 * a client sending its body a byte per chunk made 1 MiB cost a million objects and 200 MiB
 * while it was held; capped, the chunks of a body cost at most a few times its limit. Real
 * peers send kilobytes per chunk.
 */
export function chunkCap(limit: number): number {
  return Math.max(64, limit / 64)
}

/** The chunks of a body read to the end, as one array (`total` their length). */
export function concatBytes(parts: readonly Uint8Array[], total: number): Uint8Array {
  // Stryker disable next-line ConditionalExpression: equivalent. One chunk is returned as it is only to skip a copy; the copy below holds the same bytes.
  if (parts.length === 1) return parts[0]!
  const out = new Uint8Array(total)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.byteLength
  }
  return out
}

/**
 * How deeply client JSON (a request body, Apple's `user` field) may nest objects and
 * arrays. Auth's bodies are flat (a session update's `data` may nest a little); a deeper
 * one is a client's attempt on a recursive reader further on.
 */
export const JSON_DEPTH_LIMIT = 32

/**
 * Whether a parsed JSON value nests no deeper than `limit` objects and arrays. Walked with
 * its own stack, not by recursion: the value is a client's, and a body of `[[[[…` a few
 * kilobytes long would overflow the call stack of any recursive reader after it
 * (`JSON.stringify`, an identifier's text), a `RangeError` on every request. Only objects
 * and arrays are pushed, on two parallel stacks: a 1 MiB body of numbers costs a scan, not
 * an allocation per value.
 */
export function nestsWithin(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== "object") return true
  const nodes: object[] = [value]
  const depths: number[] = [0]
  for (let node = nodes.pop(); node !== undefined; node = nodes.pop()) {
    const depth = depths.pop()!
    if (depth >= limit) return false
    for (const child of Array.isArray(node) ? (node as unknown[]) : Object.values(node)) {
      if (child !== null && typeof child === "object") {
        nodes.push(child)
        depths.push(depth + 1)
      }
    }
  }
  return true
}
