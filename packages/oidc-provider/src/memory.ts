/**
 * `@portcullis/oidc-provider/memory`: the provider's store in this process's memory.
 * @module
 */
import { MemoryOidcProviderStore } from "./store/memory.js"
import type { OidcProviderStore } from "./store/types.js"

export { MemoryOidcProviderStore }

/**
 * A store kept in memory: for tests and a single development server (everything is lost on
 * restart, and instances do not share it — use the SQL or Redis store in production).
 *
 * @example
 * ```ts
 * import { oidcProvider } from "@portcullis/oidc-provider"
 * import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
 *
 * const provider = oidcProvider({ store: memoryOidcProviderStore(), clients: [] })
 * ```
 */
export function memoryOidcProviderStore(): OidcProviderStore {
  return new MemoryOidcProviderStore()
}
