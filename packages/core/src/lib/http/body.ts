/**
 * Reads a byte stream to the end, but stops and throws `tooLarge()` as soon as it passes
 * `limit` bytes — a declared length may lie, and a peer may stream forever. Used for request
 * bodies and for back-channel responses from providers.
 */
export async function readCapped(stream: ReadableStream<Uint8Array>, limit: number, tooLarge: () => Error): Promise<Uint8Array> {
  const reader = stream.getReader()
  const parts: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > limit) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    parts.push(value)
  }
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
 * Whether a parsed JSON value nests no deeper than `limit` objects and arrays. Walked with
 * its own stack, not by recursion: the value is a client's, and a body of `[[[[…` a few
 * kilobytes long would overflow the call stack of any recursive reader after it
 * (`JSON.stringify`, an identifier's text), a `RangeError` on every request.
 */
export function nestsWithin(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]]
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next
    if (node === null || typeof node !== "object") continue
    if (depth >= limit) return false
    for (const child of Array.isArray(node) ? node : Object.values(node)) pending.push([child, depth + 1])
  }
  return true
}
