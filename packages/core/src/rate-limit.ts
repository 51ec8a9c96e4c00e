/**
 * Rate limiting and sign-in lockout: the store interface, the in-memory store, and the
 * adapter for `rate-limiter-flexible` limiters that the Redis store (in
 * `@portcullis/redis-adapter/rate-limit`) is built on. Configure with the `rateLimit` option;
 * see `docs/rate-limiting.md`.
 *
 * @example
 * ```ts
 * import { memoryRateLimitStore } from "@portcullis/core/rate-limit"
 * const config = { providers, rateLimit: { store: memoryRateLimitStore(), allowList: ["10.0.0.5"] } }
 * ```
 * @module
 */
export { flexibleStore, type FlexibleLimiter, type FlexibleResult, type RateLimitCounter, type RateLimitStore } from "./lib/rate-limit/store.js"
export { memoryRateLimitStore } from "./lib/rate-limit/memory.js"
export { RATE_LIMIT_DEFAULTS, type RateLimitAction, type RateLimitedEvent, type RateLimitRule } from "./lib/rate-limit/limiter.js"
export type { RateLimitOptions } from "./lib/rate-limit/options.js"
export { RateLimited } from "./errors.js"
