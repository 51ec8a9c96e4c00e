import type { Impersonation, ImpersonationStore } from "./impersonations.js"

/** Impersonations in this process: for tests and one-instance apps. */
export class MemoryImpersonationStore implements ImpersonationStore {
  readonly #records = new Map<string, { record: Impersonation; keep: number }>()

  async put(key: string, record: Impersonation, ttl: number): Promise<void> {
    this.#records.set(key, { record: structuredClone(record), keep: Date.now() + ttl })
  }

  async get(key: string): Promise<Impersonation | null> {
    const found = this.#records.get(key)
    if (!found) return null
    if (found.keep <= Date.now()) {
      this.#records.delete(key)
      return null
    }
    return structuredClone(found.record)
  }
}
