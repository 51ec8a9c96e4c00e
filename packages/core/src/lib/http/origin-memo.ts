/**
 * The origins already worked out for this configuration, by what the request said
 * (scheme and Host, plus the forwarded headers): working one out costs three URL parses
 * and the host checks, and an app sees the same one or two on nearly every request.
 * Only successful answers are kept (a refused host is refused afresh each time), and the
 * memory is bounded: past the limit the oldest answer goes, so a client sending random
 * Host headers costs itself the full check and evicts nothing that matters for long.
 */
export class OriginMemo {
  #answers = new Map<string, Readonly<{ origin: string; trusted: boolean }>>()

  constructor(readonly limit = 64) {}

  /** The answer for `key`, computed by `work` on a miss (a throw is not remembered). */
  get(key: string, work: () => { origin: string; trusted: boolean }): Readonly<{ origin: string; trusted: boolean }> {
    const hit = this.#answers.get(key)
    if (hit) return hit
    const answer = Object.freeze(work())
    if (this.#answers.size >= this.limit) this.#answers.delete(this.#answers.keys().next().value!)
    this.#answers.set(key, answer)
    return answer
  }

  /** The answer for `key` if it was worked out before; never computes one. */
  peek(key: string): Readonly<{ origin: string; trusted: boolean }> | undefined {
    return this.#answers.get(key)
  }

  get size(): number {
    return this.#answers.size
  }
}

/**
 * The memo's key for a request: the scheme and Host the server saw (`http://host:port`, as
 * a serialised URL spells them) and the two forwarded headers, which with `trustHost` may
 * change the answer. One function, so the full parser and the session-check parser
 * (`session-check.ts`) can never disagree about which answer belongs to a request.
 */
export function originKey(schemeAndHost: string, headers: Headers | null): string {
  // Without headers (a server-side read carries no forwarded ones): the key of a request
  // without them, with no `Headers` to ask.
  return `${schemeAndHost}\n${headers?.get("x-forwarded-host") ?? "\u0000"}\n${headers?.get("x-forwarded-proto") ?? "\u0000"}`
}
