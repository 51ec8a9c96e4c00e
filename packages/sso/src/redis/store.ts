/**
 * The SSO store on Redis (standalone or Cluster) through ioredis.
 *
 * Single use is Redis's own: `useOnce` is SET NX with the record's TTL, `take` is GETDEL.
 * Every other rule is one Lua script on one hash tag (see `keys.ts`): a domain's verified
 * mark is checked and set beside its claims, a SCIM userName index is checked and moved
 * beside its user, versions are compared and bumped in the step that writes. Index keys in
 * other slots are added to before what they point at exists and checked on every read.
 * @module
 */
import type { Cluster, Redis } from "ioredis"
import type { Connection, Domain, ScimGroup, ScimToken, ScimUser, SsoStore } from "../store/types.js"
import { ssoRedisKeys } from "./keys.js"
import {
  CLAIM_DOMAIN, CREATE_RESOURCE, DELETE_RESOURCE, END_SESSION, EXTEND_TTL, REMOVE_DOMAIN, run, TOUCH_TOKEN,
  UNLINK_DOMAIN, UPDATE_CONNECTION, UPDATE_DOMAIN, UPDATE_RESOURCE, VERIFY_DOMAIN,
} from "./scripts.js"

/** Options of {@link redisSsoStore}. */
export interface RedisSsoStoreOptions {
  /** Prefix of every key. Default `portcullis:sso:`. */
  prefix?: string
}

type Hash = Record<string, string>

const byCreatedThenId = <T extends { createdAt: Date; id: string }>(a: T, b: T) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** Milliseconds, or `""` for none: how dates live in hashes. */
const ms = (date: Date | null) => (date === null ? "" : String(date.getTime()))
const dateOrNull = (value: string | undefined) => (value ? new Date(Number(value)) : null)

/** A `put` value is kept behind `=`, a `useOnce` record is `!`: `take` tells them apart. */
const VALUE_MARK = "="
const ONCE_MARK = "!"

function encodeConnection(connection: Connection): string {
  return JSON.stringify({ ...connection, createdAt: connection.createdAt.getTime() })
}
function decodeConnection(json: string | null | undefined): Connection | null {
  if (!json) return null
  const parsed = JSON.parse(json) as Omit<Connection, "createdAt"> & { createdAt: number }
  return { ...parsed, createdAt: new Date(parsed.createdAt) }
}

function claimFromHash(domain: string, organizationId: string, hash: Hash): Domain | null {
  if (hash.token === undefined) return null
  return {
    domain,
    organizationId,
    token: hash.token,
    verifiedAt: dateOrNull(hash.verifiedAt),
    requireSso: hash.requireSso === "1",
    connectionId: hash.connectionId ? hash.connectionId : null,
    createdAt: new Date(Number(hash.createdAt)),
  }
}

function tokenFromHash(hash: Hash): ScimToken | null {
  if (hash.id === undefined) return null
  return {
    id: hash.id,
    connectionId: hash.connectionId ?? "",
    organizationId: hash.organizationId ?? "",
    hash: hash.hash ?? "",
    createdAt: new Date(Number(hash.createdAt)),
    lastUsedAt: dateOrNull(hash.lastUsedAt),
  }
}

/** A user as kept: the JSON of everything but the version, which the scripts own. */
function encodeUser(user: ScimUser): string {
  const { version: _version, ...rest } = user
  return JSON.stringify({ ...rest, createdAt: user.createdAt.getTime(), updatedAt: user.updatedAt.getTime() })
}
function userFromHash(hash: Hash): ScimUser | null {
  if (hash.json === undefined) return null
  const parsed = JSON.parse(hash.json) as Omit<ScimUser, "createdAt" | "updatedAt" | "version"> & { createdAt: number; updatedAt: number }
  return { ...parsed, version: Number(hash.version), createdAt: new Date(parsed.createdAt), updatedAt: new Date(parsed.updatedAt) }
}

/** A group as kept: members apart (the user deletion script edits them), the version apart. */
function encodeGroup(group: ScimGroup): string {
  const { version: _version, members: _members, ...rest } = group
  return JSON.stringify({ ...rest, createdAt: group.createdAt.getTime(), updatedAt: group.updatedAt.getTime() })
}
function groupFromHash(hash: Hash): ScimGroup | null {
  if (hash.json === undefined) return null
  const parsed = JSON.parse(hash.json) as Omit<ScimGroup, "createdAt" | "updatedAt" | "version" | "members"> & { createdAt: number; updatedAt: number }
  const members = JSON.parse(hash.members ?? "[]") as unknown
  return {
    ...parsed,
    members: Array.isArray(members) ? (members as string[]) : [],
    version: Number(hash.version),
    createdAt: new Date(parsed.createdAt),
    updatedAt: new Date(parsed.updatedAt),
  }
}

/** A TTL for `expires`: at least 1 ms, since Redis refuses 0 and a past instant is due now. */
const ttlUntil = (expires: Date) => Math.max(1, expires.getTime() - Date.now())

/**
 * Creates the SSO store on an ioredis client or Cluster.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { redisSsoStore } from "@portcullis/sso/redis"
 *
 * const store = redisSsoStore(new Redis(process.env.REDIS_URL!), { prefix: "myapp:sso:" })
 * ```
 */
export function redisSsoStore(client: Redis | Cluster, options: RedisSsoStoreOptions = {}): SsoStore {
  const k = ssoRedisKeys(options.prefix ?? "portcullis:sso:")

  /**
   * Reads many hashes at once. Not a pipeline: on Cluster an ioredis pipeline must stay in one
   * slot, and these keys (connections, tokens, claims of many domains) are spread over many.
   * ioredis writes the commands back to back all the same.
   */
  function readHashes(keys: string[]): Promise<Hash[]> {
    return Promise.all(keys.map((key) => client.hgetall(key) as Promise<Hash>))
  }

  async function readClaim(domain: string, organizationId: string): Promise<Domain | null> {
    return claimFromHash(domain, organizationId, await client.hgetall(k.domain(domain).claim(organizationId)))
  }

  async function readToken(id: string): Promise<ScimToken | null> {
    return tokenFromHash(await client.hgetall(k.token(id)))
  }

  /** The update script's answer as the contract's: the record with its new version, "conflict" or null. */
  function updated<T extends { version: number }>(answer: unknown, record: T): T | "conflict" | null {
    if (answer === "missing") return null
    if (answer === "conflict") return "conflict"
    return { ...structuredClone(record), version: Number(answer) }
  }

  return {
    async createConnection(connection) {
      // The index first: a connection never exists without the way to list it.
      await client.sadd(k.organizationConnections(connection.organizationId), connection.id)
      await client.hset(k.connection(connection.id), "organizationId", connection.organizationId, "json", encodeConnection(connection))
    },
    async getConnection(id) {
      return decodeConnection(await client.hget(k.connection(id), "json"))
    },
    async listConnections(organizationId) {
      const ids = await client.smembers(k.organizationConnections(organizationId))
      const found = (await readHashes(ids.map(k.connection))).map((hash) => decodeConnection(hash.json))
      return found.filter((c): c is Connection => c !== null && c.organizationId === organizationId).sort(byCreatedThenId)
    },
    async updateConnection(connection) {
      return (await run(client, UPDATE_CONNECTION, [k.connection(connection.id)], [connection.organizationId, encodeConnection(connection)])) === 1
    },
    async deleteConnection(id) {
      const organizationId = await client.hget(k.connection(id), "organizationId")
      // The connection goes first: once it is gone, nothing signs in through it; the rest tidies.
      await client.del(k.connection(id))
      const tokenIds = await client.smembers(k.connectionTokens(id))
      for (const tokenId of tokenIds) await revokeToken(tokenId)
      await client.del(k.connectionTokens(id))
      if (organizationId === null) return
      await client.srem(k.organizationConnections(organizationId), id)
      for (const domain of await client.smembers(k.organizationDomains(organizationId))) {
        await run(client, UNLINK_DOMAIN, [k.domain(domain).claim(organizationId)], [id])
      }
    },

    async claimDomain(domain) {
      const d = k.domain(domain.domain)
      await client.sadd(k.organizationDomains(domain.organizationId), domain.domain)
      return (await run(client, CLAIM_DOMAIN, [d.claim(domain.organizationId), d.verified], [
        domain.organizationId, domain.token, ms(domain.verifiedAt), domain.requireSso ? "1" : "0", domain.connectionId ?? "", domain.createdAt.getTime(),
      ])) as "claimed" | "taken"
    },
    async getDomain(domain, organizationId) {
      const holder = organizationId ?? (await client.get(k.domain(domain).verified))
      return holder === null ? null : readClaim(domain, holder)
    },
    async listDomains(organizationId) {
      const domains = await client.smembers(k.organizationDomains(organizationId))
      const hashes = await readHashes(domains.map((domain) => k.domain(domain).claim(organizationId)))
      return hashes.map((hash, n) => claimFromHash(domains[n]!, organizationId, hash))
        .filter((d): d is Domain => d !== null)
        .sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0))
    },
    async verifyDomain(domain, organizationId, at) {
      const d = k.domain(domain)
      return (await run(client, VERIFY_DOMAIN, [d.claim(organizationId), d.verified], [organizationId, at.getTime()])) as "verified" | "taken" | "missing"
    },
    async updateDomain(domain, organizationId, patch) {
      return (await run(client, UPDATE_DOMAIN, [k.domain(domain).claim(organizationId)], [
        patch.requireSso === undefined ? "0" : "1", patch.requireSso ? "1" : "0",
        patch.connectionId === undefined ? "0" : "1", patch.connectionId ?? "",
      ])) === 1
    },
    async removeDomain(domain, organizationId) {
      const d = k.domain(domain)
      await run(client, REMOVE_DOMAIN, [d.claim(organizationId), d.verified], [organizationId])
      await client.srem(k.organizationDomains(organizationId), domain)
    },

    async addScimToken(token) {
      await client.hset(k.token(token.id), {
        id: token.id, connectionId: token.connectionId, organizationId: token.organizationId, hash: token.hash,
        createdAt: String(token.createdAt.getTime()), lastUsedAt: ms(token.lastUsedAt),
      })
      await client.set(k.tokenByHash(token.hash), token.id)
      await client.sadd(k.connectionTokens(token.connectionId), token.id)
    },
    async findScimToken(hash) {
      const id = await client.get(k.tokenByHash(hash))
      if (id === null) return null
      const token = await readToken(id)
      // The token is the authority: a pointer left by a revocation cut off finds nothing.
      return token?.hash === hash ? token : null
    },
    async listScimTokens(connectionId) {
      const ids = await client.smembers(k.connectionTokens(connectionId))
      return (await readHashes(ids.map(k.token))).map(tokenFromHash)
        .filter((t): t is ScimToken => t !== null && t.connectionId === connectionId)
        .sort(byCreatedThenId)
    },
    revokeScimToken: (id) => revokeToken(id),
    async touchScimToken(id, at) {
      await run(client, TOUCH_TOKEN, [k.token(id)], [at.getTime()])
    },

    async createScimUser(user) {
      const o = k.organization(user.organizationId)
      return (await run(client, CREATE_RESOURCE, [o.user(user.id), o.users, o.userNames], [user.id, user.userName.toLowerCase(), encodeUser(user), user.version])) === 1
    },
    async getScimUser(organizationId, id) {
      return userFromHash(await client.hgetall(k.organization(organizationId).user(id)))
    },
    async findScimUser(organizationId, by) {
      const o = k.organization(organizationId)
      if (by.userName !== undefined) {
        const id = await client.hget(o.userNames, by.userName.toLowerCase())
        const user = id === null ? null : userFromHash(await client.hgetall(o.user(id)))
        return user && (by.externalId === undefined || user.externalId === by.externalId) ? user : null
      }
      const users = await listUsers(organizationId)
      return users.find((u) => by.externalId === undefined || u.externalId === by.externalId) ?? null
    },
    listScimUsers: (organizationId) => listUsers(organizationId),
    async updateScimUser(user, expectedVersion) {
      const o = k.organization(user.organizationId)
      const answer = await run(client, UPDATE_RESOURCE, [o.user(user.id), o.userNames], [user.id, user.userName.toLowerCase(), encodeUser(user), expectedVersion ?? ""])
      return updated(answer, user)
    },
    async deleteScimUser(organizationId, id) {
      const o = k.organization(organizationId)
      return (await run(client, DELETE_RESOURCE, [o.user(id), o.users, o.userNames], [id, o.groups, o.groupPrefix])) === 1
    },
    async createScimGroup(group) {
      const o = k.organization(group.organizationId)
      return (await run(client, CREATE_RESOURCE, [o.group(group.id), o.groups, o.groupNames], [group.id, group.displayName, encodeGroup(group), group.version, JSON.stringify(group.members)])) === 1
    },
    async getScimGroup(organizationId, id) {
      return groupFromHash(await client.hgetall(k.organization(organizationId).group(id)))
    },
    async listScimGroups(organizationId) {
      const o = k.organization(organizationId)
      const ids = await client.smembers(o.groups)
      return (await readHashes(ids.map(o.group))).map(groupFromHash).filter((g): g is ScimGroup => g !== null).sort(byCreatedThenId)
    },
    async updateScimGroup(group, expectedVersion) {
      const o = k.organization(group.organizationId)
      const answer = await run(client, UPDATE_RESOURCE, [o.group(group.id), o.groupNames], [group.id, group.displayName, encodeGroup(group), expectedVersion ?? "", JSON.stringify(group.members)])
      return updated(answer, group)
    },
    async deleteScimGroup(organizationId, id) {
      const o = k.organization(organizationId)
      return (await run(client, DELETE_RESOURCE, [o.group(id), o.groups, o.groupNames], [id])) === 1
    },

    async useOnce(namespace, id, expires) {
      // SET NX is the single use: of any number of callers, Redis lets one set the key.
      return (await client.set(k.once(namespace, id), ONCE_MARK, "PX", ttlUntil(expires), "NX")) === "OK"
    },
    async put(namespace, id, value, expires) {
      await client.set(k.once(namespace, id), VALUE_MARK + value, "PX", ttlUntil(expires))
    },
    async take(namespace, id) {
      // GETDEL: read and deleted in one command; an expired key is gone already.
      const kept = await client.getdel(k.once(namespace, id))
      return kept !== null && kept.startsWith(VALUE_MARK) ? kept.slice(VALUE_MARK.length) : null
    },

    async recordSession(key, userId, organizationId, expires) {
      const ttl = ttlUntil(expires)
      const index = k.userSessions(userId, organizationId)
      // The index first, living as long as its longest session: a session is never there without it.
      await client.sadd(index, key)
      await run(client, EXTEND_TTL, [index], [ttl])
      await client.multi()
        .del(k.session(key))
        .hset(k.session(key), "userId", userId, "organizationId", organizationId, "ended", "0")
        .pexpire(k.session(key), ttl)
        .exec()
    },
    async endSessions(userId, organizationId) {
      const keys = await client.smembers(k.userSessions(userId, organizationId))
      // One script per session: of concurrent calls, each session is ended, and counted, once.
      const ended = await Promise.all(keys.map((key) => run(client, END_SESSION, [k.session(key)], [userId, organizationId])))
      return ended.filter((n) => n === 1).length
    },
    async sessionEnded(key) {
      return (await client.hget(k.session(key), "ended")) === "1"
    },
  }

  async function revokeToken(id: string): Promise<void> {
    const token = await readToken(id)
    await client.del(k.token(id))
    if (!token) return
    await client.del(k.tokenByHash(token.hash))
    await client.srem(k.connectionTokens(token.connectionId), id)
  }

  async function listUsers(organizationId: string): Promise<ScimUser[]> {
    const o = k.organization(organizationId)
    const ids = await client.smembers(o.users)
    return (await readHashes(ids.map(o.user))).map(userFromHash).filter((u): u is ScimUser => u !== null).sort(byCreatedThenId)
  }
}
