/**
 * Every admin action, as server functions (`extensions.admin.*`) and as what the routes call:
 * parse → check (an admin, a known target) → act → answer. Each starts with `requireAdmin`.
 * @module
 */
import { ExtensionRequestError, type AdminUser, type AuditEvent, type ExtensionCall, type ExtensionTools, type SessionInfo } from "@portcullis/core/extension"
import { requireAdmin } from "./access.js"
import type { AdminLocals } from "./locals.js"
import type { Ban } from "./store/types.js"
import { signInStats, type SignInStats } from "./stats.js"
import { finishImpersonation, startImpersonation } from "./impersonation.js"
import type { AdminWaysIn, Cookie } from "@portcullis/core/extension"

/** A user of the list, with their ban in force. */
export interface ListedUser extends AdminUser {
  ban: Ban | null
}

/** What `listUsers` is asked. `banned` filters the page the adapter answered. */
export interface UserListInput {
  search?: string
  verified?: boolean
  banned?: boolean
  cursor?: string
  limit?: number
}

/** A page of the users list; `supported: false` when the adapter cannot list users. */
export interface UserListPage {
  supported: boolean
  users: ListedUser[]
  next: string | null
}

/** Everything the console shows of one user. */
export interface UserDetails {
  user: AdminUser
  ban: Ban | null
  isAdmin: boolean
  twoFactor: boolean
  /** `null` when sessions cannot be listed (no `listSessions`, or JWT without a registry). */
  sessions: SessionInfo[] | null
  /** The user's latest audit events; `null` without a stored audit trail. */
  events: AuditEvent[] | null
  /** The user's organizations; `null` without the `organizationsOf` option. */
  organizations: ReadonlyArray<{ id: string; name: string; role: string }> | null
  /** Linked OAuth/OIDC accounts (provider, account id) and the passkey count. */
  waysIn: AdminWaysIn
  /** Whether this console may impersonate the user (configured; neither an admin nor banned). */
  canImpersonate: boolean
}

/** What `ban` is told: why, and for how long (`duration` seconds, or `expires`; neither: until lifted). */
export interface BanInput {
  reason: string
  duration?: number
  expires?: Date | string
}

/** The server functions of the admin console (`extensions.admin`). */
export interface AdminServer {
  /** Whether the signed-in user is an admin (never throws for a non-admin; `false` signed out). */
  isAdmin(): Promise<boolean>
  listUsers(input?: UserListInput): Promise<UserListPage>
  /** @throws `ExtensionRequestError` `not-found` (404) for an unknown id. */
  user(userId: string): Promise<UserDetails>
  ban(userId: string, input: BanInput): Promise<{ ban: Ban; sessionsRevoked: number | null }>
  unban(userId: string): Promise<{ lifted: boolean }>
  revokeSessions(userId: string): Promise<{ revoked: number }>
  resetTwoFactor(userId: string, reason: string): Promise<{ wasEnabled: boolean; sessionsRevoked: number }>
  stats(input?: { days?: number }): Promise<SignInStats>
  /**
   * Starts impersonating the user (re-authentication required): the request's session becomes
   * theirs until `until` or {@link endImpersonation}; the admin's own is kept sealed. From a
   * server function, send the `cookies` answered on the response (an integration does not):
   * they hold session tokens — never put them in a body or a log (docs/admin.md#impersonation).
   * @throws `ExtensionRequestError` `target-is-admin` (403), `target-banned` (409), `cannot-impersonate-self` (409), `unsupported` (409) when not configured.
   */
  impersonate(userId: string): Promise<{ until: Date; cookies: Cookie[] }>
  /** Ends the request's impersonation and restores the admin's own session when still valid (`restored`); send the `cookies`. */
  endImpersonation(): Promise<{ userId: string | null; restored: boolean; cookies: Cookie[] }>
  /** Mails the user a password reset link (the password provider's). @throws `unsupported`/`no-email` (409). */
  sendPasswordReset(userId: string): Promise<{ expires: Date }>
}

const MAX_BAN_SECONDS = 10 * 365 * 24 * 3600

function notFound(): ExtensionRequestError {
  return new ExtensionRequestError("not-found", "No such user", 404)
}

function bad(code: string, message: string): ExtensionRequestError {
  return new ExtensionRequestError(code, message, 400)
}

/** A reason an admin wrote: kept in the audit trail, so bounded and without NUL. */
export function checkReason(value: unknown): string {
  const reason = typeof value === "string" ? value.trim() : ""
  if (!reason || reason.length > 500 || reason.includes("\u0000")) throw bad("invalid-reason", "A reason of 1 to 500 characters is required")
  return reason
}

/** When a ban lapses, from `duration` (seconds) or `expires`; `null` for none. */
export function banExpiry(input: Pick<BanInput, "duration" | "expires">, now: number): Date | null {
  if (input.duration !== undefined && input.duration !== null) {
    const seconds = typeof input.duration === "string" ? Number(input.duration) : input.duration
    if (!Number.isInteger(seconds) || seconds < 60 || seconds > MAX_BAN_SECONDS) throw bad("invalid-duration", "duration must be whole seconds from 60 to ten years")
    return new Date(now + seconds * 1000)
  }
  if (input.expires !== undefined && input.expires !== null && input.expires !== "") {
    const at = input.expires instanceof Date ? input.expires : typeof input.expires === "string" ? new Date(input.expires) : new Date(Number.NaN)
    if (Number.isNaN(at.getTime()) || at.getTime() <= now || at.getTime() > now + MAX_BAN_SECONDS * 1000) throw bad("invalid-expires", "expires must be a date in the next ten years")
    return at
  }
  return null
}

/** The operations bound to one call (a route's request, or a server function's call). */
export function adminOperations(call: ExtensionTools, locals: AdminLocals): AdminServer {
  const { admin } = call
  /** The target user, or 404 — the same answer for an id that is malformed, unknown or never was. */
  const target = async (userId: unknown) => {
    if (typeof userId !== "string") throw notFound()
    const user = await admin.getUser(userId)
    if (!user) throw notFound()
    return user
  }
  const isAdminId = async (userId: string) => {
    const record = await locals.getUser(userId)
    return !!record && (await locals.isAdmin(record))
  }
  // Admins are peers: none ends another's sessions, resets their second factor, bans or
  // impersonates them — so one stolen, stepped-up admin session cannot disarm the others.
  // Acting on oneself stays possible where it makes sense (one's own sessions).
  const refusePeer = async (userId: string, callerId: string, message: string) => {
    if (userId !== callerId && (await isAdminId(userId))) throw new ExtensionRequestError("target-is-admin", message, 403)
  }
  return {
    async isAdmin() {
      const session = await call.session()
      return !!session && (await isAdminId(session.userId))
    },

    async listUsers(input = {}) {
      await requireAdmin(call, locals)
      if (!admin.capabilities().listUsers) return { supported: false, users: [], next: null }
      const { banned, ...query } = input ?? {}
      if (banned !== undefined && typeof banned !== "boolean") throw bad("invalid-query", "banned must be true or false")
      const page = await admin.listUsers(query)
      const bans = await locals.store.many(page.users.map((u) => u.id))
      const users = page.users.map((u) => ({ ...u, ban: bans.get(u.id) ?? null })).filter((u) => banned === undefined || (u.ban !== null) === banned)
      return { supported: true, users, next: page.next }
    },

    async user(userId) {
      await requireAdmin(call, locals)
      const user = await target(userId)
      const capabilities = admin.capabilities()
      const [ban, isAdmin, twoFactor, sessions, events, organizations, waysIn] = await Promise.all([
        locals.store.get(user.id),
        isAdminId(user.id),
        admin.twoFactorEnabled(user.id),
        capabilities.sessions ? admin.listSessions(user.id) : Promise.resolve(null),
        capabilities.audit ? admin.auditTrail({ userId: user.id, limit: 20 }).then((p) => p.records) : Promise.resolve(null),
        locals.organizationsOf ? locals.organizationsOf(user.id) : Promise.resolve(null),
        admin.waysIn(user.id),
      ])
      const canImpersonate = !!locals.impersonation && !isAdmin && !ban
      return { user, ban, isAdmin, twoFactor, sessions, events, organizations, waysIn, canImpersonate }
    },

    async ban(userId, input) {
      const caller = await requireAdmin(call, locals, { stepUp: true })
      const reason = checkReason(input?.reason)
      const expires = banExpiry(input ?? {}, Date.now())
      const user = await target(userId)
      if (user.id === caller.user.id) throw new ExtensionRequestError("cannot-ban-self", "You cannot ban yourself", 409)
      if (await isAdminId(user.id)) throw new ExtensionRequestError("target-is-admin", "Another administrator cannot be banned here; remove their admin role first", 403)
      const ban: Ban = { userId: user.id, reason, bannedBy: caller.user.id, bannedAt: new Date(), expires }
      // The ban first, the sessions second: from the moment it is stored every sign-in is
      // refused (the gate asks again after making a session), so ending the sessions next
      // leaves none. A failure of the revocation leaves the ban in force; repeating it ends them.
      await locals.store.ban(ban)
      const details = { expires: expires?.toISOString() ?? null }
      let sessionsRevoked: number | null = null
      if (admin.capabilities().sessions) {
        try {
          sessionsRevoked = await admin.revokeSessions(user.id)
        } catch (error) {
          await call.audit({ type: "userBanned", outcome: "failure", userId: user.id, actor: caller.user.id, reason, details: { ...details, sessionsRevoked: false } })
          throw error
        }
      }
      await call.audit({ type: "userBanned", outcome: "success", userId: user.id, actor: caller.user.id, reason, details: { ...details, sessionsRevoked } })
      return { ban, sessionsRevoked }
    },

    async unban(userId) {
      // A recent re-authentication, as for the ban: a stolen admin cookie alone lifts no ban.
      const caller = await requireAdmin(call, locals, { stepUp: true })
      const user = await target(userId)
      const lifted = await locals.store.unban(user.id)
      if (lifted) await call.audit({ type: "userUnbanned", outcome: "success", userId: user.id, actor: caller.user.id })
      return { lifted }
    },

    async revokeSessions(userId) {
      const caller = await requireAdmin(call, locals, { stepUp: true })
      const user = await target(userId)
      await refusePeer(user.id, caller.user.id, "Another administrator's sessions are theirs to end")
      if (!admin.capabilities().sessions) throw new ExtensionRequestError("unsupported", "Sessions cannot be revoked with this configuration (database sessions need listSessions, JWT sessions a session.registry)", 409)
      const revoked = await admin.revokeSessions(user.id)
      await call.audit({ type: "sessionsRevoked", outcome: "success", userId: user.id, actor: caller.user.id, details: { revoked } })
      return { revoked }
    },

    async resetTwoFactor(userId, reason) {
      const caller = await requireAdmin(call, locals, { stepUp: true })
      const why = checkReason(reason)
      const user = await target(userId)
      await refusePeer(user.id, caller.user.id, "Another administrator's second factor is theirs to reset")
      if (!admin.capabilities().twoFactor) throw new ExtensionRequestError("unsupported", "Two-factor authentication is not configured", 409)
      if (!(await admin.twoFactorEnabled(user.id))) throw new ExtensionRequestError("two-factor-off", "This user has no two-factor authentication to reset", 409)
      return admin.resetTwoFactor({ userId: user.id, reason: why, actor: caller.user.id })
    },

    async impersonate(userId) {
      const caller = await requireAdmin(call, locals, { stepUp: true })
      const user = await target(userId)
      if (user.id === caller.user.id) throw new ExtensionRequestError("cannot-impersonate-self", "You cannot impersonate yourself", 409)
      // Never another admin: their rights would be the impersonator's, unaudited.
      if (await isAdminId(user.id)) throw new ExtensionRequestError("target-is-admin", "Another administrator cannot be impersonated", 403)
      if (await locals.store.get(user.id)) throw new ExtensionRequestError("target-banned", "A banned user cannot be impersonated", 409)
      return startImpersonation(call, locals, caller, user)
    },

    async endImpersonation() {
      return finishImpersonation(call, locals)
    },

    async sendPasswordReset(userId) {
      const caller = await requireAdmin(call, locals, { stepUp: true })
      const user = await target(userId)
      if (await isAdminId(user.id)) throw new ExtensionRequestError("target-is-admin", "Another administrator's recovery is theirs to start", 403)
      try {
        const sent = await admin.sendPasswordReset(user.id)
        await call.audit({ type: "passwordResetSent", outcome: "success", userId: user.id, actor: caller.user.id })
        return sent
      } catch (error) {
        await call.audit({ type: "passwordResetSent", outcome: "failure", userId: user.id, actor: caller.user.id })
        throw error
      }
    },

    async stats(input = {}) {
      await requireAdmin(call, locals)
      const days = input?.days ?? 14
      if (!Number.isInteger(days) || days < 1 || days > 90) throw bad("invalid-days", "days must be a whole number from 1 to 90")
      if (!admin.capabilities().audit) return { supported: false, days: [], methods: [], truncated: false }
      return signInStats(admin, days, Date.now())
    },
  }
}

/** The server functions (`server` of the extension). */
export function adminServer(call: ExtensionCall<AdminLocals>): AdminServer {
  return adminOperations(call, call.locals)
}
