import type { RequestContext } from "../context.js"
import { store } from "../config/stores.js"
import { sessionsRevoked } from "../audit/index.js"
import { manageSessions, publicId } from "../session/manage.js"

/**
 * Ends every session of `userId` — what a password reset does, since whoever held the old
 * password may hold a session too. Database sessions: each row from `listSessions`. JWT
 * sessions: the registry's `removeAll` (without `session.registry` a JWT cannot be revoked
 * before it expires; docs/passwords.md). Returns how many were ended.
 */
export async function revokeAllSessions(ctx: Pick<RequestContext, "config">, userId: string): Promise<number> {
  const { config } = ctx
  if (config.session.strategy === "database") {
    // The database store, whose type says deleteSession is there (database sessions need it).
    const adapter = store(config.stores, "database")
    if (!adapter.listSessions) return 0
    const rows = (await adapter.listSessions(userId)).filter((s) => s.userId === userId)
    await Promise.all(rows.map((row) => adapter.deleteSession(row.sessionToken)))
    // The ids session management lists these sessions under, as its own revocations report.
    const sessionIds = await Promise.all(rows.map((row) => publicId(row.sessionToken)))
    if (rows.length) await sessionsRevoked(ctx, { userId, sessionIds, scope: "everywhere", strategy: "database" })
    return rows.length
  }
  const registry = config.sessionRegistry
  if (!registry) return 0
  const ids = (await registry.store.list(userId)).map((r) => r.id)
  const revoked = await registry.store.removeAll(userId)
  registry.forget(userId, ids)
  await sessionsRevoked(ctx, { userId, sessionIds: ids, scope: "everywhere", strategy: "jwt" })
  return revoked
}

/** Ends the signed-in user's other sessions — what a password change does. */
export async function revokeOtherSessions(ctx: RequestContext): Promise<number> {
  return (await manageSessions(ctx, { op: "revokeOthers" })).revoked
}
