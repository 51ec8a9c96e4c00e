/**
 * Where impersonations live: one record per impersonated session, under the session's key
 * (`ExtensionSession.key`), read on every check of that session — so every instance sharing
 * the store shows the banner and ends the session at its limit.
 * @module
 */

/** One impersonation: who, by whom, until when. */
export interface Impersonation {
  /** The impersonated user. */
  userId: string
  /** The admin who started it. */
  by: { id: string; email: string | null }
  startedAt: Date
  /** The hard end: the session is refused from then on, however active. */
  until: Date
  /** When it was ended with the button (or the server function); `null` while it runs. */
  endedAt: Date | null
}

/**
 * An impersonation store: `memoryImpersonationStore()` (`@portcullis/admin/memory`),
 * `redisImpersonationStore(client)` (`@portcullis/admin/redis`), or your own over a shared
 * store. A record is kept for `ttl` milliseconds — as long as the session could outlive its
 * end — so an ended or expired impersonation is refused, never taken for a plain session.
 */
export interface ImpersonationStore {
  /** Stores (or replaces) the record of the session `key`, kept for `ttl` ms. */
  put(key: string, record: Impersonation, ttl: number): Promise<void>
  /** The record of the session `key`, or `null`. */
  get(key: string): Promise<Impersonation | null>
}
