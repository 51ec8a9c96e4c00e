/**
 * Wrong-code counts per two-factor challenge, kept server-side: the challenge cookie cannot
 * carry its own count, since a client could send an older copy again. Bounded; a field of
 * the configuration's runtime (`ResolvedTwoFactor.attempts`), never module state.
 * @module
 */

/** Most challenges remembered at once; the oldest go first. */
const LIMIT = 10_000

export class AttemptCounter {
  readonly #counts = new Map<string, { count: number; until: number }>()

  /** Counts one attempt at challenge `id` (which expires at `until`, epoch ms); returns the count so far. */
  hit(id: string, until: number, now = Date.now()): number {
    const entry = this.#counts.get(id)
    if (entry && entry.until > now) {
      entry.count++
      return entry.count
    }
    this.#sweep(now)
    this.#counts.set(id, { count: 1, until })
    return 1
  }

  /**
   * Marks challenge `id` used up (its code passed): every later attempt with a copy of its
   * cookie counts as over the cap, so one challenge yields one session. Returns `false` when
   * a copy spent it first — copies sent at once all pass `hit` before any code is judged,
   * and each may carry a different valid code; only the first to get here may sign in.
   */
  spend(id: string, until: number, now = Date.now()): boolean {
    const entry = this.#counts.get(id)
    if (entry && entry.count === Number.POSITIVE_INFINITY && entry.until > now) return false
    this.#counts.set(id, { count: Number.POSITIVE_INFINITY, until })
    return true
  }

  #sweep(now: number): void {
    for (const [key, value] of this.#counts) if (value.until <= now) this.#counts.delete(key)
    if (this.#counts.size < LIMIT) return
    // Over the bound, the oldest wrong-code counts go; a live spent mark never does: losing
    // it would let a copy of a passed challenge sign in again. Wrong codes are free to send,
    // a spent mark costs a passed second factor, so only those marks can grow past LIMIT.
    for (const [key, value] of this.#counts) {
      if (this.#counts.size < LIMIT) break
      if (value.count !== Number.POSITIVE_INFINITY) this.#counts.delete(key)
    }
  }
}
