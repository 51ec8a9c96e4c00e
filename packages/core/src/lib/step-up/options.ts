/**
 * The `stepUp` option: resolved once per configuration into the window and the store the
 * step-up marks live in (`ResolvedConfig.stepUp`).
 * @module
 */
import { InvalidConfig, type AuthError } from "../../errors.js"
import { memoryRateLimitStore } from "../rate-limit/memory.js"
import type { RateLimitStore } from "../rate-limit/store.js"

/**
 * Step-up re-authentication ("sudo mode", docs/step-up.md): sensitive actions need a first
 * factor proven in the same session within `maxAge` seconds.
 *
 * @example
 * ```ts
 * import { redisRateLimitStore } from "@portcullis/redis-adapter/rate-limit"
 * const config = { providers, stepUp: { maxAge: 5 * 60, store: redisRateLimitStore(redis) } }
 * ```
 */
export interface StepUpOptions {
  /** Seconds a proven first factor counts as fresh. Default `600` (10 minutes). */
  maxAge?: number
  /**
   * Where the marks live, shared by every instance of the app (the rate-limit store
   * interface: the Redis and SQL stores of the adapter packages fit). Default: the
   * `rateLimit.store` when rate limiting is on, else a store in this process's memory.
   */
  store?: RateLimitStore
  /** Milliseconds a store call may take before it counts as failed (the action is refused). Default `1000`; `0` for no limit. */
  timeout?: number
}

/** The `stepUp` option with its defaults. */
export interface ResolvedStepUp {
  maxAge: number
  store: RateLimitStore
  timeout: number
}

export const STEP_UP_DEFAULT_MAX_AGE = 600

export function resolveStepUp(option: StepUpOptions | undefined, rateLimitStore: RateLimitStore | undefined, fail: (e: AuthError) => void): ResolvedStepUp {
  const defaults = (): ResolvedStepUp => ({ maxAge: STEP_UP_DEFAULT_MAX_AGE, store: rateLimitStore ?? memoryRateLimitStore(), timeout: 1000 })
  if (option === undefined || option === null) return defaults()
  if (typeof option !== "object" || Array.isArray(option)) {
    fail(new InvalidConfig(`stepUp must be an object, got ${JSON.stringify(option)}`))
    return defaults()
  }
  const { maxAge = STEP_UP_DEFAULT_MAX_AGE, store, timeout = 1000 } = option
  if (typeof maxAge !== "number" || !Number.isInteger(maxAge) || maxAge < 1) fail(new InvalidConfig(`stepUp.maxAge must be a whole number of seconds of at least 1, got ${JSON.stringify(maxAge)}`))
  if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout < 0) fail(new InvalidConfig(`stepUp.timeout must be a number of milliseconds (0 for no limit), got ${JSON.stringify(timeout)}`))
  if (store !== undefined && (typeof store?.hit !== "function" || typeof store.peek !== "function" || typeof store.reset !== "function")) {
    fail(new InvalidConfig("stepUp.store must have hit, peek and reset (a RateLimitStore)"))
    return defaults()
  }
  return { maxAge, store: store ?? rateLimitStore ?? memoryRateLimitStore(), timeout }
}
