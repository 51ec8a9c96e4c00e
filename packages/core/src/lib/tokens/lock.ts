import type { Adapter } from "../../adapters.js"

/**
 * A lock shared by every app instance, so that of all the requests that find one account's
 * access token expired, one asks the provider and the others wait and read its result.
 *
 * `acquire` must be atomic ("set if absent, with an expiry"), and `release` must remove the
 * lock only when `owner` still holds it: a holder that outlived its `ttlMs` must not free
 * the lock a later holder took. Redis: `SET key owner NX PX ttl` and a checked `DEL` (one
 * script). SQL: an insert that fails on the primary key, or an update of an expired row.
 *
 * @example
 * ```ts
 * import { redisRefreshLock } from "@portcullis/redis-adapter"
 *
 * const config = { adapter, tokenRefresh: { lock: redisRefreshLock(redis) }, providers }
 * ```
 */
export interface RefreshLock {
  /** Takes `key` for `owner` for `ttlMs` milliseconds; `false` when another owner holds it. */
  acquire(key: string, owner: string, ttlMs: number): Promise<boolean>
  /** Frees `key` if `owner` still holds it; otherwise does nothing. */
  release(key: string, owner: string): Promise<void>
  /**
   * Optional: keeps `value` under `key` for `ttlMs`, for other instances to {@link read}.
   * JWT sessions use it to hand a rotated token set (encrypted) to requests on other
   * instances that still carry the old refresh token; without it, only this process's.
   */
  share?(key: string, value: string, ttlMs: number): Promise<void>
  /** Optional: the value {@link share}d under `key`, or `null`. */
  read?(key: string): Promise<string | null>
}

/**
 * A lock within this process, for one app instance (the default without a shared one). It
 * belongs to one configuration (`ResolvedConfig.tokenRefresh`), never to the module.
 */
export class MemoryRefreshLock implements RefreshLock {
  readonly #held = new Map<string, { owner: string; expires: number }>()

  /**
   * @param limit Most keys held at once; past it, expired keys go, then the oldest. Token
   *   refresh holds one key per account in flight; the two-factor ledger (lib/two-factor/,
   *   for an adapter without `acquireLock`) one per challenge and wrong code — a flood must
   *   not grow memory without end, and losing an old slot costs at most one more attempt.
   */
  constructor(private readonly limit = 50_000) {}

  async acquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now()
    const current = this.#held.get(key)
    if (current && current.expires > now) return false
    if (current) this.#held.delete(key)
    else if (this.#held.size >= this.limit) this.#sweep(now)
    this.#held.set(key, { owner, expires: now + ttlMs })
    return true
  }

  /**
   * Drops the expired keys and, still over the bound, the oldest down to nine tenths of it:
   * a flood then pays for one sweep per tenth of the bound in new keys, not one per key.
   */
  #sweep(now: number): void {
    for (const [key, value] of this.#held) if (value.expires <= now) this.#held.delete(key)
    for (const key of this.#held.keys()) {
      if (this.#held.size <= this.limit * 0.9) break
      this.#held.delete(key)
    }
  }

  async release(key: string, owner: string): Promise<void> {
    if (this.#held.get(key)?.owner === owner) this.#held.delete(key)
  }

  readonly #values = new Map<string, { value: string; expires: number }>()

  async share(key: string, value: string, ttlMs: number): Promise<void> {
    // Bounded: entries live a minute, and a flood of rotations must not grow memory without end.
    if (this.#values.size >= 10_000) this.#values.clear()
    this.#values.set(key, { value, expires: Date.now() + ttlMs })
  }

  async read(key: string): Promise<string | null> {
    const hit = this.#values.get(key)
    if (!hit || hit.expires <= Date.now()) return null
    return hit.value
  }
}

/** The adapter's own lock (`acquireLock`/`releaseLock`), when it has one. */
export function adapterRefreshLock(adapter: Adapter | undefined): RefreshLock | undefined {
  if (typeof adapter?.acquireLock !== "function" || typeof adapter.releaseLock !== "function") return undefined
  const { acquireLock, releaseLock, setShared, getShared } = adapter
  return {
    acquire: async (key, owner, ttlMs) => (await acquireLock(key, owner, ttlMs)) === true,
    release: async (key, owner) => {
      await releaseLock(key, owner)
    },
    ...(typeof setShared === "function" && typeof getShared === "function" && {
      share: async (key: string, value: string, ttlMs: number) => {
        await setShared(key, value, ttlMs)
      },
      read: async (key: string) => (await getShared(key)) ?? null,
    }),
  }
}
