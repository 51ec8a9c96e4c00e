/**
 * `@portcullis/admin/memory`: bans kept in this process (tests, one-instance apps).
 *
 * @example
 * ```ts
 * import { admin } from "@portcullis/admin"
 * import { memoryBanStore } from "@portcullis/admin/memory"
 *
 * const console = admin({ isAdmin: (user) => user.email === "ada@example.com", store: memoryBanStore() })
 * ```
 * @module
 */
import { MemoryBanStore } from "./store/memory.js"
import type { BanStore } from "./store/types.js"
import { MemoryImpersonationStore } from "./store/memory-impersonations.js"
import type { ImpersonationStore } from "./store/impersonations.js"

export { MemoryBanStore, MemoryImpersonationStore }

/** A ban store in memory: bans do not survive a restart and are not shared between instances. */
export function memoryBanStore(): BanStore {
  return new MemoryBanStore()
}

/**
 * Impersonations kept in this process: not shared between instances (an impersonation started
 * on one would be no impersonation on another) — use `redisImpersonationStore` or `sqlImpersonationStore` for more than one.
 *
 * @example
 * ```ts
 * admin({ store: memoryBanStore(), roles: ["admin"], impersonation: { store: memoryImpersonationStore() } })
 * ```
 */
export function memoryImpersonationStore(): ImpersonationStore {
  return new MemoryImpersonationStore()
}
