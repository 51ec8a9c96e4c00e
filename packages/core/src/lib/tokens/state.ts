import type { Adapter } from "../../adapters.js"
import { InvalidConfig, type AuthError } from "../../errors.js"
import { adapterRefreshLock, MemoryRefreshLock, type RefreshLock } from "./lock.js"
import type { TokenRefreshOptions } from "./options.js"

/** What a JWT-held refresh produced, remembered briefly for requests holding the old tokens. */
interface Handoff {
  tokens: unknown
  expires: number
}

/** How long a rotated JWT token set is handed to requests still carrying the old one. */
const HANDOFF_TTL = 60_000
const HANDOFF_LIMIT = 10_000

/**
 * What one configuration keeps for token refreshes (`ResolvedConfig.tokenRefresh`): its
 * checked options, the lock, and the refreshes in flight in this process — so that
 * concurrent callers for one account share one request to the provider.
 */
export class TokenRefreshState {
  /** Refreshes in flight, by account (or by refresh token for JWT sessions). */
  readonly inflight = new Map<string, Promise<unknown>>()
  /** Rotations of JWT-held refresh tokens, by a hash of the old token (see `jwt.ts`). */
  readonly #handoffs = new Map<string, Handoff>()

  constructor(
    readonly skew: number,
    readonly lockTtl: number,
    readonly lock: RefreshLock,
    /** Whether the lock holds across instances (the app gave one, or the adapter has one). */
    readonly shared: boolean,
    readonly jwt: boolean,
  ) {}

  /** Runs `work` once per `key` at a time; concurrent callers get the same promise. */
  singleFlight<T>(key: string, work: () => Promise<T>): Promise<T> {
    const running = this.inflight.get(key)
    if (running) return running as Promise<T>
    const flight = work().finally(() => this.inflight.delete(key))
    this.inflight.set(key, flight)
    return flight
  }

  remember(key: string, tokens: unknown): void {
    if (this.#handoffs.size >= HANDOFF_LIMIT) this.#handoffs.clear()
    this.#handoffs.set(key, { tokens, expires: Date.now() + HANDOFF_TTL })
  }

  recall<T>(key: string): T | undefined {
    const hit = this.#handoffs.get(key)
    if (!hit) return undefined
    if (hit.expires <= Date.now()) {
      this.#handoffs.delete(key)
      return undefined
    }
    return hit.tokens as T
  }
}

const DEFAULT_SKEW = 60
const DEFAULT_LOCK_TTL = 30_000

/** The `tokenRefresh` option checked, with its defaults; problems go to `fail`. */
export function resolveTokenRefresh(
  option: TokenRefreshOptions | undefined,
  adapter: Adapter | undefined,
  fail: (e: AuthError) => void,
): TokenRefreshState {
  if (option !== undefined && (typeof option !== "object" || option === null || Array.isArray(option))) {
    fail(new InvalidConfig(`tokenRefresh must be an object, got ${JSON.stringify(option)}`))
  }
  const o: TokenRefreshOptions = typeof option === "object" && option !== null ? option : {}
  let skew = DEFAULT_SKEW
  if (o.skew !== undefined) {
    if (typeof o.skew !== "number" || !Number.isFinite(o.skew) || o.skew < 0) fail(new InvalidConfig(`tokenRefresh.skew must be a number of seconds >= 0, got ${JSON.stringify(o.skew)}`))
    else skew = o.skew
  }
  let lockTtl = DEFAULT_LOCK_TTL
  if (o.lockTtl !== undefined) {
    if (typeof o.lockTtl !== "number" || !Number.isFinite(o.lockTtl) || o.lockTtl < 100 || o.lockTtl > 2_147_483_647) {
      fail(new InvalidConfig(`tokenRefresh.lockTtl must be a number of milliseconds from 100, got ${JSON.stringify(o.lockTtl)}`))
    } else lockTtl = o.lockTtl
  }
  if (o.lock !== undefined && (typeof o.lock?.acquire !== "function" || typeof o.lock?.release !== "function")) {
    fail(new InvalidConfig("tokenRefresh.lock must have acquire(key, owner, ttlMs) and release(key, owner) methods"))
  }
  if (o.jwt !== undefined && typeof o.jwt !== "boolean") fail(new InvalidConfig(`tokenRefresh.jwt must be a boolean, got ${JSON.stringify(o.jwt)}`))
  const given = typeof o.lock?.acquire === "function" && typeof o.lock?.release === "function" ? o.lock : undefined
  const fromAdapter = adapterRefreshLock(adapter)
  const lock = given ?? fromAdapter ?? new MemoryRefreshLock()
  return new TokenRefreshState(skew, lockTtl, lock, !!(given ?? fromAdapter), o.jwt === true)
}
