/**
 * Time limits for many concurrent calls with one timer. Arming and clearing a `setTimeout`
 * around every adapter call — a timer, two more promises and a race, on every session
 * check — cost more than the in-memory adapter's whole answer; here a call costs a set
 * entry, and one interval (running only while calls are pending) fails the late
 * ones. A late call fails between `ms` and `1.25 × ms` after it began.
 *
 * The clock is `performance.now()`: monotonic, and left alone by tests that freeze `Date`.
 */
export class Deadlines {
  readonly #pending = new Set<{ at: number; fail: () => void }>()
  #timer: ReturnType<typeof setInterval> | undefined

  constructor(readonly ms: number) {}

  /**
   * `call`'s outcome, or — if it has not settled within `ms` — a rejection with `late()`.
   * The call itself cannot be cancelled; its later outcome is ignored (never unhandled).
   */
  race<T>(call: PromiseLike<T>, late: () => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry = { at: performance.now() + this.ms, fail: () => reject(late()) }
      this.#pending.add(entry)
      this.#timer ??= this.#start()
      call.then(
        (value) => {
          if (this.#pending.delete(entry)) resolve(value)
        },
        (error: unknown) => {
          if (this.#pending.delete(entry)) reject(error)
        },
      )
    })
  }

  #start(): ReturnType<typeof setInterval> {
    // Not unref'd: like the timer per call it replaces, it keeps the process alive until
    // every pending call has settled or failed — a script awaiting a hung store gets its
    // `AdapterError` rather than exiting in silence. It stops itself once nothing is pending.
    return setInterval(() => this.#sweep(), Math.max(1, Math.ceil(this.ms / 4)))
  }

  #sweep(): void {
    const now = performance.now()
    for (const entry of this.#pending) {
      if (entry.at <= now) {
        this.#pending.delete(entry)
        entry.fail()
      }
    }
    if (this.#pending.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer)
      this.#timer = undefined
    }
  }
}
