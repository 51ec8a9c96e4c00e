/**
 * Reading a body from another party (a SCIM client's request, an IdP's discovery document) no
 * further than a limit: the stream is cancelled past it, so a sender that never stops costs
 * at most `limit` bytes of memory.
 * @module
 */

/**
 * The most chunks a body of `limit` bytes may come in: `limit / 64`, at least 64. Each chunk
 * is an object of its own (a few hundred bytes of heap), so a sender cutting its body into
 * one-byte chunks would otherwise make `limit` bytes cost hundreds of times that in memory
 * (core's `chunkCap` is the same).
 */
const maxChunks = (limit: number) => Math.max(64, limit / 64)

/** The body's bytes, or `tooLarge()` thrown once more than `limit` arrived (or more than `limit / 64` chunks). */
export async function readCapped(body: ReadableStream<Uint8Array> | null, limit: number, tooLarge: () => Error): Promise<Buffer> {
  if (!body) return Buffer.alloc(0)
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  const most = maxChunks(limit)
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit || chunks.length >= most) {
      await reader.cancel()
      throw tooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}
