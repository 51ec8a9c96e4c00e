/**
 * A Node request's body, read to the end or refused past a limit (core's Node path,
 * `handleNode`). A Node stream (`IncomingMessage`, which Express passes on) is read through
 * its events; any other async iterable through `for await`.
 *
 * Why events, and not `for await`, for a Node stream: leaving a `for await` early destroys
 * the stream, and with it the socket, while the client is still sending. Its kernel then
 * answers the rest of the upload with a reset, and most clients report "connection reset"
 * instead of the 413 that was already written. Here a refused body is read on and thrown
 * away — up to {@link DISCARD_LIMIT} more bytes, so the client reads a clear 413 and the
 * connection stays usable — and only a client that sends more than that is cut off. (The
 * events are also cheaper than an async iterator for the one small chunk most forms are.)
 * A body core answers without reading (refused on its declared length, or a request whose
 * action takes none) is dropped within the same bound ({@link dropUnread}), not left to
 * Node, which would read it to its end however long.
 * @module
 */
import { InvalidRequest, RequestTooLarge } from "../../errors.js"
import { chunkCap, concatBytes } from "./body.js"

/** A request body as a Node server has it: the request's chunks (the stream itself), or what a body parser left, encoded back. */
export type NodeBody = AsyncIterable<Uint8Array | string> | Uint8Array | string

/** The part of a Node readable stream the reader uses (no `node:` import in core). */
interface NodeReadable {
  on(event: string, listener: (...args: any[]) => void): unknown
  removeListener(event: string, listener: (...args: any[]) => void): unknown
  resume(): unknown
  destroy(error?: Error): unknown
  readonly readableEnded?: boolean
  readonly readableFlowing?: boolean | null
  readonly destroyed?: boolean
  /** `IncomingMessage.complete`: the whole message has arrived. */
  readonly complete?: boolean
  /** `IncomingMessage.socket`: its `bytesRead` counts what came off the wire, framing included. */
  readonly socket?: { readonly bytesRead?: number } | null
}

/**
 * Bytes of a refused body read on and dropped before the connection is cut: a client that
 * sent a little too much (a large upload by mistake) reads its 413; one that keeps sending
 * after that is not served for free.
 */
export const DISCARD_LIMIT = 8 * 1024 * 1024

/**
 * A Node body's bytes, to the end, stopping with `tooLarge()` once past `limit` (a declared
 * length may lie). A client that goes away mid-body is an `InvalidRequest` (400, a warning):
 * its doing, not a bug's stack in the log for every dropped upload.
 */
export function readNodeBody(body: NodeBody, limit: number, tooLarge: () => Error): Promise<Uint8Array> {
  if (typeof body === "string" || body instanceof Uint8Array) {
    const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body
    return bytes.byteLength > limit ? Promise.reject(tooLarge()) : Promise.resolve(bytes)
  }
  return isNodeReadable(body) ? readStream(body, limit, tooLarge) : readIterable(body, limit, tooLarge)
}

function isNodeReadable(body: AsyncIterable<Uint8Array | string>): body is AsyncIterable<Uint8Array | string> & NodeReadable {
  const stream = body as Partial<NodeReadable>
  return typeof stream.on === "function" && typeof stream.removeListener === "function" && typeof stream.resume === "function" && typeof stream.destroy === "function"
}

function readStream(stream: NodeReadable, limit: number, tooLarge: () => Error): Promise<Uint8Array> {
  // Read to the end already (by an app's own parser): no event would come. An empty body,
  // as reading an ended stream gives.
  if (stream.readableEnded) return Promise.resolve(new Uint8Array(0))
  if (stream.destroyed) return Promise.reject(new InvalidRequest("The request body ended before it was complete"))
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = []
    const cap = chunkCap(limit)
    let total = 0
    const stop = () => {
      stream.removeListener("data", onData)
      stream.removeListener("end", onEnd)
      stream.removeListener("error", onGone)
      stream.removeListener("close", onGone)
    }
    function onData(chunk: Uint8Array | string) {
      const part = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk
      total += part.byteLength
      if (total <= limit && parts.length < cap) {
        parts.push(part)
        return
      }
      stop()
      discard(stream)
      reject(tooLarge())
    }
    function onEnd() {
      stop()
      resolve(concatBytes(parts, total))
    }
    // "close" before "end" (Node's "aborted"), or an error: the client went away mid-body.
    function onGone() {
      stop()
      reject(new InvalidRequest("The request body ended before it was complete"))
    }
    stream.on("data", onData)
    stream.on("end", onEnd)
    stream.on("error", onGone)
    stream.on("close", onGone)
    // A listener alone does not restart a stream someone paused (`req.pause()` in a
    // middleware): then no chunk would ever come, and the request would wait forever.
    stream.resume()
  })
}

/**
 * After core answered: a Node request whose body is still coming and that nobody is reading
 * (core refused it on its declared length, or its action reads no body) is read and dropped
 * within {@link DISCARD_LIMIT}, then cut off. Left alone, Node would read it to its end,
 * however long. A request that has fully arrived (`complete`), or whose body is being read,
 * costs one property read here.
 */
export function dropUnread(body: unknown): void {
  if ((body as { complete?: unknown } | undefined)?.complete !== false) return
  const stream = body as AsyncIterable<Uint8Array | string>
  if (!isNodeReadable(stream) || stream.readableFlowing === true || stream.readableEnded || stream.destroyed) return
  discard(stream)
}

/**
 * Reads the rest of a refused body and drops it, up to {@link DISCARD_LIMIT}; past that the
 * stream (and its connection) is destroyed. Counted off the wire where the socket says —
 * chunk framing and extensions included, so tiny chunks with long extensions count for what
 * they cost — else by the chunks (a string, from `setEncoding`, by its UTF-8 length: never
 * less than the bytes it was decoded from, whatever the encoding).
 */
function discard(stream: NodeReadable): void {
  const socket = stream.socket
  const wireStart = typeof socket?.bytesRead === "number" ? socket.bytesRead : undefined
  let dropped = 0
  const onData = (chunk: Uint8Array | string) => {
    dropped += typeof chunk === "string" ? utf8Length(chunk) : chunk.byteLength
    const wire = wireStart === undefined ? 0 : (socket!.bytesRead as number) - wireStart
    if (Math.max(dropped, wire) > DISCARD_LIMIT) {
      done()
      stream.destroy()
    }
  }
  const done = () => {
    stream.removeListener("data", onData)
    stream.removeListener("end", done)
    stream.removeListener("close", done)
  }
  stream.on("data", onData)
  stream.on("end", done)
  stream.on("close", done)
  // An error after the refusal (the client gave up) needs a listener, or it would be thrown.
  stream.on("error", ignore)
  stream.resume()
}

function ignore(): void {}

/** The UTF-8 length of `text`, without encoding it (a lone surrogate as its replacement's 3 bytes). */
export function utf8Length(text: string): number {
  let bytes = text.length
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) continue
    if (code < 0x800) bytes += 1
    // (Past the end `charCodeAt` is NaN, which no mask makes a low surrogate.)
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A pair: two code units, four bytes.
      bytes += 2
      i++
    } else bytes += 2
  }
  return bytes
}

async function readIterable(body: AsyncIterable<Uint8Array | string>, limit: number, tooLarge: () => Error): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  const cap = chunkCap(limit)
  let total = 0
  try {
    for await (const chunk of body) {
      const part = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk
      total += part.byteLength
      if (total > limit || parts.length >= cap) throw tooLarge()
      parts.push(part)
    }
  } catch (error) {
    if (error instanceof RequestTooLarge) throw error
    throw new InvalidRequest("The request body ended before it was complete")
  }
  return concatBytes(parts, total)
}
