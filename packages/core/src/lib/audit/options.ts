/**
 * The `audit` option: whether audit events are stored in the adapter (when it has the audit
 * capability), for how long, and where background pruning may be handed for the platform to
 * wait on. Resolved once per configuration (`ResolvedConfig.audit`).
 * @module
 */
import { InvalidConfig, type AuthError } from "../../errors.js"

/**
 * Storing the audit trail (docs/observability.md, "Storing the audit trail"). With an adapter
 * that has the audit capability every audit event is stored besides going to
 * `events.audit`, and `auditTrail()` reads it back.
 *
 * @example
 * ```ts
 * import { waitUntil } from "@vercel/functions"
 *
 * const config = { adapter, providers, audit: { retention: 30 * 24 * 60 * 60, waitUntil } }
 * ```
 */
export interface AuditOptions {
  /** Store every audit event in the adapter when it has the audit capability. Default `true`; `false` keeps the stream only. */
  store?: boolean
  /**
   * Seconds a stored record is kept: older ones are deleted, at most once an hour per
   * runtime, in the background. Default 90 days; `false` keeps every record (prune with
   * `pruneAuditTrail` on a schedule of your own, or never).
   */
  retention?: number | false
  /**
   * The platform's `waitUntil` (Vercel's from `@vercel/functions`, Cloudflare's from the
   * execution context): background pruning is handed to it, so a runtime that stops after
   * the response still finishes it.
   */
  waitUntil?: (promise: Promise<unknown>) => void
}

/** The `audit` option with its defaults. */
export interface ResolvedAuditOptions {
  store: boolean
  /** Seconds; `false` for no pruning. */
  retention: number | false
  waitUntil: ((promise: Promise<unknown>) => void) | undefined
}

/** Ninety days: long enough to investigate an incident reported late, short enough to keep a table small. */
export const AUDIT_DEFAULT_RETENTION = 90 * 24 * 60 * 60

export function resolveAuditOptions(option: AuditOptions | undefined, fail: (e: AuthError) => void): ResolvedAuditOptions {
  const resolved: ResolvedAuditOptions = { store: true, retention: AUDIT_DEFAULT_RETENTION, waitUntil: undefined }
  if (option === undefined || option === null) return resolved
  if (typeof option !== "object" || Array.isArray(option)) {
    fail(new InvalidConfig(`audit must be an object, got ${JSON.stringify(option)}`))
    return resolved
  }
  const { store = true, retention = AUDIT_DEFAULT_RETENTION, waitUntil } = option
  if (typeof store !== "boolean") fail(new InvalidConfig(`audit.store must be a boolean, got ${JSON.stringify(store)}`))
  else resolved.store = store
  // Under a minute would delete records faster than anyone reads them: surely a unit mix-up (milliseconds).
  if (retention !== false && (typeof retention !== "number" || !Number.isFinite(retention) || retention < 60)) {
    fail(new InvalidConfig(`audit.retention must be a number of seconds of at least 60, or false, got ${JSON.stringify(retention)}`))
  } else resolved.retention = retention
  if (waitUntil !== undefined && typeof waitUntil !== "function") fail(new InvalidConfig("audit.waitUntil must be the platform's waitUntil function"))
  else resolved.waitUntil = waitUntil
  return resolved
}
