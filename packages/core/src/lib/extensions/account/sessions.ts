/**
 * Sessions, through core's session management (`lib/session/manage.ts`), which starts from
 * the request's own session: another user's session id is not among those searched.
 * @module
 */
import type { SessionInfo } from "../../../base-types.js"
import type { RequestContext } from "../../context.js"
import { manageSessions } from "../../session/manage.js"
import type { AccountSession } from "../account-api.js"

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)

function shown(s: SessionInfo): AccountSession {
  return { id: s.id, current: s.current, createdAt: iso(s.createdAt), lastSeenAt: iso(s.lastSeenAt), expires: new Date(s.expires).toISOString(), userAgent: s.userAgent, ipAddress: s.ipAddress }
}

export async function list(ctx: RequestContext): Promise<AccountSession[]> {
  return ((await manageSessions(ctx, { op: "list" })).sessions ?? []).map(shown)
}

export async function revoke(ctx: RequestContext, id: string): Promise<boolean> {
  if (typeof id !== "string" || id.length > 256) return false
  // The current session is ended by signing out (which clears its cookie); an extension's
  // route sets no cookies, so it is not revoked from here.
  const current = ((await manageSessions(ctx, { op: "list" })).sessions ?? []).find((s) => s.current)
  if (current?.id === id) return false
  return (await manageSessions(ctx, { op: "revoke", id })).revoked > 0
}

export async function revokeOthers(ctx: RequestContext): Promise<number> {
  return (await manageSessions(ctx, { op: "revokeOthers" })).revoked
}
