/**
 * A bounded memory of session cookies already decrypted, so a hot session check skips the
 * decryption. Keyed by the exact cookie string (which only the secret holder can produce)
 * within a scope of (salt, secrets); entries die at the token's `exp`, and the oldest are
 * evicted past the limit. Callers get clones, so a callback mutating its token cannot
 * poison the cache.
 */
export class VerifiedTokenCache<T extends { payload: object }> {
  #scopes = new Map<string, Map<string, { value: T; expiresAt: number }>>()
  #size = 0

  constructor(readonly limit = 10_000) {}

  get(scope: string, key: string): T | undefined {
    const hit = this.peek(scope, key)
    return hit && this.clone(hit)
  }

  /** Like `get`, but the cache's own value, not a clone: for callers that never change it. */
  peek(scope: string, key: string): T | undefined {
    const entries = this.#scopes.get(scope)
    const hit = entries?.get(key)
    if (!hit) return undefined
    if (hit.expiresAt <= Date.now()) {
      entries!.delete(key)
      this.#size--
      return undefined
    }
    return hit.value
  }

  /** Remembers `value` (a copy of it, unless `copy` is false: then the caller gives it up and never changes it). */
  set(scope: string, key: string, value: T, expiresAt: number, copy = true): void {
    let entries = this.#scopes.get(scope)
    if (!entries) {
      entries = new Map()
      this.#scopes.set(scope, entries)
    }
    if (!entries.has(key)) this.#size++
    entries.set(key, { value: copy ? this.clone(value) : value, expiresAt })
    if (this.#size > this.limit) this.#evict()
  }

  clone(value: T): T {
    return { ...value, payload: structuredClone(value.payload) }
  }

  #evict() {
    // Drop the oldest tenth of the largest scope: cheap, and keeps the hot tail.
    for (const entries of this.#scopes.values()) {
      let n = Math.ceil(entries.size / 10)
      for (const key of entries.keys()) {
        if (n-- <= 0) break
        entries.delete(key)
        this.#size--
      }
      if (this.#size <= this.limit) return
    }
  }
}
