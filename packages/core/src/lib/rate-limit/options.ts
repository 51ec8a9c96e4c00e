import type { RateLimitAction, RateLimitRule } from "./limiter.js"
import type { RateLimitStore } from "./store.js"

/**
 * The `rateLimit` option (see `docs/rate-limiting.md`). Every field is optional: `{}` is
 * the defaults, with counters in this process's memory.
 *
 * @example
 * ```ts
 * import { redisRateLimitStore } from "@portcullis/redis-adapter/rate-limit"
 *
 * const config = {
 *   providers,
 *   rateLimit: {
 *     store: redisRateLimitStore(redis),
 *     perIdentifier: { credentials: { max: 10, window: 600, maxLockout: 3600 } },
 *     perAddress: { sessionUpdate: false },
 *     allowList: ["10.0.0.5", "load-test@example.com"],
 *   },
 * }
 * ```
 */
export interface RateLimitOptions {
  /** Where the counters live. Default: this process's memory (`memoryRateLimitStore()`). */
  store?: RateLimitStore
  /** Requests per client address, by action; `false` turns one off. Each rule replaces its default. */
  perAddress?: Partial<Record<RateLimitAction, RateLimitRule | false>>
  /**
   * Per identifier: failed credentials attempts per username/email (a lockout that doubles
   * on each repeat, up to `maxLockout` seconds), and sign-in emails per address.
   */
  perIdentifier?: {
    credentials?: (RateLimitRule & { maxLockout?: number }) | false
    email?: RateLimitRule | false
  }
  /** Client addresses (exact, as text) and identifiers (normalised) that are never limited. */
  allowList?: string[]
  /**
   * Actions refused (`ServiceUnavailable`, 503) while the store fails or is slower than
   * `timeout`; the others are let through with a warning. Default `["credentials"]`.
   */
  failClosed?: RateLimitAction[]
  /** Milliseconds a store call may take before it counts as failed. Default `1000`; `0` for no limit. */
  timeout?: number
}
