/**
 * The OpenID Provider store on Redis (standalone or Cluster) through ioredis.
 *
 * Every step that must be single or atomic is one Lua script (see `scripts.ts`): redeeming a
 * code, rotating a refresh token (with reuse revoking the grant in the same step), a device's
 * decision and its hand-out, a consent's union, revoking a user's grants. Interactions are
 * taken with GETDEL. Everything with an end carries a TTL from it (grants, codes, refresh
 * tokens, devices, interactions, revoked `jti`s, retired signing keys), so nothing that
 * expires lives on; consents and clients live until they are revoked or deleted.
 *
 * A revoked grant is deleted: codes and refresh tokens name their grant's key and answer
 * `missing` once it is gone, so a revocation is one DEL and never half done.
 * @module
 */
import type { Cluster, Redis } from "ioredis"
import type {
  AuthorizationCode, Consent, DeviceAuthorization, DevicePoll, Grant, OAuthClient, OidcProviderStore, RefreshToken,
  StoredSigningKey,
} from "../store/types.js"
import { oidcProviderRedisKeys } from "./keys.js"
import {
  ADD_SIGNING_KEY, CREATE_CLIENT, CREATE_DEVICE, CREATE_GRANT, DECIDE_DEVICE, DELETE_CLIENT, FIND_DEVICE, GET_REFRESH,
  LIST_GRANTS, LIST_SIGNING_KEYS, POLL_DEVICE, REVOKE_CONSENT, REVOKE_GRANTS, ROTATE_REFRESH, run, SAVE_CONSENT,
  TAKE_CODE, UPDATE_SIGNING_KEY,
} from "./scripts.js"

/** Options of {@link redisOidcProviderStore}. */
export interface RedisOidcProviderStoreOptions {
  /** Prefix of every key. Default `portcullis:op:`. */
  prefix?: string
}

/** A record as JSON with its top-level `Date`s as `{ $date: ms }`; `unpack` revives them. */
function pack(record: object): string {
  return JSON.stringify(Object.fromEntries(Object.entries(record).map(([k, v]) => [k, v instanceof Date ? { $date: v.getTime() } : v])))
}
function unpack<T>(json: string): T {
  const parsed = JSON.parse(json) as Record<string, unknown>
  for (const [k, v] of Object.entries(parsed)) {
    if (v && typeof v === "object" && typeof (v as { $date?: unknown }).$date === "number") parsed[k] = new Date((v as { $date: number }).$date)
  }
  return parsed as T
}

/** A TTL for `expires`: at least 1 ms, since Redis refuses 0 and a past instant is due now. */
const ttlUntil = (expires: Date) => Math.max(1, expires.getTime() - Date.now())
/**
 * Whether a record is already past its end: then it is not written at all, since even a 1 ms
 * TTL would let a step running within that millisecond find it.
 */
const over = (expires: Date) => expires.getTime() <= Date.now()
const ms = (date: Date | undefined) => (date === undefined ? "" : String(date.getTime()))
const dateOr = (value: string | undefined) => (value ? new Date(Number(value)) : undefined)
const byCreated = <T extends { createdAt: Date }>(a: T, b: T) => a.createdAt.getTime() - b.createdAt.getTime()

/** `[k1, v1, k2, v2, …]` (what HGETALL answers inside a script) as an object. */
function fieldsOf(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!
  return out
}

function deviceFromFields(fields: Record<string, string>): DeviceAuthorization {
  const data = JSON.parse(fields.json!) as Pick<DeviceAuthorization, "deviceCodeHash" | "userCode" | "clientId" | "scope" | "resources">
  const lastPolledAt = dateOr(fields.lastPolledAt)
  return {
    ...data,
    status: fields.status as DeviceAuthorization["status"],
    ...(fields.userId ? { userId: fields.userId } : {}),
    ...(fields.authTime ? { authTime: Number(fields.authTime) } : {}),
    ...(fields.grantId ? { grantId: fields.grantId } : {}),
    interval: Number(fields.interval),
    ...(lastPolledAt !== undefined && { lastPolledAt }),
    expiresAt: new Date(Number(fields.expiresAt)),
  }
}

/**
 * Creates the OpenID Provider store on an ioredis client or Cluster.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { redisOidcProviderStore } from "@portcullis/oidc-provider/redis"
 *
 * const store = redisOidcProviderStore(new Redis(process.env.REDIS_URL!), { prefix: "myapp:op:" })
 * ```
 */
export function redisOidcProviderStore(client: Redis | Cluster, options: RedisOidcProviderStoreOptions = {}): OidcProviderStore {
  const k = oidcProviderRedisKeys(options.prefix ?? "portcullis:op:")
  const live = (grant: Grant) => grant.expiresAt.getTime() > Date.now()

  async function listGrantsIn(index: string, clientId = ""): Promise<Grant[]> {
    const jsons = (await run(client, LIST_GRANTS, [index], [clientId])) as string[]
    return jsons.map((json) => unpack<Grant>(json)).filter(live).sort(byCreated)
  }

  return {
    async createClient(c) {
      await run(client, CREATE_CLIENT, [k.client(c.clientId), k.dynamicClients], [pack(c), c.dynamic ? "1" : "0"])
    },
    async getClient(clientId) {
      const json = await client.hget(k.client(clientId), "json")
      return json ? unpack<OAuthClient>(json) : null
    },
    async deleteClient(clientId) {
      return Number(await run(client, DELETE_CLIENT, [k.client(clientId), k.dynamicClients], [])) > 0
    },
    async countDynamicClients() {
      return client.scard(k.dynamicClients)
    },

    async createGrant(grant) {
      if (over(grant.expiresAt)) return
      await run(client, CREATE_GRANT, [k.grant(grant.id), k.userGrants(grant.userId ?? ""), k.sessionGrants(grant.sessionKey ?? "")], [
        pack(grant), grant.clientId, grant.userId ?? "", grant.sessionKey ?? "", ttlUntil(grant.expiresAt),
      ])
    },
    async getGrant(id) {
      const json = await client.hget(k.grant(id), "json")
      if (!json) return null
      const grant = unpack<Grant>(json)
      return live(grant) ? grant : null
    },
    async revokeGrant(id) {
      // The index entries go on the next read of the index (the scripts drop members whose grant is gone).
      return (await client.del(k.grant(id))) > 0
    },
    listGrants(userId, clientId) {
      return listGrantsIn(k.userGrants(userId), clientId)
    },
    async revokeGrantsOf(userId, clientId) {
      return Number(await run(client, REVOKE_GRANTS, [k.userGrants(userId)], [clientId]))
    },
    async revokeGrantsOfSession(sessionKey) {
      return Number(await run(client, REVOKE_GRANTS, [k.sessionGrants(sessionKey)], [""]))
    },

    async saveCode(code) {
      if (over(code.expiresAt)) return
      const key = k.code(code.codeHash)
      await client.multi().hset(key, { json: pack(code), grantKey: k.grant(code.grantId), used: "0" }).pexpire(key, ttlUntil(code.expiresAt)).exec()
        .then(failed)
    },
    async takeCode(codeHash) {
      const [status, json] = (await run(client, TAKE_CODE, [k.code(codeHash)], [])) as [string, string?]
      if (status === "missing" || !json) return { status: "missing" }
      const code = unpack<AuthorizationCode>(json)
      // The key's TTL came from expiresAt; the check covers a clock between two round trips.
      if (code.expiresAt.getTime() <= Date.now()) return { status: "missing" }
      return { status: status as "taken" | "replayed", code }
    },

    async saveRefreshToken(token) {
      if (over(token.expiresAt)) return
      const key = k.refreshToken(token.tokenHash)
      await client.multi().hset(key, { json: pack(token), grantKey: k.grant(token.grantId), rotated: "0" }).pexpire(key, ttlUntil(token.expiresAt)).exec()
        .then(failed)
    },
    async rotateRefreshToken(tokenHash, next) {
      const [status, json] = (await run(client, ROTATE_REFRESH, [k.refreshToken(tokenHash), k.refreshToken(next.tokenHash)], [
        pack(next), k.grant(next.grantId), ttlUntil(next.expiresAt),
      ])) as [string, string?]
      if (status === "missing" || !json) return { status: "missing" }
      return { status: status as "rotated" | "reused", previous: unpack<RefreshToken>(json) }
    },
    async getRefreshToken(tokenHash) {
      const json = (await run(client, GET_REFRESH, [k.refreshToken(tokenHash)], [])) as string | null
      if (!json) return null
      const token = unpack<RefreshToken>(json)
      return token.expiresAt.getTime() > Date.now() ? token : null
    },

    async revokeAccessToken(jti, expiresAt) {
      // A token already past its expiry cannot be presented: nothing to remember.
      if (over(expiresAt)) return
      await client.set(k.revokedAccessToken(jti), "1", "PX", ttlUntil(expiresAt))
    },
    async accessTokenRevoked(jti) {
      return (await client.exists(k.revokedAccessToken(jti))) > 0
    },

    async useOnce(key, expiresAt) {
      // A mark already past its end would guard nothing: the first use is still the first.
      if (over(expiresAt)) return true
      return (await client.set(k.usedKey(key), "1", "PX", ttlUntil(expiresAt), "NX")) === "OK"
    },

    async saveConsent(consent) {
      await run(client, SAVE_CONSENT, [k.consent(consent.userId, consent.clientId), k.userConsents(consent.userId)], [
        consent.clientId, consent.scope, JSON.stringify(consent.resources), consent.createdAt.getTime(), consent.updatedAt.getTime(),
      ])
    },
    async getConsent(userId, clientId) {
      const fields = await client.hgetall(k.consent(userId, clientId))
      if (fields.scope === undefined) return null
      return consentFrom(userId, clientId, fields)
    },
    async listConsents(userId) {
      const clientIds = await client.smembers(k.userConsents(userId))
      const consents: Consent[] = []
      for (const clientId of clientIds) {
        const fields = await client.hgetall(k.consent(userId, clientId))
        if (fields.scope !== undefined) consents.push(consentFrom(userId, clientId, fields))
      }
      return consents.sort((a, b) => byCreated(a, b) || (a.clientId < b.clientId ? -1 : 1))
    },
    async revokeConsent(userId, clientId) {
      return Number(await run(client, REVOKE_CONSENT, [k.consent(userId, clientId), k.userConsents(userId), k.userGrants(userId)], [clientId])) > 0
    },

    async createDevice(device) {
      if (over(device.expiresAt)) return
      const { deviceCodeHash, userCode, clientId, scope, resources } = device
      await run(client, CREATE_DEVICE, [k.device(deviceCodeHash), k.userCode(userCode)], [
        JSON.stringify({ deviceCodeHash, userCode, clientId, scope, resources }),
        device.status, device.interval, ms(device.lastPolledAt), device.userId ?? "",
        device.authTime === undefined ? "" : String(device.authTime), device.grantId ?? "",
        device.expiresAt.getTime(), ttlUntil(device.expiresAt),
      ])
    },
    async findDeviceByUserCode(userCode) {
      const flat = (await run(client, FIND_DEVICE, [k.userCode(userCode)], [Date.now()])) as string[] | null
      return flat ? deviceFromFields(fieldsOf(flat)) : null
    },
    async decideDevice(userCode, decision) {
      const args = decision.status === "approved"
        ? ["approved", decision.userId, decision.authTime === undefined ? "" : String(decision.authTime), decision.grantId]
        : ["denied", "", "", ""]
      return Number(await run(client, DECIDE_DEVICE, [k.userCode(userCode)], [...args, Date.now()])) === 1
    },
    async pollDevice(deviceCodeHash, now): Promise<DevicePoll> {
      const [status, ...flat] = (await run(client, POLL_DEVICE, [k.device(deviceCodeHash)], [now.getTime()])) as string[]
      if (status === "approved") return { status, device: deviceFromFields(fieldsOf(flat)) }
      return { status: status as "pending" | "slow_down" | "denied" | "missing" }
    },

    async putInteraction(id, value, expiresAt) {
      // Parked again with an end already past: what was parked under the id ends now.
      if (over(expiresAt)) return void (await client.del(k.interaction(id)))
      await client.set(k.interaction(id), value, "PX", ttlUntil(expiresAt))
    },
    async takeInteraction(id) {
      return client.getdel(k.interaction(id))
    },
    async getInteraction(id) {
      return client.get(k.interaction(id))
    },

    async listSigningKeys() {
      const rows = (await run(client, LIST_SIGNING_KEYS, [k.signingKeys], [])) as Array<[string, string, string]>
      const now = Date.now()
      return rows.map(([json, retiredAt, expiresAt]): StoredSigningKey => {
        const key = unpack<StoredSigningKey>(json)
        const retired = dateOr(retiredAt)
        const expires = dateOr(expiresAt)
        return { ...key, ...(retired !== undefined && { retiredAt: retired }), ...(expires !== undefined && { expiresAt: expires }) }
      }).filter((key) => key.expiresAt === undefined || key.expiresAt.getTime() > now)
        .sort((a, b) => byCreated(a, b) || (a.kid < b.kid ? -1 : 1))
    },
    async addSigningKey(key) {
      const { retiredAt, expiresAt, ...rest } = key
      await run(client, ADD_SIGNING_KEY, [k.signingKey(key.kid), k.signingKeys], [pack(rest), ms(retiredAt), ms(expiresAt)])
    },
    async updateSigningKey(kid, patch) {
      await run(client, UPDATE_SIGNING_KEY, [k.signingKey(kid), k.signingKeys], [
        patch.retiredAt === undefined ? "0" : "1", ms(patch.retiredAt),
        patch.expiresAt === undefined ? "0" : "1", ms(patch.expiresAt), Date.now(),
      ])
    },
  }
}

function consentFrom(userId: string, clientId: string, fields: Record<string, string>): Consent {
  return {
    userId,
    clientId,
    scope: fields.scope!,
    resources: JSON.parse(fields.resources ?? "[]") as string[],
    createdAt: new Date(Number(fields.createdAt)),
    updatedAt: new Date(Number(fields.updatedAt)),
  }
}

/** A MULTI's replies: the first command error, thrown (EXEC resolves with errors inside). */
function failed(replies: Array<[Error | null, unknown]> | null): void {
  if (replies === null) throw new Error("redis transaction aborted")
  for (const [error] of replies) if (error) throw error
}
