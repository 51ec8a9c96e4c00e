/**
 * SSO state kept in process memory: for tests, demos and single-process prototypes. Every
 * method does its work in one synchronous step, so on one event loop no other call can see
 * or cause a half-done change — which is what makes `useOnce` and `take` single-use here.
 * Several instances need a shared store (`@portcullis/sso/sql`, `@portcullis/sso/redis`).
 * @module
 */
import type { Connection, Domain, ScimGroup, ScimToken, ScimUser, SsoStore } from "./types.js"

/** Copies keep callers from changing what the next caller reads; `structuredClone` keeps `Date`s. */
const copy = <T>(value: T): T => structuredClone(value)

const byCreatedThenId = <T extends { createdAt: Date; id: string }>(a: T, b: T) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * Creates an empty in-memory SSO store; each call has its own maps.
 *
 * @example
 * ```ts
 * import { memorySsoStore } from "@portcullis/sso/memory"
 *
 * const store = memorySsoStore()
 * ```
 */
export function memorySsoStore(options: { now?: () => number } = {}): SsoStore {
  const now = options.now ?? Date.now
  const connections = new Map<string, Connection>()
  /** `<domain>\n<organization id>` → the claim. */
  const domains = new Map<string, Domain>()
  const tokens = new Map<string, ScimToken>()
  /** `<organization id>\n<id>` → the resource. */
  const users = new Map<string, ScimUser>()
  const groups = new Map<string, ScimGroup>()
  /** `<namespace>\n<id>` → when it may be forgotten, and the value kept (for `put`/`take`). */
  const once = new Map<string, { expires: number; value?: string }>()
  const sessions = new Map<string, { userId: string; organizationId: string; expires: number; ended: boolean }>()

  const domainKey = (domain: string, organizationId: string) => `${domain}\n${organizationId}`
  const verifiedClaim = (domain: string) => [...domains.values()].find((d) => d.domain === domain && d.verifiedAt !== null) ?? null

  /** Forgets what expired; called on writes, so the maps stay bounded by what is live. */
  function sweep(): void {
    const t = now()
    for (const [key, entry] of once) if (entry.expires <= t) once.delete(key)
    for (const [key, entry] of sessions) if (entry.expires <= t) sessions.delete(key)
  }

  function replace<T extends { organizationId: string; id: string; version: number }>(map: Map<string, T>, next: T, expectedVersion: number | undefined): T | "conflict" | null {
    const key = `${next.organizationId}\n${next.id}`
    const current = map.get(key)
    if (!current) return null
    if (expectedVersion !== undefined && current.version !== expectedVersion) return "conflict"
    const stored = copy({ ...next, version: current.version + 1 })
    map.set(key, stored)
    return copy(stored)
  }

  return {
    async createConnection(connection) {
      connections.set(connection.id, copy(connection))
    },
    async getConnection(id) {
      const found = connections.get(id)
      return found ? copy(found) : null
    },
    async listConnections(organizationId) {
      return [...connections.values()].filter((c) => c.organizationId === organizationId).sort(byCreatedThenId).map(copy)
    },
    async updateConnection(connection) {
      const current = connections.get(connection.id)
      if (!current || current.organizationId !== connection.organizationId) return false
      connections.set(connection.id, copy(connection))
      return true
    },
    async deleteConnection(id) {
      connections.delete(id)
      for (const [key, token] of tokens) if (token.connectionId === id) tokens.delete(key)
      for (const domain of domains.values()) if (domain.connectionId === id) domain.connectionId = null
    },

    async claimDomain(domain) {
      const verified = verifiedClaim(domain.domain)
      if (verified && verified.organizationId !== domain.organizationId) return "taken"
      const key = domainKey(domain.domain, domain.organizationId)
      if (!domains.has(key)) domains.set(key, copy(domain))
      return "claimed"
    },
    async getDomain(domain, organizationId) {
      const found = organizationId === undefined ? verifiedClaim(domain) : (domains.get(domainKey(domain, organizationId)) ?? null)
      return found ? copy(found) : null
    },
    async listDomains(organizationId) {
      return [...domains.values()].filter((d) => d.organizationId === organizationId).sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0)).map(copy)
    },
    async verifyDomain(domain, organizationId, at) {
      const claim = domains.get(domainKey(domain, organizationId))
      if (!claim) return "missing"
      const verified = verifiedClaim(domain)
      if (verified && verified.organizationId !== organizationId) return "taken"
      claim.verifiedAt ??= new Date(at)
      return "verified"
    },
    async updateDomain(domain, organizationId, patch) {
      const claim = domains.get(domainKey(domain, organizationId))
      if (!claim) return false
      if (patch.requireSso !== undefined) claim.requireSso = patch.requireSso
      if (patch.connectionId !== undefined) claim.connectionId = patch.connectionId
      return true
    },
    async removeDomain(domain, organizationId) {
      domains.delete(domainKey(domain, organizationId))
    },

    async addScimToken(token) {
      tokens.set(token.id, copy(token))
    },
    async findScimToken(hash) {
      const found = [...tokens.values()].find((t) => t.hash === hash)
      return found ? copy(found) : null
    },
    async listScimTokens(connectionId) {
      return [...tokens.values()].filter((t) => t.connectionId === connectionId).sort(byCreatedThenId).map(copy)
    },
    async revokeScimToken(id) {
      tokens.delete(id)
    },
    async touchScimToken(id, at) {
      const token = tokens.get(id)
      if (token) token.lastUsedAt = new Date(at)
    },

    async createScimUser(user) {
      const key = `${user.organizationId}\n${user.id}`
      const sameName = [...users.values()].some((u) => u.organizationId === user.organizationId && u.userName.toLowerCase() === user.userName.toLowerCase())
      if (users.has(key) || sameName) return false
      users.set(key, copy(user))
      return true
    },
    async getScimUser(organizationId, id) {
      const found = users.get(`${organizationId}\n${id}`)
      return found ? copy(found) : null
    },
    async findScimUser(organizationId, by) {
      const found = [...users.values()].find(
        (u) =>
          u.organizationId === organizationId &&
          (by.userName === undefined || u.userName.toLowerCase() === by.userName.toLowerCase()) &&
          (by.externalId === undefined || u.externalId === by.externalId),
      )
      return found ? copy(found) : null
    },
    async listScimUsers(organizationId) {
      return [...users.values()].filter((u) => u.organizationId === organizationId).sort(byCreatedThenId).map(copy)
    },
    async updateScimUser(user, expectedVersion) {
      const sameName = [...users.values()].some((u) => u.organizationId === user.organizationId && u.id !== user.id && u.userName.toLowerCase() === user.userName.toLowerCase())
      if (sameName) return "conflict"
      return replace(users, user, expectedVersion)
    },
    async deleteScimUser(organizationId, id) {
      const removed = users.delete(`${organizationId}\n${id}`)
      // A deleted user leaves the organization's groups too.
      for (const group of groups.values()) {
        if (group.organizationId === organizationId && group.members.includes(id)) {
          group.members = group.members.filter((m) => m !== id)
          group.version += 1
        }
      }
      return removed
    },
    async createScimGroup(group) {
      const key = `${group.organizationId}\n${group.id}`
      const sameName = [...groups.values()].some((g) => g.organizationId === group.organizationId && g.displayName === group.displayName)
      if (groups.has(key) || sameName) return false
      groups.set(key, copy(group))
      return true
    },
    async getScimGroup(organizationId, id) {
      const found = groups.get(`${organizationId}\n${id}`)
      return found ? copy(found) : null
    },
    async listScimGroups(organizationId) {
      return [...groups.values()].filter((g) => g.organizationId === organizationId).sort(byCreatedThenId).map(copy)
    },
    async updateScimGroup(group, expectedVersion) {
      return replace(groups, group, expectedVersion)
    },
    async deleteScimGroup(organizationId, id) {
      return groups.delete(`${organizationId}\n${id}`)
    },

    async useOnce(namespace, id, expires) {
      sweep()
      const key = `${namespace}\n${id}`
      if (once.has(key)) return false
      once.set(key, { expires: expires.getTime() })
      return true
    },
    async put(namespace, id, value, expires) {
      sweep()
      once.set(`${namespace}\n${id}`, { expires: expires.getTime(), value })
    },
    async take(namespace, id) {
      const key = `${namespace}\n${id}`
      const entry = once.get(key)
      once.delete(key)
      return entry && entry.expires > now() && entry.value !== undefined ? entry.value : null
    },

    async recordSession(key, userId, organizationId, expires) {
      sweep()
      sessions.set(key, { userId, organizationId, expires: expires.getTime(), ended: false })
    },
    async endSessions(userId, organizationId) {
      let ended = 0
      for (const entry of sessions.values()) {
        if (entry.userId === userId && entry.organizationId === organizationId && !entry.ended && entry.expires > now()) {
          entry.ended = true
          ended += 1
        }
      }
      return ended
    },
    async sessionEnded(key) {
      const entry = sessions.get(key)
      return !!entry && entry.ended && entry.expires > now()
    },
  }
}
