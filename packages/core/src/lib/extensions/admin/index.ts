/**
 * The admin facet's code (`admin-api.ts` types it), loaded with `import()` by `tools.ts` on
 * the first call. Each operation is core's own machinery — `revokeAllSessions`,
 * `resetTwoFactor`, the audit trail query — pointed at the user named; who may name one is
 * the calling extension's decision.
 * @module
 */
import type { AdapterSession, AdapterUser } from "../../../adapters.js"
import { AdapterError, AuditTrailUnsupported, InvalidConfig } from "../../../errors.js"
import { createUser } from "../../login.js"
import type { SessionInfo } from "../../../base-types.js"
import type { RequestContext } from "../../context.js"
import { store } from "../../config/stores.js"
import { revokeAllSessions } from "../../password-flows/revoke.js"
import { publicId } from "../../session/manage.js"
import { pastAbsoluteLifetime } from "../../session/database.js"
import { checkAuditQuery, type AuditPage, type AuditQuery } from "../../audit/query.js"
import { ExtensionRequestError } from "../errors.js"
import type { AdminCapabilities, AdminUser, AdminUserPage, AdminUserQuery, ExtensionAdmin } from "../admin-api.js"

const PAGE_DEFAULT = 25
const PAGE_MAX = 100

/** The facet bound to one request's context. */
export function adminFacet(ctx: RequestContext, extensionId: string): ExtensionAdmin {
  const { config } = ctx
  const adapter = config.adapter
  const capabilities = (): AdminCapabilities => ({ // the same reading as tools.ts answers synchronously
    listUsers: typeof adapter?.listUsers === "function",
    sessions: config.session.strategy === "database" ? typeof adapter?.listSessions === "function" : !!config.sessionRegistry,
    audit: !!config.audit.methods,
    twoFactor: !!config.twoFactor?.store,
  })
  return {
    capabilities,
    async listUsers(query) {
      const checked = checkUserQuery(query)
      if (!adapter?.listUsers) throw new ExtensionRequestError("unsupported", "The adapter cannot list users (it has no listUsers capability)", 409)
      const page = await adapter.listUsers(checked)
      return { users: page.users.map(adminUser), next: page.next } satisfies AdminUserPage
    },
    async getUser(id) {
      if (!isId(id) || !adapter?.getUser) return null
      const user = await adapter.getUser(id)
      return user ? adminUser(user) : null
    },
    async createUser(input) {
      const email = typeof input?.email === "string" ? input.email.trim().toLowerCase() : ""
      if (!/^[^\s@]{1,64}@[^\s@]{1,255}$/.test(email)) throw new ExtensionRequestError("invalid-email", "A valid email address is required", 422)
      const users = store(config.stores, "users")
      if (await users.getUserByEmail(email)) throw new ExtensionRequestError("email-taken", "A user has this address", 409)
      const name = typeof input.name === "string" && input.name.trim() ? input.name.trim().slice(0, 256) : null
      try {
        return adminUser(await createUser(ctx, { email, name, image: null, emailVerified: input.emailVerified === true ? new Date() : null }))
      } catch (error) {
        // The address was taken meanwhile (a concurrent provisioning): the unique index said so.
        if (error instanceof AdapterError && (await Promise.resolve(users.getUserByEmail(email)).catch(() => null))) throw new ExtensionRequestError("email-taken", "A user has this address", 409)
        throw error
      }
    },
    async listSessions(userId) {
      if (!isId(userId)) return []
      return sessionsOf(ctx, userId)
    },
    async revokeSessions(userId) {
      if (!isId(userId)) return 0
      if (!capabilities().sessions) throw new InvalidConfig("Sessions cannot be revoked: database sessions need an adapter with listSessions, JWT sessions a session.registry (docs/sessions.md)")
      return revokeAllSessions(ctx, userId)
    },
    async twoFactorEnabled(userId) {
      const twoFactor = config.twoFactor?.store
      if (!twoFactor || !isId(userId)) return false
      return !!(await twoFactor.getTwoFactor(userId))?.enabled
    },
    async resetTwoFactor(input) {
      const { resetTwoFactor } = await import("../../two-factor/recovery.js")
      return resetTwoFactor(config, input)
    },
    async countSessions() {
      // Only the store the configuration's sessions live in: a JWT configuration's adapter may
      // hold stale rows of no session anyone has.
      if (config.session.strategy === "database") return adapter?.countSessions ? adapter.countSessions() : null
      const registry = config.sessionRegistry?.store
      return registry?.count ? registry.count() : null
    },
    async auditTrail(query: AuditQuery = {}): Promise<AuditPage> {
      const methods = config.audit.methods
      if (!methods) throw new AuditTrailUnsupported("The adapter has no audit capability (createAuditRecord, listAuditRecords, deleteAuditRecordsBefore); see docs/adapters.md")
      checkAuditQuery(query)
      return methods.listAuditRecords(query)
    },
    async impersonate(input) {
      const { impersonate } = await import("./impersonation.js")
      return impersonate(ctx, extensionId, input)
    },
    async endImpersonation() {
      const { endImpersonation } = await import("./impersonation.js")
      return endImpersonation(ctx, extensionId)
    },
    async sendPasswordReset(userId) {
      const user = isId(userId) && adapter?.getUser ? await adapter.getUser(userId) : null
      if (!user) throw new ExtensionRequestError("not-found", "No such user", 404)
      const { sendPasswordReset } = await import("./recovery.js")
      return sendPasswordReset(ctx, user)
    },
    async waysIn(userId) {
      if (!isId(userId)) return { accounts: [], passkeys: null }
      const { waysOf } = await import("./recovery.js")
      return waysOf(ctx, userId)
    },
  }
}

/** Ids are what an adapter stored: bounded, printable, one segment. */
function isId(id: unknown): id is string {
  return typeof id === "string" && id.length > 0 && id.length <= 256 && !/[\u0000-\u001f]/.test(id)
}

/** A client's query, checked: anything malformed is a 400, never a store error. */
function checkUserQuery(query: AdminUserQuery = {}): { search?: string; verified?: boolean; cursor?: string; limit: number } {
  if (typeof query !== "object" || query === null) throw invalid("the query must be an object")
  const { search, verified, cursor, limit } = query
  const out: { search?: string; verified?: boolean; cursor?: string; limit: number } = { limit: PAGE_DEFAULT }
  if (search !== undefined) {
    if (typeof search !== "string" || search.length > 200 || search.includes("\u0000")) throw invalid("search must be a string of at most 200 characters")
    const trimmed = search.trim().toLowerCase()
    if (trimmed) out.search = trimmed
  }
  if (verified !== undefined) {
    if (typeof verified !== "boolean") throw invalid("verified must be true or false")
    out.verified = verified
  }
  if (cursor !== undefined) {
    if (!isId(cursor)) throw invalid("cursor is not one a page answered")
    out.cursor = cursor
  }
  if (limit !== undefined) {
    if (!Number.isInteger(limit) || limit < 1) throw invalid("limit must be a whole number from 1")
    out.limit = Math.min(limit, PAGE_MAX)
  }
  return out
}

function invalid(message: string): ExtensionRequestError {
  return new ExtensionRequestError("invalid-query", message, 400)
}

/** What the console may see of a user: no hash, no token, nothing the adapter added. */
function adminUser(user: AdapterUser): AdminUser {
  return {
    id: user.id,
    email: user.email ?? null,
    name: user.name ?? null,
    emailVerified: user.emailVerified ?? null,
    image: user.image ?? null,
  }
}

/** A user's live sessions, listed as session management lists one's own (never a token). */
async function sessionsOf(ctx: RequestContext, userId: string): Promise<SessionInfo[]> {
  const { config } = ctx
  const now = Date.now()
  if (config.session.strategy === "database") {
    const adapter = store(config.stores, "database")
    if (!adapter.listSessions) return []
    const rows = (await adapter.listSessions(userId)).filter((s) => s.userId === userId && s.expires.getTime() > now && !pastAbsoluteLifetime(ctx, s, now))
    return Promise.all(rows.map(async (row: AdapterSession) => ({
      id: await publicId(row.sessionToken),
      current: false,
      createdAt: row.createdAt ?? null,
      lastSeenAt: row.lastSeenAt ?? null,
      expires: row.expires,
      userAgent: row.userAgent ?? null,
      ipAddress: row.ipAddress ?? null,
    })))
  }
  const registry = config.sessionRegistry
  if (!registry) return []
  const records = (await registry.store.list(userId)).filter((r) => r.userId === userId && r.expires.getTime() > now)
  return records.map((r) => ({
    id: r.id,
    current: false,
    createdAt: r.createdAt ?? null,
    lastSeenAt: r.lastSeenAt ?? null,
    expires: r.expires,
    userAgent: r.userAgent ?? null,
    ipAddress: r.ipAddress ?? null,
  }))
}
