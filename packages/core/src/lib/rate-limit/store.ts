/**
 * The counter store behind rate limiting: three operations, so a platform with its own
 * atomic counters (a Durable Object, a KV with increments) can plug in without our
 * library. The stores we ship adapt `rate-limiter-flexible` limiters ({@link flexibleStore}),
 * whose increments are atomic in memory, in Redis (a Lua script) and in SQL upserts.
 * @module
 */

/** A counter as the store holds it. */
export interface RateLimitCounter {
  /** The counter's value after the operation. */
  count: number
  /** Milliseconds until the counter's window ends and it is forgotten. */
  resetMs: number
}

/**
 * Where rate-limit counters live. Every operation must be atomic across every process that
 * shares the store: two concurrent `hit`s of one key must both count.
 *
 * @example
 * ```ts
 * // A store over Cloudflare's Durable Objects, KV with atomic increments, …
 * const store: RateLimitStore = {
 *   async hit(key, windowSeconds, points = 1) { return counters.increment(key, points, windowSeconds) },
 *   async peek(key) { return counters.get(key) },
 *   async reset(key) { await counters.delete(key) },
 * }
 * const config = { rateLimit: { store }, providers }
 * ```
 */
export interface RateLimitStore {
  /**
   * Adds `points` (default 1) to the counter `key`, first creating it with a window of
   * `windowSeconds` when it does not exist or its window ended; resolves to the new value.
   * The window is fixed at creation: later hits do not extend it.
   */
  hit(key: string, windowSeconds: number, points?: number): Promise<RateLimitCounter>
  /** The counter `key`, or `null` when there is none (or its window ended). */
  peek(key: string): Promise<RateLimitCounter | null>
  /** Forgets the counter `key`. */
  reset(key: string): Promise<void>
}

/** The part of a `rate-limiter-flexible` limiter a store needs (its `RateLimiterRes`). */
export interface FlexibleResult {
  consumedPoints: number
  msBeforeNext: number
}

/** The part of a `rate-limiter-flexible` limiter (`RateLimiterMemory`, `RateLimiterRedis`, …) a store needs. */
export interface FlexibleLimiter {
  penalty(key: string, points?: number): Promise<FlexibleResult>
  get(key: string): Promise<FlexibleResult | null>
  delete(key: string): Promise<unknown>
}

/**
 * A {@link RateLimitStore} over `rate-limiter-flexible` limiters. Those fix the window
 * length per limiter, so there is one limiter per window length (all with the same key
 * prefix; a key is always used with one window). `penalty` is the library's atomic
 * increment that never rejects, which is what a counter needs: the limits are ours.
 *
 * `shared`: whether the limiters share one storage (Redis, SQL: any of them reads any key).
 * In-memory limiters each keep their own map, so a read or delete asks each of them.
 *
 * @example
 * ```ts
 * import { RateLimiterRedis } from "rate-limiter-flexible"
 * const store = flexibleStore((duration) => new RateLimiterRedis({ storeClient: redis, keyPrefix: "myapp-rl", points: 1, duration }))
 * ```
 */
export function flexibleStore(limiterFor: (windowSeconds: number) => FlexibleLimiter, options: { shared?: boolean } = {}): RateLimitStore {
  const shared = options.shared ?? true
  const limiters = new Map<number, FlexibleLimiter>()
  const limiter = (windowSeconds: number) => {
    const seconds = Math.max(1, Math.ceil(windowSeconds))
    let found = limiters.get(seconds)
    if (!found) limiters.set(seconds, (found = limiterFor(seconds)))
    return found
  }
  /** The limiters a read or delete must ask. */
  const holders = (): FlexibleLimiter[] => (shared ? [limiters.values().next().value ?? limiter(60)] : [...limiters.values()])
  const counter = (r: FlexibleResult): RateLimitCounter => ({ count: r.consumedPoints, resetMs: Math.max(0, r.msBeforeNext) })
  return {
    async hit(key, windowSeconds, points = 1) {
      return counter(await limiter(windowSeconds).penalty(key, points))
    },
    async peek(key) {
      for (const holder of holders()) {
        const found = await holder.get(key)
        // A window that ended but was not swept yet reads as no counter.
        if (found && found.msBeforeNext > 0) return counter(found)
      }
      return null
    },
    async reset(key) {
      await Promise.all(holders().map((holder) => holder.delete(key)))
    },
  }
}
