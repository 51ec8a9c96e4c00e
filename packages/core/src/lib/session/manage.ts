import type { AdapterSession } from "../../adapters.js"
import { NotSignedIn, SessionManagementUnsupported } from "../../errors.js"
import type { Cookie, SessionInfo, SessionRecord } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { clearChunked, expireCookie, readChunked } from "../cookies.js"
import { sha256Hex } from "../crypto.js"
import { store } from "../config/stores.js"
import { lookup, pastAbsoluteLifetime, storageKey } from "./database.js"
import { openToken, stillValid } from "./jwt.js"
import { isSessionId, sessionIdOf } from "./registry.js"
import { sessionsRevoked } from "../audit/index.js"

/**
 * Session management: the signed-in user's sessions, listed and revoked. Every operation
 * starts from the request's own session — nothing here takes a user id — so a user can
 * only ever see and end their own sessions: an id of someone else's session is simply not
 * among those searched.
 */
export type SessionOperation = { op: "list" } | { op: "revoke"; id: string } | { op: "revokeOthers" } | { op: "signOutEverywhere" }

/** What an operation answers: the sessions (`list`), how many it revoked, and cookies to set. */
export interface SessionOperationResult {
  sessions?: SessionInfo[]
  revoked: number
  cookies: Cookie[]
}

export async function manageSessions(ctx: RequestContext, operation: SessionOperation): Promise<SessionOperationResult> {
  return ctx.config.session.strategy === "database" ? manageDatabase(ctx, operation) : manageJwt(ctx, operation)
}

// ---------------------------------------------------------------------------------------
// JWT sessions, through `session.registry`.

async function manageJwt(ctx: RequestContext, operation: SessionOperation): Promise<SessionOperationResult> {
  const { config } = ctx
  const registry = config.sessionRegistry
  if (!registry) throw new SessionManagementUnsupported("JWT sessions can be listed and revoked only with a session registry: set session.registry (docs/sessions.md)")
  const raw = readChunked(ctx.cookies, ctx.cookieOptions.sessionToken.name)
  // A token that cannot be opened is no session: NotSignedIn below.
  const opened = raw ? await openToken(ctx, raw).catch(() => undefined) : null
  const payload = opened?.payload
  const currentId = payload && sessionIdOf(payload)
  const userId = payload?.sub
  if (!payload || !currentId || typeof userId !== "string" || !(await stillValid(ctx, payload))) throw new NotSignedIn("No valid session in this request")
  const now = Date.now()
  switch (operation.op) {
    case "list": {
      const records = await registry.store.list(userId)
      const sessions = records.filter((r) => r.userId === userId && r.expires.getTime() > now).map((r) => recordInfo(r, currentId))
      return { sessions: sortNewestFirst(sessions), revoked: 0, cookies: [] }
    }
    case "revoke": {
      if (!isSessionId(operation.id)) return { revoked: 0, cookies: [] }
      const revoked = await registry.store.remove(userId, [operation.id])
      registry.forget(userId, [operation.id])
      if (revoked) await sessionsRevoked(ctx, { userId, sessionIds: [operation.id], scope: "one", strategy: "jwt" })
      return { revoked, cookies: operation.id === currentId ? clearJwt(ctx) : [] }
    }
    case "revokeOthers": {
      const ids = (await registry.store.list(userId)).map((r) => r.id).filter((id) => id !== currentId)
      // No store call for nothing to remove.
      const revoked = ids.length ? await registry.store.remove(userId, ids) : 0
      registry.forget(userId, ids)
      if (ids.length) await sessionsRevoked(ctx, { userId, sessionIds: ids, scope: "others", strategy: "jwt" })
      return { revoked, cookies: [] }
    }
    case "signOutEverywhere": {
      // Listed first only to forget their confirmations here; removeAll takes those
      // created meanwhile too.
      const ids = (await registry.store.list(userId)).map((r) => r.id)
      const revoked = await registry.store.removeAll(userId)
      registry.forget(userId, [...ids, currentId])
      await sessionsRevoked(ctx, { userId, sessionIds: ids, scope: "everywhere", strategy: "jwt" })
      return { revoked, cookies: clearJwt(ctx) }
    }
  }
}

function recordInfo(r: SessionRecord, currentId: string): SessionInfo {
  return {
    id: r.id,
    current: r.id === currentId,
    createdAt: r.createdAt,
    lastSeenAt: r.lastSeenAt,
    expires: r.expires,
    userAgent: r.userAgent ?? null,
    ipAddress: r.ipAddress ?? null,
  }
}

function clearJwt(ctx: RequestContext): Cookie[] {
  const { name, options } = ctx.cookieOptions.sessionToken
  return clearChunked(ctx.cookies, name, options)
}

// ---------------------------------------------------------------------------------------
// Database sessions, through the adapter's `listSessions`.

async function manageDatabase(ctx: RequestContext, operation: SessionOperation): Promise<SessionOperationResult> {
  const { config } = ctx
  const adapter = store(config.stores, "database")
  const { listSessions } = adapter
  if (!listSessions) {
    throw new SessionManagementUnsupported("The adapter has no listSessions, which listing and revoking database sessions needs (an Auth.js adapter does not have it; see docs/adapters.md)")
  }
  const { name, options } = ctx.cookieOptions.sessionToken
  const token = ctx.cookies[name]
  const now = Date.now()
  const currentKey = token ? await storageKey(ctx.config, token) : undefined
  const found = currentKey ? await lookup(config, adapter, currentKey) : null
  if (!found || found.session.expires.getTime() <= now || pastAbsoluteLifetime(ctx, found.session, now)) throw new NotSignedIn("No valid session in this request")
  const userId = found.user.id
  // Only this user's live rows, each with its public id; never the stored token.
  const rows = (await listSessions(userId)).filter((s) => s.userId === userId && s.expires.getTime() > now && !pastAbsoluteLifetime(ctx, s, now))
  const withIds = await Promise.all(rows.map(async (row) => ({ row, id: await publicId(row.sessionToken) })))
  const isCurrent = (row: AdapterSession) => row.sessionToken === currentKey
  const remove = async (targets: typeof withIds) => {
    const results = await Promise.all(targets.map(({ row }) => adapter.deleteSession(row.sessionToken)))
    // An adapter that answers nothing from deleteSession (allowed) counts as having deleted.
    return results.filter((r) => r !== null).length
  }
  const clear = [expireCookie(name, options)]
  switch (operation.op) {
    case "list": {
      const sessions = withIds.map(({ row, id }) => rowInfo(row, id, isCurrent(row)))
      return { sessions: sortNewestFirst(sessions), revoked: 0, cookies: [] }
    }
    case "revoke": {
      const target = isSessionId(operation.id) ? withIds.filter(({ id }) => id === operation.id) : []
      const revoked = await remove(target)
      if (revoked) await sessionsRevoked(ctx, { userId, sessionIds: [operation.id], scope: "one", strategy: "database" })
      return { revoked, cookies: target.some(({ row }) => isCurrent(row)) ? clear : [] }
    }
    case "revokeOthers": {
      const targets = withIds.filter(({ row }) => !isCurrent(row))
      const revoked = await remove(targets)
      if (targets.length) await sessionsRevoked(ctx, { userId, sessionIds: targets.map((t) => t.id), scope: "others", strategy: "database" })
      return { revoked, cookies: [] }
    }
    case "signOutEverywhere": {
      const revoked = await remove(withIds)
      await sessionsRevoked(ctx, { userId, sessionIds: withIds.map((t) => t.id), scope: "everywhere", strategy: "database" })
      return { revoked, cookies: clear }
    }
  }
}

/**
 * The id a database session is listed under: a hash of its stored key, domain-separated so
 * it is neither the cookie's token nor what `hashTokens` stores. Derived, so no column.
 */
export async function publicId(storedKey: string): Promise<string> {
  return (await sha256Hex(`portcullis-session-id\u0000${storedKey}`)).slice(0, 32)
}

function rowInfo(row: AdapterSession, id: string, current: boolean): SessionInfo {
  return {
    id,
    current,
    createdAt: row.createdAt ?? null,
    lastSeenAt: row.lastSeenAt ?? null,
    expires: row.expires,
    userAgent: row.userAgent ?? null,
    ipAddress: row.ipAddress ?? null,
  }
}

/** The current session first, then the most recently created. */
function sortNewestFirst(sessions: SessionInfo[]): SessionInfo[] {
  return sessions.sort((a, b) => Number(b.current) - Number(a.current) || (b.createdAt?.getTime() ?? 0) - (a.createdAt?.getTime() ?? 0))
}
