import type { LoggerInstance, WarningCode } from "../base-types.js"

/** One minute: at most one line per (code, kind) per window. */
const LOG_WINDOW_MS = 60_000

/**
 * Windows kept at most. Most kinds come from closed unions, but some come from traffic (the
 * two-factor warning's `<userId>:<reason>`): past this many, expired windows are swept,
 * and while the map is still full a new kind shares its code's overflow window.
 */
const MAX_WINDOWS = 1_000

/** The kind reported for occurrences that found the map full. */
const OVERFLOW_KIND = "(more kinds)"

/**
 * Rate-limited warnings for input that is expected to be bad now and then and that an
 * attacker can send at will (an unreadable session cookie, a forged form): the first
 * occurrence of a kind is logged, repeats within the window are only counted, and the next
 * line of that kind carries the count (`suppressed`). One error line per bad cookie let a
 * client write 268,000 lines a minute.
 *
 * One limiter per resolved configuration. The state is a window per (code, kind), at most
 * {@link MAX_WINDOWS} of them: it cannot grow with traffic. A count left in a window that
 * expires and is swept before its kind comes back is dropped.
 */
export class LogLimiter {
  #windows = new Map<string, { until: number; suppressed: number }>()
  #nextSweep = 0

  constructor(
    private readonly logger: LoggerInstance,
    readonly windowMs = LOG_WINDOW_MS,
    readonly maxWindows = MAX_WINDOWS,
  ) {}

  /** How many windows are held (for tests of the bound). */
  get size(): number {
    return this.#windows.size
  }

  warn(code: WarningCode, kind: string, details: Record<string, unknown> = {}): void {
    const now = Date.now()
    let key = `${code}\u0000${kind}`
    let window = this.#windows.get(key)
    if (!window && this.#windows.size >= this.maxWindows) {
      this.#sweep(now)
      if (this.#windows.size >= this.maxWindows) {
        kind = OVERFLOW_KIND
        key = `${code}\u0000${OVERFLOW_KIND}`
        window = this.#windows.get(key)
        // The overflow window may need a place of its own: one more than the bound, per code.
      }
    }
    if (window && now < window.until) {
      window.suppressed++
      return
    }
    const suppressed = window?.suppressed ?? 0
    this.#windows.set(key, { until: now + this.windowMs, suppressed: 0 })
    this.logger.warn(code, { kind, ...details, ...(suppressed > 0 && { suppressed, windowSeconds: this.windowMs / 1000 }) })
  }

  /**
   * Drops expired windows. At most once per tenth of a window: a map full of live windows
   * (many kinds within a minute) must not cost a full scan on every warning.
   */
  #sweep(now: number): void {
    if (now < this.#nextSweep) return
    this.#nextSweep = now + this.windowMs / 10
    for (const [key, window] of this.#windows) if (window.until <= now) this.#windows.delete(key)
  }
}
