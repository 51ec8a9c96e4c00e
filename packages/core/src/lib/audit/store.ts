/**
 * The stored audit trail of one configuration: every audit event written to the adapter's
 * audit capability beside the `events.audit` stream, and old records pruned now and then.
 *
 * Nothing here fails a request. The write is bounded by `adapterTimeout` (the wrapper's);
 * a failed or late write is an "audit store" outage — the first with its chain, then counted
 * into one `store-failing` line a minute, as for any store — and the event is lost to the
 * store (the stream still had it). A module of its own, importing only downward, so the
 * resolver can build it.
 * @module
 */
import type { LoggerInstance } from "../../base-types.js"
import type { AuditStoreMethods } from "../config/stores.js"
import type { StoreTracker } from "../store-health.js"
import type { AuditEvent } from "./events.js"
import type { ResolvedAuditOptions } from "./options.js"

/** How often one runtime prunes: deleting by age is one indexed range delete, an hour apart is plenty. */
export const AUDIT_PRUNE_INTERVAL_MS = 60 * 60 * 1000

export class AuditStore {
  /** When this runtime last started a prune (milliseconds); none yet at first. */
  #prunedAt = Number.NEGATIVE_INFINITY
  #pruning: Promise<unknown> | undefined

  constructor(
    readonly methods: AuditStoreMethods,
    private readonly options: ResolvedAuditOptions,
    private readonly tracker: StoreTracker,
    private readonly logger: LoggerInstance,
  ) {}

  /** Stores `event`; never throws. Starts a background prune when one is due. */
  async record(event: AuditEvent): Promise<void> {
    try {
      await this.methods.createAuditRecord(event)
    } catch (error) {
      this.tracker.failed(error as Error)
    }
    this.#pruneWhenDue()
  }

  /** Deletes the records older than the retention now; how many. `0` when retention is off. */
  async prune(now = Date.now()): Promise<number> {
    if (this.options.retention === false) return 0
    return this.methods.deleteAuditRecordsBefore(new Date(now - this.options.retention * 1000))
  }

  /**
   * At most one prune per interval per runtime, never awaited by the request that started
   * it: a sign-in should not wait for a range delete. Several runtimes on one store each
   * prune an hour apart; deleting by age is idempotent, so they never conflict.
   */
  #pruneWhenDue(): void {
    if (this.options.retention === false || this.#pruning) return
    const now = Date.now()
    if (now - this.#prunedAt < AUDIT_PRUNE_INTERVAL_MS) return
    this.#prunedAt = now
    const pruning = this.prune(now)
      .catch((error: unknown) => this.tracker.failed(error as Error))
      .finally(() => {
        this.#pruning = undefined
      })
    this.#pruning = pruning
    try {
      this.options.waitUntil?.(pruning)
    } catch (error) {
      // A platform's waitUntil called outside its request scope throws; the prune goes on.
      this.logger.error(error as Error)
    }
  }

  /** The prune in progress, if any (for tests and for `pruneAuditTrail` to wait on). */
  get pruning(): Promise<unknown> | undefined {
    return this.#pruning
  }
}
