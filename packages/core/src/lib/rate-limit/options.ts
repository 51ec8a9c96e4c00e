import { type AuthError, InvalidConfig } from "../../errors.js"
import { normaliseIdentifier, RATE_LIMIT_DEFAULTS, type RateLimitAction, type RateLimiter, type RateLimitRule, type RateLimitSettings } from "./limiter.js"
import { asAddress } from "./address.js"
import { memoryRateLimitStore } from "./memory.js"
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

const RATE_LIMIT_ACTIONS = Object.keys(RATE_LIMIT_DEFAULTS.perAddress) as RateLimitAction[]

/**
 * `rateLimit`: on by default (limits in `RATE_LIMIT_DEFAULTS`, counters in memory), except
 * under `NODE_ENV=test`, where test suites sign in far more often than any person; `false`
 * turns it off, and an explicit object turns it on under test too. The memory store is
 * created here, so it belongs to this configuration alone.
 */
export function resolveRateLimit(option: RateLimitOptions | false | undefined, nodeEnv: string | undefined, fail: (e: AuthError) => void, build: (settings: RateLimitSettings) => RateLimiter): RateLimiter | undefined {
  if (option === false || (option === undefined && nodeEnv === "test")) return undefined
  if (option !== undefined && (option === null || typeof option !== "object" || Array.isArray(option))) {
    fail(new InvalidConfig(`rateLimit must be false or an object, got ${JSON.stringify(option)}`))
    return undefined
  }
  const o = option ?? {}
  const problem = (message: string) => {
    fail(new InvalidConfig(`rateLimit: ${message}`))
    return undefined
  }
  const rule = <R extends RateLimitRule>(name: string, value: unknown, fallback: R): R | false | undefined => {
    if (value === undefined) return fallback
    if (value === false) return false
    const r = value as Partial<RateLimitRule> & { maxLockout?: unknown }
    if (!r || typeof r !== "object") return problem(`${name} must be { max, window } or false`)
    const merged = { ...fallback, ...r } as R & { maxLockout?: number }
    if (!Number.isInteger(merged.max) || merged.max < 1) return problem(`${name}.max must be a whole number >= 1, got ${JSON.stringify(r.max)}`)
    if (!Number.isInteger(merged.window) || merged.window < 1) return problem(`${name}.window must be whole seconds >= 1, got ${JSON.stringify(r.window)}`)
    if ("maxLockout" in merged && (!Number.isInteger(merged.maxLockout) || merged.maxLockout! < 1)) {
      return problem(`${name}.maxLockout must be whole seconds >= 1, got ${JSON.stringify(r.maxLockout)}`)
    }
    return merged
  }
  const perAddress = {} as RateLimitSettings["perAddress"]
  for (const key of Object.keys(o.perAddress ?? {})) {
    if (!RATE_LIMIT_ACTIONS.includes(key as RateLimitAction)) return problem(`perAddress.${key} is not an action (${RATE_LIMIT_ACTIONS.join(", ")})`)
  }
  for (const action of RATE_LIMIT_ACTIONS) {
    const r = rule(`perAddress.${action}`, o.perAddress?.[action], RATE_LIMIT_DEFAULTS.perAddress[action])
    if (r === undefined) return undefined
    perAddress[action] = r
  }
  const credentials = rule("perIdentifier.credentials", o.perIdentifier?.credentials, RATE_LIMIT_DEFAULTS.perIdentifier.credentials)
  const email = rule("perIdentifier.email", o.perIdentifier?.email, RATE_LIMIT_DEFAULTS.perIdentifier.email)
  if (credentials === undefined || email === undefined) return undefined
  if (o.allowList !== undefined && (!Array.isArray(o.allowList) || !o.allowList.every((a) => typeof a === "string"))) return problem("allowList must be an array of strings")
  if (o.failClosed !== undefined && (!Array.isArray(o.failClosed) || !o.failClosed.every((a) => RATE_LIMIT_ACTIONS.includes(a)))) {
    return problem(`failClosed must list actions (${RATE_LIMIT_ACTIONS.join(", ")})`)
  }
  const timeout = o.timeout ?? RATE_LIMIT_DEFAULTS.timeout
  if (!Number.isFinite(timeout) || timeout < 0) return problem(`timeout must be milliseconds >= 0, got ${JSON.stringify(o.timeout)}`)
  const store = o.store ?? memoryRateLimitStore()
  if (typeof store?.hit !== "function" || typeof store.peek !== "function" || typeof store.reset !== "function") return problem("store must have hit, peek and reset")
  return build({
    store,
    perAddress,
    perIdentifier: { credentials, email },
    // Identifiers are compared normalised, as they are counted; addresses in the one spelling
    // clientAddress gives them (`2001:DB8::0001` lists `2001:db8::1`).
    allowList: new Set((o.allowList ?? []).flatMap((a) => [a.trim(), asAddress(a) ?? "", a.normalize("NFKC").trim().toLowerCase(), normaliseIdentifier(a) ?? ""]).filter(Boolean)),
    failClosed: new Set(o.failClosed ?? RATE_LIMIT_DEFAULTS.failClosed),
    timeout,
  })
}
