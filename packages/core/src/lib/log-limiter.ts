import type { LoggerInstance, WarningCode } from "../base-types.js"

/** One minute: at most one line per (code, kind) per window. */
const LOG_WINDOW_MS = 60_000

/**
 * Rate-limited warnings for input that is expected to be bad now and then and that an
 * attacker can send at will (an unreadable session cookie): the first occurrence of a
 * kind is logged, repeats within the window are only counted, and the next line of that
 * kind carries the count (`suppressed`). One error line per bad cookie let a client write
 * 268,000 lines a minute.
 *
 * One limiter per resolved configuration. The state is a window per (code, kind), and
 * kinds come from a closed union, so it cannot grow with traffic.
 */
export class LogLimiter {
  #windows = new Map<string, { until: number; suppressed: number }>()

  constructor(
    private readonly logger: LoggerInstance,
    readonly windowMs = LOG_WINDOW_MS,
  ) {}

  warn(code: WarningCode, kind: string, details: Record<string, unknown> = {}): void {
    const key = `${code}\u0000${kind}`
    const now = Date.now()
    const window = this.#windows.get(key)
    if (window && now < window.until) {
      window.suppressed++
      return
    }
    const suppressed = window?.suppressed ?? 0
    this.#windows.set(key, { until: now + this.windowMs, suppressed: 0 })
    this.logger.warn(code, { kind, ...details, ...(suppressed > 0 && { suppressed, windowSeconds: this.windowMs / 1000 }) })
  }
}
