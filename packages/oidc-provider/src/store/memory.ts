/**
 * The in-memory store: one process, for tests and development. Every single-use step reads and
 * writes with no `await` between (JS runs one callback at a time), so it is atomic as the
 * contract asks.
 * @module
 */
import type { AuthorizationCode, CodeTake, Consent, DeviceAuthorization, DevicePoll, Grant, OAuthClient, OidcProviderStore, RefreshRotation, RefreshToken, StoredSigningKey } from "./types.js"

interface CodeRecord {
  code: AuthorizationCode
  taken: boolean
}

interface RefreshRecord {
  token: RefreshToken
  rotated: boolean
}

/**
 * A deep copy of a stored record, so callers never share the store's objects. The records are
 * plain data — objects, arrays, strings, numbers, booleans, `Date`s — which this copies for a
 * fraction of `structuredClone`'s cost (its serialise-then-rebuild showed in the token
 * endpoint's profile, issue 34).
 */
function copy<T>(value: T): T {
  if (value === null || typeof value !== "object") return value
  if (value instanceof Date) return new Date(value.getTime()) as T
  if (Array.isArray(value)) return value.map(copy) as T
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) out[key] = copy((value as Record<string, unknown>)[key])
  return out as T
}

/** The memory store's state and methods; build it with {@link memoryOidcProviderStore}. */
export class MemoryOidcProviderStore implements OidcProviderStore {
  #clients = new Map<string, OAuthClient>()
  #grants = new Map<string, Grant>()
  #revokedGrants = new Set<string>()
  #codes = new Map<string, CodeRecord>()
  #refresh = new Map<string, RefreshRecord>()
  #revokedJti = new Map<string, number>()
  #consents = new Map<string, Consent>()
  #devices = new Map<string, DeviceAuthorization>()
  #interactions = new Map<string, { value: string; expiresAt: number }>()
  #keys = new Map<string, StoredSigningKey>()
  #used = new Map<string, number>()

  #grantActive(id: string, now = Date.now()): boolean {
    const grant = this.#grants.get(id)
    return !!grant && !this.#revokedGrants.has(id) && grant.expiresAt.getTime() > now
  }

  async createClient(client: OAuthClient): Promise<void> {
    // As a primary key would: a second client with the same id is refused, the first kept.
    if (this.#clients.has(client.clientId)) throw new Error(`a client with id ${client.clientId} exists`)
    this.#clients.set(client.clientId, copy(client))
  }
  async getClient(clientId: string): Promise<OAuthClient | null> {
    const client = this.#clients.get(clientId)
    return client ? copy(client) : null
  }
  async deleteClient(clientId: string): Promise<boolean> {
    return this.#clients.delete(clientId)
  }
  async countDynamicClients(): Promise<number> {
    let n = 0
    for (const client of this.#clients.values()) if (client.dynamic) n++
    return n
  }

  async createGrant(grant: Grant): Promise<void> {
    this.#grants.set(grant.id, copy(grant))
  }
  async getGrant(id: string): Promise<Grant | null> {
    return this.#grantActive(id) ? copy(this.#grants.get(id)!) : null
  }
  async revokeGrant(id: string): Promise<boolean> {
    if (!this.#grantActive(id)) return false
    this.#revokedGrants.add(id)
    return true
  }
  async listGrants(userId: string, clientId?: string): Promise<Grant[]> {
    return [...this.#grants.values()].filter((g) => g.userId === userId && (clientId === undefined || g.clientId === clientId) && this.#grantActive(g.id)).map(copy)
  }
  async revokeGrantsOf(userId: string, clientId: string): Promise<number> {
    let n = 0
    for (const g of this.#grants.values()) {
      if (g.userId === userId && g.clientId === clientId && this.#grantActive(g.id)) {
        this.#revokedGrants.add(g.id)
        n++
      }
    }
    return n
  }
  async revokeGrantsOfSession(sessionKey: string): Promise<number> {
    let n = 0
    for (const g of this.#grants.values()) {
      if (g.sessionKey === sessionKey && this.#grantActive(g.id)) {
        this.#revokedGrants.add(g.id)
        n++
      }
    }
    return n
  }

  async saveCode(code: AuthorizationCode): Promise<void> {
    this.#codes.set(code.codeHash, { code: copy(code), taken: false })
  }
  async takeCode(codeHash: string): Promise<CodeTake> {
    const record = this.#codes.get(codeHash)
    if (!record || record.code.expiresAt.getTime() <= Date.now()) return { status: "missing" }
    // A revoked grant's code is gone, taken before or not: nothing can be done with it.
    if (!this.#grantActive(record.code.grantId)) return { status: "missing" }
    if (record.taken) return { status: "replayed", code: copy(record.code) }
    record.taken = true
    return { status: "taken", code: copy(record.code) }
  }

  async saveRefreshToken(token: RefreshToken): Promise<void> {
    this.#refresh.set(token.tokenHash, { token: copy(token), rotated: false })
  }
  async rotateRefreshToken(tokenHash: string, next: RefreshToken): Promise<RefreshRotation> {
    const record = this.#refresh.get(tokenHash)
    if (!record || record.token.expiresAt.getTime() <= Date.now() || !this.#grantActive(record.token.grantId)) return { status: "missing" }
    if (record.rotated) {
      this.#revokedGrants.add(record.token.grantId)
      return { status: "reused", previous: copy(record.token) }
    }
    record.rotated = true
    this.#refresh.set(next.tokenHash, { token: copy(next), rotated: false })
    return { status: "rotated", previous: copy(record.token) }
  }
  async getRefreshToken(tokenHash: string): Promise<RefreshToken | null> {
    const record = this.#refresh.get(tokenHash)
    if (!record || record.rotated || record.token.expiresAt.getTime() <= Date.now() || !this.#grantActive(record.token.grantId)) return null
    return copy(record.token)
  }

  async revokeAccessToken(jti: string, expiresAt: Date): Promise<void> {
    this.#revokedJti.set(jti, expiresAt.getTime())
  }
  async accessTokenRevoked(jti: string): Promise<boolean> {
    const until = this.#revokedJti.get(jti)
    return until !== undefined && until > Date.now()
  }

  async saveConsent(consent: Consent): Promise<void> {
    const key = `${consent.userId}\u0000${consent.clientId}`
    const before = this.#consents.get(key)
    if (!before) {
      this.#consents.set(key, copy(consent))
      return
    }
    const scope = [...new Set([...before.scope.split(" "), ...consent.scope.split(" ")].filter(Boolean))].join(" ")
    const resources = [...new Set([...before.resources, ...consent.resources])]
    this.#consents.set(key, { ...before, scope, resources, updatedAt: consent.updatedAt })
  }
  async getConsent(userId: string, clientId: string): Promise<Consent | null> {
    const found = this.#consents.get(`${userId}\u0000${clientId}`)
    return found ? copy(found) : null
  }
  async listConsents(userId: string): Promise<Consent[]> {
    return [...this.#consents.values()]
      .filter((c) => c.userId === userId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .map(copy)
  }
  async revokeConsent(userId: string, clientId: string): Promise<boolean> {
    const existed = this.#consents.delete(`${userId}\u0000${clientId}`)
    await this.revokeGrantsOf(userId, clientId)
    return existed
  }

  async createDevice(device: DeviceAuthorization): Promise<void> {
    this.#devices.set(device.deviceCodeHash, copy(device))
  }
  #deviceByUserCode(userCode: string): DeviceAuthorization | undefined {
    for (const d of this.#devices.values()) if (d.userCode === userCode && d.status === "pending" && d.expiresAt.getTime() > Date.now()) return d
    return undefined
  }
  async findDeviceByUserCode(userCode: string): Promise<DeviceAuthorization | null> {
    const found = this.#deviceByUserCode(userCode)
    return found ? copy(found) : null
  }
  async decideDevice(userCode: string, decision: { status: "approved"; userId: string; authTime?: number; grantId: string } | { status: "denied" }): Promise<boolean> {
    const found = this.#deviceByUserCode(userCode)
    if (!found) return false
    Object.assign(found, decision)
    return true
  }
  async pollDevice(deviceCodeHash: string, now: Date): Promise<DevicePoll> {
    const device = this.#devices.get(deviceCodeHash)
    if (!device || device.expiresAt.getTime() <= now.getTime()) return { status: "missing" }
    const last = device.lastPolledAt?.getTime()
    device.lastPolledAt = now
    if (last !== undefined && now.getTime() - last < device.interval * 1000) {
      device.interval += 5
      return { status: "slow_down" }
    }
    if (device.status === "denied") return { status: "denied" }
    if (device.status === "approved") {
      this.#devices.delete(deviceCodeHash)
      return { status: "approved", device: copy(device) }
    }
    return { status: "pending" }
  }

  async useOnce(key: string, expiresAt: Date): Promise<boolean> {
    const until = this.#used.get(key)
    if (until !== undefined && until > Date.now()) return false
    this.#used.set(key, expiresAt.getTime())
    return true
  }

  async putInteraction(id: string, value: string, expiresAt: Date): Promise<void> {
    this.#interactions.set(id, { value, expiresAt: expiresAt.getTime() })
  }
  async takeInteraction(id: string): Promise<string | null> {
    const found = this.#interactions.get(id)
    this.#interactions.delete(id)
    return found && found.expiresAt > Date.now() ? found.value : null
  }
  async getInteraction(id: string): Promise<string | null> {
    const found = this.#interactions.get(id)
    return found && found.expiresAt > Date.now() ? found.value : null
  }

  async listSigningKeys(): Promise<StoredSigningKey[]> {
    const now = Date.now()
    return [...this.#keys.values()].filter((k) => !k.expiresAt || k.expiresAt.getTime() > now).map(copy)
  }
  async addSigningKey(key: StoredSigningKey): Promise<void> {
    this.#keys.set(key.kid, copy(key))
  }
  async updateSigningKey(kid: string, patch: { retiredAt?: Date; expiresAt?: Date }): Promise<void> {
    const key = this.#keys.get(kid)
    if (key) this.#keys.set(kid, { ...key, ...copy(patch) })
  }
}
