import type { LoggerInstance } from "../base-types.js"
import type { Telemetry } from "./telemetry/index.js"

/** One minute: at most one line of each kind (first failure, count, recovery) per store per window. */
const WINDOW_MS = 60_000

/** The stores whose outages are tracked; a closed set, so the trackers cannot grow with traffic. */
export type StoreName = "adapter" | "session registry" | "step-up store" | "rate-limit store" | "audit sink" | "audit store" | "mail sender" | "store" | `${string} store`

/**
 * What one store's failures write to the log. An outage is many requests failing for one
 * reason: a line each (one `[auth][error]` with its stack per failed request) wrote 4,754
 * entries for a 5.4 s PostgreSQL stop. Here the first failure is logged with its chain (the
 * cause an operator needs), later ones are counted into one `store-failing` line per
 * window, and the first success after them writes one `store-recovered` line. Each of the
 * three is written at most once per window, so a store that flaps, or an outage of any
 * length, writes O(1) lines a minute.
 */
export class StoreTracker {
  /** Whether the last failure has not been followed by a success yet. Read on every successful call: a field, nothing more. */
  failing = false
  #since = 0
  #last = 0
  /** Failures of this outage, and those not yet in a line. */
  #outage = 0
  #unreported = 0
  #chainAt = Number.NEGATIVE_INFINITY
  #countAt = Number.NEGATIVE_INFINITY
  #recoveredAt = Number.NEGATIVE_INFINITY

  constructor(
    readonly name: StoreName,
    private readonly logger: LoggerInstance,
    private readonly windowMs: number,
  ) {}

  /** A request failed because of this store: the first failure is logged with its chain, the rest counted. */
  failed(error: Error): void {
    const now = Date.now()
    // A store whose successes are not observed (the generic "store"): no failure for a
    // window ends its outage, and what fails now is a new one, worth its chain.
    if (this.failing && this.name === "store" && now - this.#last >= this.windowMs) this.failing = false
    this.#last = now
    if (!this.failing) {
      this.failing = true
      this.#since = now
      this.#outage = 0
      // A store that came back and failed again within the window gets no second stack:
      // it is the same outage to the reader, and its failures go into the count.
      if (now - this.#chainAt >= this.windowMs) {
        this.#outage = 1
        this.#chainAt = now
        this.#countAt = now
        this.logger.error(error)
        return
      }
    }
    this.#outage++
    this.#unreported++
    if (now - this.#countAt >= this.windowMs) {
      this.#countAt = now
      this.logger.warn("store-failing", { store: this.name, failures: this.#unreported, failingForSeconds: Math.round((now - this.#since) / 1000) })
      this.#unreported = 0
    }
  }

  /** A call to this store succeeded while it was failing: one "recovered" line (at most one per window). */
  recovered(): void {
    if (!this.failing) return
    this.failing = false
    const now = Date.now()
    if (now - this.#recoveredAt < this.windowMs) return
    this.#recoveredAt = now
    this.logger.warn("store-recovered", { store: this.name, failures: this.#outage, outageSeconds: Math.round((now - this.#since) / 1000) })
    this.#unreported = 0
  }
}

/**
 * The outage trackers of one configuration, one per store, and which tracker a failure
 * belongs to: the store wrappers register each error they raise, so the request that ends
 * with it (as `ServiceUnavailable`, the store's error in its chain) is counted against the
 * right store. A store error that a caller handled (a lost insert race) is never reported,
 * so it is no outage.
 */
export class StoreHealth {
  readonly #trackers = new Map<StoreName, StoreTracker>()
  readonly #origin = new WeakMap<Error, StoreTracker>()

  constructor(
    private readonly logger: LoggerInstance,
    readonly windowMs = WINDOW_MS,
    private readonly telemetry?: Telemetry,
  ) {}

  /** The tracker of `store`. */
  of(store: StoreName): StoreTracker {
    let tracker = this.#trackers.get(store)
    if (!tracker) {
      tracker = new StoreTracker(store, this.logger, this.windowMs)
      this.#trackers.set(store, tracker)
    }
    return tracker
  }

  /**
   * Records that `error` was raised by `store`'s wrapper (only on failure: no cost to a call
   * that succeeds), and the store's own error under it: an `AuthError` built around the
   * wrapper's error (`ServiceUnavailable`) takes that one as its `cause.err`.
   */
  raised(store: StoreName, error: Error): void {
    // Every store's failures pass here: the one place `portcullis.store.errors` is counted.
    this.telemetry?.storeError(store)
    const tracker = this.of(store)
    this.#origin.set(error, tracker)
    const under = causeOf(error)
    if (under instanceof Error) this.#origin.set(under, tracker)
  }

  /** Whether a store's wrapper raised `error` (or an error down its chain): an outage, not a bug. */
  raisedByStore(error: Error): boolean {
    return this.#registered(error) !== undefined
  }

  /** A request failed for a store: counted against the store whose error is in `error`'s chain. */
  failed(error: Error): void {
    this.#storeOf(error).failed(error)
  }

  #storeOf(error: Error): StoreTracker {
    return this.#registered(error) ?? this.of("store")
  }

  #registered(error: Error): StoreTracker | undefined {
    let link: unknown = error
    // A chain is a handful of links (ServiceUnavailable → AdapterError → the driver's error).
    for (let depth = 0; depth < 8 && link instanceof Error; depth++) {
      const tracker = this.#origin.get(link)
      if (tracker) return tracker
      link = causeOf(link)
    }
    return undefined
  }
}

/** The next link of a chain: an `AuthError`'s `cause.err`, or a standard `cause`. */
export function causeOf(error: Error): unknown {
  const cause = error.cause
  if (cause instanceof Error) return cause
  if (cause && typeof cause === "object" && (cause as { err?: unknown }).err instanceof Error) return (cause as { err: Error }).err
  return undefined
}
