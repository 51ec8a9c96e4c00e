/**
 * Reading a body from another party (a SCIM client's request, an IdP's discovery document) no
 * further than a limit: the stream is cancelled past it, so a sender that never stops costs
 * at most `limit` bytes of memory.
 * @module
 */

/** The body's bytes, or `tooLarge()` thrown once more than `limit` arrived. */
export async function readCapped(body: ReadableStream<Uint8Array> | null, limit: number, tooLarge: () => Error): Promise<Buffer> {
  if (!body) return Buffer.alloc(0)
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel()
      throw tooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}
