// The limiter's own module, not the package's index: the index loads every store the
// package has, Node's `cluster` included, and core must bundle for edge runtimes.
import RateLimiterMemory from "rate-limiter-flexible/lib/RateLimiterMemory.js"
import { flexibleStore, type RateLimitStore } from "./store.js"

/**
 * Counters in this process's memory (`rate-limiter-flexible`'s `RateLimiterMemory`): the
 * default store. Right for one server process; several processes or instances each count
 * on their own, so an attacker spreading requests over them gets that many times the
 * limit — use the Redis or SQL store there. Each counter is dropped when its window ends.
 *
 * @example
 * ```ts
 * import { memoryRateLimitStore } from "@portcullis/core/rate-limit"
 * const config = { rateLimit: { store: memoryRateLimitStore() }, providers }
 * ```
 */
export function memoryRateLimitStore(): RateLimitStore {
  // Each in-memory limiter has its own map: reads and deletes ask every one (`shared: false`).
  return flexibleStore((duration) => new RateLimiterMemory({ keyPrefix: "pcl-rl", points: 1, duration }), { shared: false })
}
