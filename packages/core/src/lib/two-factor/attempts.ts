/**
 * Code counts per two-factor challenge in this process, kept server-side: the challenge
 * cookie cannot carry its own count, since a client could send an older copy again. The
 * first line only — the caps that hold across instances are in the shared store
 * (`ledger.ts`). Bounded; a field of the configuration's runtime
 * (`ResolvedTwoFactor.attempts`), never module state.
 * @module
 */

/** Most challenges remembered at once; the oldest go first. */
const LIMIT = 10_000

export class AttemptCounter {
  readonly #counts = new Map<string, { count: number; until: number }>()

  /** @param limit Most challenges remembered at once (a smaller one lets tests reach the bound). */
  constructor(private readonly limit = LIMIT) {}

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
   * Marks challenge `id` used up in this process once the shared store spent it (its code
   * passed): later copies of its cookie sent here count as over the cap without a round
   * trip. The store's spend is what decides; this is only the cheap first line. Returns
   * `false` when it was marked already.
   */
  spend(id: string, until: number, now = Date.now()): boolean {
    const entry = this.#counts.get(id)
    if (entry && entry.count === Number.POSITIVE_INFINITY && entry.until > now) return false
    this.#counts.set(id, { count: Number.POSITIVE_INFINITY, until })
    return true
  }

  #sweep(now: number): void {
    for (const [key, value] of this.#counts) if (value.until <= now) this.#counts.delete(key)
    if (this.#counts.size < this.limit) return
    // Over the bound, the oldest wrong-code counts go; a live spent mark never does: losing
    // it would let a copy of a passed challenge sign in again. Wrong codes are free to send,
    // a spent mark costs a passed second factor, so only those marks can grow past the bound.
    for (const [key, value] of this.#counts) {
      if (this.#counts.size < this.limit) break
      if (value.count !== Number.POSITIVE_INFINITY) this.#counts.delete(key)
    }
  }
}
