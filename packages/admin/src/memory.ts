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

export { MemoryBanStore }

/** A ban store in memory: bans do not survive a restart and are not shared between instances. */
export function memoryBanStore(): BanStore {
  return new MemoryBanStore()
}
