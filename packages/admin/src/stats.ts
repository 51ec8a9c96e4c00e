/**
 * The charts' numbers, counted from the audit trail (core's query): sign-ins by method and
 * outcome per day, lockouts, and active users (distinct users signing in) per day; beside
 * them the number of active sessions now, counted by the session store (the admin facet). Read newest first in pages of 100, at most
 * {@link MAX_RECORDS} records, so a busy site's chart costs a bounded number of reads
 * (`truncated` says when the oldest days were not all counted).
 * @module
 */
import type { AuditEventType, ExtensionAdmin } from "@portcullis/core/extension"

/** Records read for one chart at most. */
export const MAX_RECORDS = 5000

/** One day's counts. */
export interface DayCounts {
  /** `YYYY-MM-DD`, UTC. */
  day: string
  /** Successful sign-ins by method (`credentials`, `oauth`, `email`, `webauthn`, …). */
  success: Record<string, number>
  /** Failed sign-ins by method (`unknown` when the record names none). */
  failure: Record<string, number>
  lockouts: number
  /** Distinct users with a successful sign-in that day. */
  activeUsers: number
}

export interface SignInStats {
  /** `false` without a stored audit trail. */
  supported: boolean
  /** Oldest first, one per day of the range (days without events count zero). */
  days: DayCounts[]
  /** Every method seen, sorted. */
  methods: string[]
  truncated: boolean
  /**
   * Sessions that have not expired now, of every user; `null` when the session store cannot
   * count them (an adapter without `countSessions`, a registry without `count`).
   */
  activeSessions?: number | null
}

const TYPES: AuditEventType[] = ["signIn", "signInFailed", "lockout"]

/** The last `days` days (today included) of sign-in events. */
export async function signInStats(admin: ExtensionAdmin, days: number, now: number): Promise<SignInStats> {
  const today = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate())
  const since = new Date(today - (days - 1) * 86_400_000)
  const byDay = new Map<string, DayCounts>()
  for (let i = 0; i < days; i++) {
    const day = new Date(since.getTime() + i * 86_400_000).toISOString().slice(0, 10)
    byDay.set(day, { day, success: {}, failure: {}, lockouts: 0, activeUsers: 0 })
  }
  // Per day, the users already counted active (ids only; at most MAX_RECORDS of them).
  const usersByDay = new Map<string, Set<string>>()
  const methods = new Set<string>()
  let read = 0
  let cursor: string | undefined
  let truncated = false
  do {
    const page = await admin.auditTrail({ type: TYPES, since, limit: 100, ...(cursor && { cursor }) })
    for (const record of page.records) {
      const counts = byDay.get(record.time.slice(0, 10))
      if (!counts) continue
      if (record.type === "lockout") {
        counts.lockouts++
        continue
      }
      const method = record.method ?? "unknown"
      methods.add(method)
      const bucket = record.type === "signIn" ? counts.success : counts.failure
      bucket[method] = (bucket[method] ?? 0) + 1
      if (record.type === "signIn" && record.userId) {
        let users = usersByDay.get(counts.day)
        if (!users) usersByDay.set(counts.day, (users = new Set()))
        if (!users.has(record.userId)) {
          users.add(record.userId)
          counts.activeUsers++
        }
      }
    }
    read += page.records.length
    cursor = page.next ?? undefined
    if (cursor && read >= MAX_RECORDS) {
      truncated = true
      break
    }
  } while (cursor)
  const activeSessions = await admin.countSessions()
  return { supported: true, days: [...byDay.values()], methods: [...methods].sort(), truncated, activeSessions }
}
