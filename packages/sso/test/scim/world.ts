/**
 * A SCIM test world built on real parts: core's memory adapter for users, the SSO memory
 * store for SCIM records, tokens and SSO sessions, and a small in-test membership map
 * (OrganizationStore has no `addMember` yet). `call` goes through `handleScimRequest`, the
 * way an integrator's route does.
 */
import { randomUUID } from "node:crypto"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { handleScimRequest, hashScimToken, newScimToken, type ScimDirectory, type ScimRequest } from "../../src/scim/index.js"
import { memorySsoStore } from "../../src/memory.js"
import type { SsoStore } from "../../src/store/types.js"

export const BASE = "https://app.example/auth/sso/scim"

/** Each test organization has one connection, `conn-<organization>`, whose tokens these are. */
export const connectionOf = (organizationId: string) => `conn-${organizationId}`

export interface World {
  store: SsoStore
  adapter: ReturnType<typeof MemoryAdapter>
  /** `<organization>\n<user>` → role. */
  members: Map<string, string>
  audits: Array<{ organizationId: string; type: string; details: Record<string, string | number | boolean> }>
  errors: unknown[]
  /** Verified domains by organization. */
  domains: Record<string, string[]>
  directory(organizationId: string): ScimDirectory
  token(organizationId: string): Promise<{ token: string; id: string }>
  call(token: string, organizationId: string, method: ScimRequest["method"], path: string, body?: unknown, extra?: { ifMatch?: string; authorization?: string | null }): Promise<{ status: number; body: any; headers: Record<string, string> }>
  /** Makes the next calls of the named directory methods fail (the app or its store down). */
  failing: Set<string>
  signIn(userId: string, organizationId: string): Promise<string>
}

export function world(options: { store?: SsoStore } = {}): World {
  const store = options.store ?? memorySsoStore()
  const adapter = MemoryAdapter()
  const members = new Map<string, string>()
  const audits: World["audits"] = []
  const errors: unknown[] = []
  const failing = new Set<string>()
  const domains: Record<string, string[]> = { "org-a": ["acme.com"], "org-b": ["globex.com"] }
  const organizations = () => Object.keys(domains)
  const guard = (name: string) => {
    if (failing.has(name)) throw new Error(`${name}: connection refused`)
  }

  function directory(organizationId: string): ScimDirectory {
    const key = (userId: string) => `${organizationId}\n${userId}`
    return {
      organizationId,
      store,
      async findUserByEmail(email) {
        guard("findUserByEmail")
        const user = await adapter.getUserByEmail!(email)
        return user ? { id: user.id, email: user.email } : null
      },
      async createUser({ email, name }) {
        guard("createUser")
        return adapter.createUser!({ id: randomUUID(), email, name, emailVerified: new Date() })
      },
      async emailAllowed(email) {
        guard("emailAllowed")
        const domain = email.split("@").pop()!.toLowerCase()
        return (domains[organizationId] ?? []).includes(domain)
      },
      async addMember(userId, role) {
        guard("addMember")
        if (!members.has(key(userId))) members.set(key(userId), role)
      },
      async setRole(userId, role) {
        guard("setRole")
        if (members.has(key(userId))) members.set(key(userId), role)
      },
      async removeMember(userId) {
        guard("removeMember")
        members.delete(key(userId))
      },
      async endSessions(userId) {
        guard("endSessions")
        await store.endSessions(userId, organizationId)
        // A user who is a member of no other organization loses every session.
        const elsewhere = organizations().some((o) => o !== organizationId && members.has(`${o}\n${userId}`))
        if (!elsewhere) for (const o of organizations()) await store.endSessions(userId, o)
      },
      roleFor(groups) {
        return groups.includes("Portcullis Admins") ? "admin" : "member"
      },
      async audit(type, details) {
        audits.push({ organizationId, type, details })
      },
      reportError(error) {
        errors.push(error)
      },
    }
  }

  const api: World = {
    store,
    adapter,
    members,
    audits,
    errors,
    domains,
    failing,
    directory,
    async token(organizationId) {
      const token = newScimToken()
      const id = randomUUID()
      await store.addScimToken({ id, connectionId: connectionOf(organizationId), organizationId, hash: hashScimToken(token), createdAt: new Date(), lastUsedAt: null })
      return { token, id }
    },
    async call(token, organizationId, method, path, body, extra = {}) {
      const url = new URL(`${BASE}/${connectionOf(organizationId)}/v2${path}`)
      const query: Record<string, string> = {}
      for (const [k, v] of url.searchParams) query[k] = v
      const segments = url.pathname.split("/").slice(6).map(decodeURIComponent)
      const res = await handleScimRequest(
        { store, directoryFor: (t) => api.directory(t.organizationId), reportError: (e) => errors.push(e) },
        {
          authorization: "authorization" in extra ? extra.authorization : `Bearer ${token}`,
          connectionId: connectionOf(organizationId),
          method,
          path: segments,
          query,
          // The body travels as JSON, as it would over HTTP.
          body: body === undefined ? undefined : JSON.parse(JSON.stringify(body)),
          baseUrl: `${BASE}/${connectionOf(organizationId)}/v2`,
          ...(extra.ifMatch !== undefined ? { ifMatch: extra.ifMatch } : {}),
        },
      )
      return { status: res.status, body: res.body as any, headers: res.headers ?? {} }
    },
    async signIn(userId, organizationId) {
      const key = randomUUID()
      await store.recordSession(key, userId, organizationId, new Date(Date.now() + 3_600_000))
      return key
    },
  }
  return api
}

/** The SCIM PatchOp schema every PATCH body names. */
export const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"
