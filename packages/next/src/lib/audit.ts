import { auditTrail as coreAuditTrail, pruneAuditTrail as corePruneAuditTrail, type AuditPage, type AuditQuery } from "@portcullis/core/integration"
import { appFor, type NextAuthConfigInput } from "./config.js"

/**
 * One page of the stored audit trail, on the app's runtime (docs/observability.md, "Storing
 * the audit trail"): by user, type and time, newest first, `next` for the page after. The
 * app decides who may read it.
 *
 * @throws `InvalidAuditQuery` (answer 400) for a malformed query or cursor;
 * `AuditTrailUnsupported` when the adapter has no audit capability.
 * @example
 * ```ts
 * // app/admin/audit/page.tsx (after checking the viewer is an admin)
 * import { auditTrail } from "@/auth"
 *
 * const { records, next } = await auditTrail({ userId, type: ["signIn", "signInFailed"], limit: 20, cursor })
 * ```
 */
export type AuditTrail = (query?: AuditQuery) => Promise<AuditPage>

/** Deletes the stored audit records older than `audit.retention` now (a scheduled job); how many. */
export type PruneAuditTrail = () => Promise<{ deleted: number }>

export function createAuditTrail(input: NextAuthConfigInput): AuditTrail {
  return async (query) => coreAuditTrail((await appFor(input, undefined)).runtime, query)
}

export function createPruneAuditTrail(input: NextAuthConfigInput): PruneAuditTrail {
  return async () => corePruneAuditTrail((await appFor(input, undefined)).runtime)
}
