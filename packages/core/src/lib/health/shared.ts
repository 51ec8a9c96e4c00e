/**
 * What a health report looks like, and the one check that concurrent probes share.
 * @module
 */

/** `ok`: everything answered. `degraded`: sessions are checked, but something else fails. `down`: sessions cannot be checked, or the configuration has a problem. */
export type HealthStatus = "ok" | "degraded" | "down"

/** One store's probe. */
export interface StoreCheck {
  status: "ok" | "down"
  /** Milliseconds the probe took (the bound, when it timed out). */
  latencyMs: number
  /** Why it is down: `timeout`, or the store's error code (`ECONNREFUSED`, `57P01`) or class name. Never a message: drivers put hosts and connection strings there. */
  error?: string
}

/** What `health()` answers and `GET <basePath>/health` sends. */
export interface HealthReport {
  status: HealthStatus
  checks: {
    /** The configuration: `down` with its error type (`MissingSecret`, `InvalidConfig`, …) when it has a problem. */
    config: { status: "ok" | "down"; error?: string }
    /** A read of a user that does not exist (`getUser`): never a write. */
    adapter?: StoreCheck
    /** JWT sessions with `session.registry`: the sessions of a user that does not exist (`list`). */
    sessionRegistry?: StoreCheck
    /** `rateLimit.store`: a counter that does not exist (`peek`). */
    rateLimit?: StoreCheck
    /** `stepUp.store`, when it is not the rate-limit store: a mark that does not exist (`peek`). */
    stepUp?: StoreCheck
  }
  /** When the probes ran (ISO 8601). */
  time: string
}

/** How long a report answers the probes that follow it. */
export const HEALTH_CACHE_MS = 1000

/**
 * The check the endpoint's probes share: while one runs, every probe waits for it (single
 * flight), and its report answers every probe for {@link HEALTH_CACHE_MS} after it ends. A
 * flood of probes — many load balancers, or anyone who can reach the endpoint — costs each
 * store at most one call a second.
 */
export class SharedCheck {
  #inFlight: Promise<HealthReport> | undefined
  #last: HealthReport | undefined
  #until = 0

  /** The last report while it is fresh, else the one running, else a new one from `run`. */
  get(run: () => Promise<HealthReport>): Promise<HealthReport> {
    if (this.#last && Date.now() < this.#until) return Promise.resolve(this.#last)
    if (this.#inFlight) return this.#inFlight
    const pending = run().then((report) => {
      this.#last = report
      this.#until = Date.now() + HEALTH_CACHE_MS
      return report
    })
    this.#inFlight = pending
    // Settled either way (a run never rejects, but a bug must not wedge every later probe).
    void pending.finally(() => {
      if (this.#inFlight === pending) this.#inFlight = undefined
    }).catch(() => {})
    return pending
  }
}
