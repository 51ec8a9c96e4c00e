/**
 * `@portcullis/oidc-provider/testing`: the conformance suite every OpenID Provider store runs
 * on its real backend. Each `it` pins one rule of the contract in `store/types.ts`, including
 * what must hold under 50 concurrent calls on a single-use thing (one winner) and after expiry.
 *
 * Where the contract leaves a choice, the suite fixes it, so every backend answers alike:
 * - A code whose grant is revoked or expired is `missing`, taken before or not: a replay
 *   after the revocation has nothing left to revoke.
 * - Of 50 concurrent rotations of one refresh token, one is `rotated`; the first one after it
 *   to run sees a rotated token, answers `reused` and revokes the grant; those after find the
 *   grant revoked and answer `missing` (or `reused` on a backend that serializes them
 *   differently). Either way the family is dead afterwards: the winner's new token is `missing`.
 * - `pollDevice` hands an approval or a denial out before looking at the interval; a pending
 *   request polled sooner than `interval` seconds after the last poll is `slow_down`, and
 *   every poll counts as the last one.
 * - `listSigningKeys` leaves out keys whose `expiresAt` has passed.
 *
 * @example
 * ```ts
 * import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
 * import { oidcProviderStoreConformance } from "@portcullis/oidc-provider/testing"
 *
 * oidcProviderStoreConformance("memory", async () => ({ store: memoryOidcProviderStore(), cleanup: async () => {} }))
 * ```
 * @module
 */
import { createHash, randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type {
  AuthorizationCode, Consent, DeviceAuthorization, Grant, OAuthClient, OidcProviderStore, RefreshToken, StoredSigningKey,
} from "./store/types.js"

/** What the suite is given: a store on a backend, and how to let go of it after the last spec. */
export interface OidcProviderStoreHarness {
  store: OidcProviderStore
  cleanup(): Promise<void>
}

const HOUR = 3_600_000
/** How long the expiry specs' records live: long enough for a slow round trip to land before. */
const SHORT_MS = 400

/**
 * Instants with millisecond precision, in the past and one second apart, so that creation
 * orders are distinct on every backend (MySQL's `datetime(3)`).
 */
let clock = Date.now() - 24 * HOUR
const tick = () => new Date((clock += 1_000))
const later = (ms = HOUR) => new Date(Date.now() + ms)
const count = <T>(values: T[], value: T) => values.filter((v) => v === value).length

/** A random SHA-256 in hex, as the extension keys secrets. */
export const randomHash = () => createHash("sha256").update(randomUUID()).digest("hex")

/** A dynamically registered confidential client unless `overrides` says otherwise. */
export function makeClient(overrides: Partial<OAuthClient> = {}): OAuthClient {
  return {
    clientId: randomUUID(),
    secretHash: randomHash(),
    secretExpiresAt: later(30 * 24 * HOUR),
    tokenEndpointAuthMethod: "client_secret_basic",
    redirectUris: ["https://app.example.com/callback", "http://127.0.0.1/callback"],
    postLogoutRedirectUris: [],
    grantTypes: ["authorization_code", "refresh_token"],
    scope: "openid profile email offline_access",
    resources: ["https://api.example.com/"],
    jwks: { keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y" }] },
    name: "Ünïcode app \"quoted\" </script>",
    dynamic: true,
    registrationTokenHash: randomHash(),
    createdAt: tick(),
    ...overrides,
  }
}

/**
 * An active grant of a fresh user for a fresh client unless `overrides` says otherwise; the
 * other `make*` helpers build records under a grant the same way.
 *
 * @example
 * ```ts
 * const grant = makeGrant({ userId: "u1" })
 * await store.createGrant(grant)
 * await store.saveCode(makeCode(grant))
 * ```
 */
export function makeGrant(overrides: Partial<Grant> = {}): Grant {
  return {
    id: randomUUID(),
    clientId: randomUUID(),
    userId: randomUUID(),
    scope: "openid profile offline_access",
    resources: ["https://api.example.com/"],
    authTime: Math.floor(Date.now() / 1000) - 60,
    sessionKey: randomUUID(),
    createdAt: tick(),
    expiresAt: later(),
    ...overrides,
  }
}

/** A code under `grant`. */
export function makeCode(grant: Grant, overrides: Partial<AuthorizationCode> = {}): AuthorizationCode {
  return {
    codeHash: randomHash(),
    grantId: grant.id,
    clientId: grant.clientId,
    userId: grant.userId ?? randomUUID(),
    redirectUri: "https://app.example.com/callback",
    scope: grant.scope,
    resources: grant.resources,
    nonce: randomUUID(),
    codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    authTime: grant.authTime,
    claims: JSON.stringify({ id_token: { email: { essential: true } } }),
    expiresAt: later(60_000),
    ...overrides,
  }
}

/** A refresh token under `grant`. */
export function makeRefreshToken(grant: Grant, overrides: Partial<RefreshToken> = {}): RefreshToken {
  return {
    tokenHash: randomHash(),
    grantId: grant.id,
    clientId: grant.clientId,
    userId: grant.userId,
    scope: grant.scope,
    resources: grant.resources,
    authTime: grant.authTime,
    expiresAt: later(),
    ...overrides,
  }
}

/** A pending device request polled every 5 s. */
export function makeDevice(overrides: Partial<DeviceAuthorization> = {}): DeviceAuthorization {
  return {
    deviceCodeHash: randomHash(),
    userCode: randomUUID().replaceAll("-", "").slice(0, 8).toUpperCase(),
    clientId: randomUUID(),
    scope: "openid offline_access",
    resources: [],
    status: "pending",
    interval: 5,
    expiresAt: later(10 * 60_000),
    ...overrides,
  }
}

/** A signing key; the "sealed" private part is a stand-in (a store keeps it as text). */
export function makeSigningKey(overrides: Partial<StoredSigningKey> = {}): StoredSigningKey {
  const kid = randomUUID()
  return {
    kid,
    alg: "ES256",
    publicJwk: { kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0", kid, use: "sig", alg: "ES256" },
    sealedPrivateJwk: `sealed-placeholder.${randomUUID()}`,
    createdAt: tick(),
    ...overrides,
  }
}

/** Polls `read` until it returns what `done` accepts (what expiry specs wait for, instead of sleeping). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > until) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * Registers the conformance suite for one OpenID Provider store. `makeStore` is called once,
 * before the first spec; every spec uses fresh ids, so specs share the store freely.
 *
 * @example
 * ```ts
 * oidcProviderStoreConformance("Redis", async () => {
 *   const redis = new Redis(url)
 *   return { store: redisOidcProviderStore(redis, { prefix }), cleanup: async () => void (await redis.quit()) }
 * })
 * ```
 */
export function oidcProviderStoreConformance(name: string, makeStore: () => Promise<OidcProviderStoreHarness>): void {
  describe(`${name}: OpenID Provider store conformance`, () => {
    let harness: OidcProviderStoreHarness | undefined
    beforeAll(async () => {
      harness = await makeStore()
    })
    afterAll(() => harness?.cleanup())
    const store = () => {
      if (!harness) throw new Error("the store's harness did not open")
      return harness.store
    }
    /** A grant created in the store. */
    async function grantIn(overrides: Partial<Grant> = {}): Promise<Grant> {
      const grant = makeGrant(overrides)
      await store().createGrant(grant)
      return grant
    }

    describe("clients", () => {
      it("stores a client and reads it back whole: dates as Dates, arrays as arrays", async () => {
        const client = makeClient()
        await store().createClient(client)
        const read = await store().getClient(client.clientId)
        expect(read).toEqual(client)
        expect(read!.createdAt).toBeInstanceOf(Date)
        expect(read!.secretExpiresAt).toBeInstanceOf(Date)
        expect(await store().getClient(randomUUID())).toBeNull()
      })

      it("keeps a minimal public client without inventing the optional fields", async () => {
        const client: OAuthClient = {
          clientId: randomUUID(), tokenEndpointAuthMethod: "none", redirectUris: ["http://127.0.0.1/cb"], postLogoutRedirectUris: [],
          grantTypes: ["authorization_code"], scope: "openid", dynamic: true, createdAt: tick(),
        }
        await store().createClient(client)
        const read = (await store().getClient(client.clientId))!
        expect(read).toEqual(client)
        expect(Object.keys(read).sort()).toEqual(Object.keys(client).sort())
      })

      it("refuses a second client with the same id, keeping the first", async () => {
        const client = makeClient()
        await store().createClient(client)
        await expect(store().createClient(makeClient({ clientId: client.clientId, name: "impostor" }))).rejects.toThrow()
        expect((await store().getClient(client.clientId))?.name).toBe(client.name)
      })

      it("deletes a client once, and counts the dynamic clients", async () => {
        const before = await store().countDynamicClients()
        const dynamic = makeClient()
        await store().createClient(dynamic)
        await store().createClient(makeClient({ dynamic: false, firstParty: true }))
        expect(await store().countDynamicClients()).toBe(before + 1)
        expect(await store().deleteClient(dynamic.clientId)).toBe(true)
        expect(await store().deleteClient(dynamic.clientId)).toBe(false)
        expect(await store().getClient(dynamic.clientId)).toBeNull()
        expect(await store().countDynamicClients()).toBe(before)
      })
    })

    describe("grants", () => {
      it("reads a grant back while active; null when unknown or expired", async () => {
        const grant = await grantIn()
        expect(await store().getGrant(grant.id)).toEqual(grant)
        const client = await grantIn({ userId: undefined, sessionKey: undefined, authTime: undefined })
        expect(await store().getGrant(client.id)).toEqual(client)
        const expired = await grantIn({ expiresAt: new Date(Date.now() - 1_000) })
        expect(await store().getGrant(expired.id)).toBeNull()
        expect(await store().getGrant(randomUUID())).toBeNull()
      })

      it("revokes a grant once: getGrant null, true then false, unknown false", async () => {
        const grant = await grantIn()
        expect(await store().revokeGrant(grant.id)).toBe(true)
        expect(await store().getGrant(grant.id)).toBeNull()
        expect(await store().revokeGrant(grant.id)).toBe(false)
        expect(await store().revokeGrant(randomUUID())).toBe(false)
      })

      it("lists a user's active grants oldest first, for one client or all", async () => {
        const userId = randomUUID()
        const a = await grantIn({ userId })
        const b = await grantIn({ userId })
        const c = await grantIn({ userId, clientId: a.clientId })
        await grantIn({ userId, expiresAt: new Date(Date.now() - 1_000) })
        const revoked = await grantIn({ userId })
        await store().revokeGrant(revoked.id)
        await grantIn()
        expect(await store().listGrants(userId)).toEqual([a, b, c])
        expect(await store().listGrants(userId, a.clientId)).toEqual([a, c])
        expect(await store().listGrants(randomUUID())).toEqual([])
      })

      it("revokes every grant of a user for one client, and counts them", async () => {
        const userId = randomUUID()
        const a = await grantIn({ userId })
        const b = await grantIn({ userId, clientId: a.clientId })
        const other = await grantIn({ userId })
        const someoneElse = await grantIn({ clientId: a.clientId })
        expect(await store().revokeGrantsOf(userId, a.clientId)).toBe(2)
        expect(await store().getGrant(a.id)).toBeNull()
        expect(await store().getGrant(b.id)).toBeNull()
        expect(await store().getGrant(other.id)).toEqual(other)
        expect(await store().getGrant(someoneElse.id)).toEqual(someoneElse)
        expect(await store().revokeGrantsOf(userId, a.clientId)).toBe(0)
      })

      it("revokes the grants made through one session (RP-initiated logout), and counts them", async () => {
        const sessionKey = randomUUID()
        const a = await grantIn({ sessionKey })
        const b = await grantIn({ sessionKey })
        const other = await grantIn()
        expect(await store().revokeGrantsOfSession(sessionKey)).toBe(2)
        expect(await store().getGrant(a.id)).toBeNull()
        expect(await store().getGrant(b.id)).toBeNull()
        expect(await store().getGrant(other.id)).toEqual(other)
        expect(await store().revokeGrantsOfSession(sessionKey)).toBe(0)
      })
    })

    describe("authorization codes", () => {
      it("hands a code out once: taken, then replayed, with the code both times", async () => {
        const code = makeCode(await grantIn())
        await store().saveCode(code)
        expect(await store().takeCode(code.codeHash)).toEqual({ status: "taken", code })
        expect(await store().takeCode(code.codeHash)).toEqual({ status: "replayed", code })
        expect(await store().takeCode(code.codeHash)).toEqual({ status: "replayed", code })
      })

      it("answers missing for an unknown code, an expired one, and a replay once the code has expired", async () => {
        const grant = await grantIn()
        expect(await store().takeCode(randomHash())).toEqual({ status: "missing" })
        const expired = makeCode(grant, { expiresAt: new Date(Date.now() - 1_000) })
        await store().saveCode(expired)
        expect(await store().takeCode(expired.codeHash)).toEqual({ status: "missing" })
        const short = makeCode(grant, { expiresAt: later(SHORT_MS) })
        await store().saveCode(short)
        expect((await store().takeCode(short.codeHash)).status).toBe("taken")
        expect(await eventually(() => store().takeCode(short.codeHash), (t) => t.status === "missing")).toEqual({ status: "missing" })
      })

      it("ends a revoked grant's codes: missing whether taken before or not", async () => {
        const grant = await grantIn()
        const unused = makeCode(grant)
        const used = makeCode(grant)
        await store().saveCode(unused)
        await store().saveCode(used)
        expect((await store().takeCode(used.codeHash)).status).toBe("taken")
        await store().revokeGrant(grant.id)
        expect(await store().takeCode(unused.codeHash)).toEqual({ status: "missing" })
        expect(await store().takeCode(used.codeHash)).toEqual({ status: "missing" })
      })

      it("of 50 concurrent takes of one code, exactly one is taken and the rest are replays", async () => {
        const code = makeCode(await grantIn())
        await store().saveCode(code)
        const takes = await Promise.all(Array.from({ length: 50 }, () => store().takeCode(code.codeHash)))
        const statuses = takes.map((t) => t.status)
        expect(count(statuses, "taken")).toBe(1)
        expect(count(statuses, "replayed")).toBe(49)
      })
    })

    describe("refresh tokens", () => {
      it("rotates a current token: rotated with the previous one, the next saved and current, the old one no longer current", async () => {
        const grant = await grantIn()
        const token = makeRefreshToken(grant)
        await store().saveRefreshToken(token)
        expect(await store().getRefreshToken(token.tokenHash)).toEqual(token)
        const next = makeRefreshToken(grant)
        expect(await store().rotateRefreshToken(token.tokenHash, next)).toEqual({ status: "rotated", previous: token })
        expect(await store().getRefreshToken(next.tokenHash)).toEqual(next)
        expect(await store().getRefreshToken(token.tokenHash)).toBeNull()
        expect(await store().getGrant(grant.id)).toEqual(grant)
      })

      it("sees a rotated token presented again as reuse, and revokes the whole family with its grant", async () => {
        const grant = await grantIn()
        const token = makeRefreshToken(grant)
        await store().saveRefreshToken(token)
        const next = makeRefreshToken(grant)
        await store().rotateRefreshToken(token.tokenHash, next)
        expect(await store().rotateRefreshToken(token.tokenHash, makeRefreshToken(grant))).toEqual({ status: "reused", previous: token })
        expect(await store().getGrant(grant.id)).toBeNull()
        expect(await store().getRefreshToken(next.tokenHash)).toBeNull()
        expect(await store().rotateRefreshToken(next.tokenHash, makeRefreshToken(grant))).toEqual({ status: "missing" })
        // The reused token itself, again: the family is gone, nothing left to revoke.
        expect(await store().rotateRefreshToken(token.tokenHash, makeRefreshToken(grant))).toEqual({ status: "missing" })
      })

      it("answers missing for an unknown token, an expired one, and one of a revoked grant — and saves no next token then", async () => {
        const grant = await grantIn()
        const next = makeRefreshToken(grant)
        expect(await store().rotateRefreshToken(randomHash(), next)).toEqual({ status: "missing" })
        const expired = makeRefreshToken(grant, { expiresAt: new Date(Date.now() - 1_000) })
        await store().saveRefreshToken(expired)
        expect(await store().rotateRefreshToken(expired.tokenHash, next)).toEqual({ status: "missing" })
        expect(await store().getRefreshToken(expired.tokenHash)).toBeNull()
        const token = makeRefreshToken(grant)
        await store().saveRefreshToken(token)
        await store().revokeGrant(grant.id)
        expect(await store().getRefreshToken(token.tokenHash)).toBeNull()
        expect(await store().rotateRefreshToken(token.tokenHash, next)).toEqual({ status: "missing" })
        expect(await store().getRefreshToken(next.tokenHash)).toBeNull()
      })

      it("ends a token whose grant expired", async () => {
        const grant = await grantIn({ expiresAt: later(SHORT_MS) })
        const token = makeRefreshToken(grant)
        await store().saveRefreshToken(token)
        expect(await eventually(() => store().getRefreshToken(token.tokenHash), (t) => t === null)).toBeNull()
        expect(await store().rotateRefreshToken(token.tokenHash, makeRefreshToken(grant))).toEqual({ status: "missing" })
      })

      it("of 50 concurrent rotations of one token, exactly one rotates; the others are reuse or missing, and the family ends", async () => {
        const grant = await grantIn()
        const token = makeRefreshToken(grant)
        await store().saveRefreshToken(token)
        const nexts = Array.from({ length: 50 }, () => makeRefreshToken(grant))
        const outcomes = await Promise.all(nexts.map((next) => store().rotateRefreshToken(token.tokenHash, next)))
        const statuses = outcomes.map((o) => o.status)
        expect(count(statuses, "rotated")).toBe(1)
        expect(count(statuses, "reused")).toBeGreaterThanOrEqual(1)
        expect(count(statuses, "reused") + count(statuses, "missing")).toBe(49)
        // A reuse among them revoked the grant: the winner's new token is dead too.
        const winner = nexts[statuses.indexOf("rotated")]!
        expect(await store().getRefreshToken(winner.tokenHash)).toBeNull()
        expect(await store().getGrant(grant.id)).toBeNull()
        for (const next of nexts) expect(await store().getRefreshToken(next.tokenHash)).toBeNull()
      })
    })

    describe("access-token revocation", () => {
      it("remembers a revoked jti until its expiry, and nothing else", async () => {
        const jti = randomUUID()
        expect(await store().accessTokenRevoked(jti)).toBe(false)
        await store().revokeAccessToken(jti, later())
        expect(await store().accessTokenRevoked(jti)).toBe(true)
        // Twice is fine.
        await store().revokeAccessToken(jti, later())
        expect(await store().accessTokenRevoked(jti)).toBe(true)
        expect(await store().accessTokenRevoked(randomUUID())).toBe(false)
        const past = randomUUID()
        await store().revokeAccessToken(past, new Date(Date.now() - 1_000))
        expect(await store().accessTokenRevoked(past)).toBe(false)
        const short = randomUUID()
        await store().revokeAccessToken(short, later(SHORT_MS))
        expect(await eventually(() => store().accessTokenRevoked(short), (revoked) => !revoked)).toBe(false)
      })
    })

    describe("single use (useOnce)", () => {
      it("answers true once, then false until the mark expires", async () => {
        const key = `jti:${randomHash()}`
        expect(await store().useOnce(key, later())).toBe(true)
        expect(await store().useOnce(key, later())).toBe(false)
        expect(await store().useOnce(`jti:${randomHash()}`, later())).toBe(true)
      })
      it("of 50 concurrent first uses of one key, exactly one is true", async () => {
        const key = `jti:${randomHash()}`
        const answers = await Promise.all(Array.from({ length: 50 }, () => store().useOnce(key, later())))
        expect(count(answers, true)).toBe(1)
      })
      it("is usable again once the mark expired, and then once only", async () => {
        const key = `jti:${randomHash()}`
        expect(await store().useOnce(key, later(SHORT_MS))).toBe(true)
        expect(await eventually(() => store().useOnce(key, later()), (fresh) => fresh)).toBe(true)
        const answers = await Promise.all(Array.from({ length: 10 }, () => store().useOnce(key, later())))
        expect(count(answers, true)).toBe(0)
      })
    })

    describe("consents", () => {
      it("creates a consent, then adds scopes and resources to it (a union), keeping when it began", async () => {
        const userId = randomUUID()
        const clientId = randomUUID()
        const first: Consent = { userId, clientId, scope: "openid profile", resources: ["https://a.example/"], createdAt: tick(), updatedAt: tick() }
        await store().saveConsent(first)
        expect(await store().getConsent(userId, clientId)).toEqual(first)
        const updatedAt = tick()
        await store().saveConsent({ userId, clientId, scope: "profile email", resources: ["https://b.example/", "https://a.example/"], createdAt: tick(), updatedAt })
        const merged = (await store().getConsent(userId, clientId))!
        expect(merged.scope.split(" ").sort()).toEqual(["email", "openid", "profile"])
        expect([...merged.resources].sort()).toEqual(["https://a.example/", "https://b.example/"])
        expect(merged.createdAt).toEqual(first.createdAt)
        expect(merged.updatedAt).toEqual(updatedAt)
        expect(await store().getConsent(userId, randomUUID())).toBeNull()
      })

      it("keeps every scope of 20 concurrent saves", async () => {
        const userId = randomUUID()
        const clientId = randomUUID()
        const scopes = Array.from({ length: 20 }, (_, n) => `s${n}`)
        await Promise.all(scopes.map((scope) => store().saveConsent({ userId, clientId, scope, resources: [], createdAt: tick(), updatedAt: tick() })))
        expect((await store().getConsent(userId, clientId))!.scope.split(" ").sort()).toEqual([...scopes].sort())
      })

      it("lists a user's consents", async () => {
        const userId = randomUUID()
        const a: Consent = { userId, clientId: randomUUID(), scope: "openid", resources: [], createdAt: tick(), updatedAt: tick() }
        const b: Consent = { ...a, clientId: randomUUID(), createdAt: tick(), updatedAt: tick() }
        await store().saveConsent(b)
        await store().saveConsent(a)
        expect(await store().listConsents(userId)).toEqual([a, b])
        expect(await store().listConsents(randomUUID())).toEqual([])
      })

      it("forgets a consent and revokes the user's grants for that client only; false when there was none", async () => {
        const userId = randomUUID()
        const clientId = randomUUID()
        await store().saveConsent({ userId, clientId, scope: "openid", resources: [], createdAt: tick(), updatedAt: tick() })
        const grant = await grantIn({ userId, clientId })
        const otherClient = await grantIn({ userId })
        const otherUser = await grantIn({ clientId })
        const token = makeRefreshToken(grant)
        await store().saveRefreshToken(token)
        expect(await store().revokeConsent(userId, clientId)).toBe(true)
        expect(await store().getConsent(userId, clientId)).toBeNull()
        expect(await store().getGrant(grant.id)).toBeNull()
        expect(await store().getRefreshToken(token.tokenHash)).toBeNull()
        expect(await store().getGrant(otherClient.id)).toEqual(otherClient)
        expect(await store().getGrant(otherUser.id)).toEqual(otherUser)
        expect(await store().revokeConsent(userId, clientId)).toBe(false)
      })
    })

    describe("device authorization", () => {
      it("finds a pending request by its user code, and only while pending and unexpired", async () => {
        const device = makeDevice()
        await store().createDevice(device)
        expect(await store().findDeviceByUserCode(device.userCode)).toEqual(device)
        expect(await store().findDeviceByUserCode("NOSUCHCD")).toBeNull()
        const short = makeDevice({ expiresAt: later(SHORT_MS) })
        await store().createDevice(short)
        expect(await eventually(() => store().findDeviceByUserCode(short.userCode), (d) => d === null)).toBeNull()
        expect(await store().decideDevice(device.userCode, { status: "denied" })).toBe(true)
        expect(await store().findDeviceByUserCode(device.userCode)).toBeNull()
      })

      it("lets a new request take the user code of an expired one", async () => {
        const old = makeDevice({ expiresAt: later(SHORT_MS) })
        await store().createDevice(old)
        await eventually(() => store().findDeviceByUserCode(old.userCode), (d) => d === null)
        const fresh = makeDevice({ userCode: old.userCode })
        await store().createDevice(fresh)
        expect(await store().findDeviceByUserCode(old.userCode)).toEqual(fresh)
        expect(await store().pollDevice(old.deviceCodeHash, new Date())).toEqual({ status: "missing" })
      })

      it("decides a request once; not an expired or unknown one", async () => {
        const device = makeDevice()
        await store().createDevice(device)
        const grantId = randomUUID()
        expect(await store().decideDevice(device.userCode, { status: "approved", userId: "u1", authTime: 1_700_000_000, grantId })).toBe(true)
        expect(await store().decideDevice(device.userCode, { status: "denied" })).toBe(false)
        expect(await store().decideDevice("NOSUCHCD", { status: "denied" })).toBe(false)
        const expired = makeDevice({ expiresAt: later(SHORT_MS) })
        await store().createDevice(expired)
        await eventually(() => store().findDeviceByUserCode(expired.userCode), (d) => d === null)
        expect(await store().decideDevice(expired.userCode, { status: "denied" })).toBe(false)
      })

      it("of 50 concurrent decisions on one request, exactly one is made", async () => {
        const device = makeDevice()
        await store().createDevice(device)
        const decisions = await Promise.all(Array.from({ length: 50 }, (_, n) =>
          store().decideDevice(device.userCode, n % 2 ? { status: "denied" } : { status: "approved", userId: `u${n}`, grantId: randomUUID() })))
        expect(count(decisions, true)).toBe(1)
      })

      it("answers a poll too soon after the last with slow_down, and adds 5 s to the interval each time", async () => {
        const device = makeDevice({ interval: 5 })
        await store().createDevice(device)
        const t0 = Date.now()
        const at = (s: number) => new Date(t0 + s * 1_000)
        expect(await store().pollDevice(device.deviceCodeHash, at(0))).toEqual({ status: "pending" })
        expect(await store().pollDevice(device.deviceCodeHash, at(6))).toEqual({ status: "pending" })
        expect(await store().pollDevice(device.deviceCodeHash, at(7))).toEqual({ status: "slow_down" })
        // Now every 10 s: 8 s later is still too soon, and makes it 15 s.
        expect(await store().pollDevice(device.deviceCodeHash, at(15))).toEqual({ status: "slow_down" })
        expect(await store().pollDevice(device.deviceCodeHash, at(29))).toEqual({ status: "slow_down" })
        expect(await store().pollDevice(device.deviceCodeHash, at(49))).toEqual({ status: "pending" })
      })

      it("hands an approval out once, with the decision; later polls are missing", async () => {
        const device = makeDevice()
        await store().createDevice(device)
        const grantId = randomUUID()
        await store().decideDevice(device.userCode, { status: "approved", userId: "u1", authTime: 1_700_000_000, grantId })
        const poll = await store().pollDevice(device.deviceCodeHash, new Date())
        expect(poll.status).toBe("approved")
        const handed = (poll as { device: DeviceAuthorization }).device
        expect(handed).toMatchObject({ deviceCodeHash: device.deviceCodeHash, userCode: device.userCode, clientId: device.clientId, scope: device.scope, resources: device.resources, status: "approved", userId: "u1", authTime: 1_700_000_000, grantId })
        expect(handed.expiresAt).toEqual(device.expiresAt)
        expect(await store().pollDevice(device.deviceCodeHash, new Date(Date.now() + 60_000))).toEqual({ status: "missing" })
      })

      it("of 50 concurrent polls of an approved request, exactly one gets the approval", async () => {
        const device = makeDevice()
        await store().createDevice(device)
        await store().decideDevice(device.userCode, { status: "approved", userId: "u1", grantId: randomUUID() })
        const polls = await Promise.all(Array.from({ length: 50 }, () => store().pollDevice(device.deviceCodeHash, new Date())))
        expect(count(polls.map((p) => p.status), "approved")).toBe(1)
        expect(count(polls.map((p) => p.status), "missing")).toBe(49)
      })

      it("answers denied for a denied request, missing for an expired or unknown one", async () => {
        const device = makeDevice()
        await store().createDevice(device)
        await store().decideDevice(device.userCode, { status: "denied" })
        expect(await store().pollDevice(device.deviceCodeHash, new Date())).toEqual({ status: "denied" })
        const pending = makeDevice()
        await store().createDevice(pending)
        expect(await store().pollDevice(pending.deviceCodeHash, new Date(pending.expiresAt.getTime() + 1_000))).toEqual({ status: "missing" })
        expect(await store().pollDevice(randomHash(), new Date())).toEqual({ status: "missing" })
      })
    })

    describe("interactions", () => {
      it("reads an interaction without taking it, takes it once", async () => {
        const id = randomUUID()
        const value = JSON.stringify({ clientId: "c", redirectUri: "https://app.example.com/cb?x=1&y=ü" })
        await store().putInteraction(id, value, later())
        expect(await store().getInteraction(id)).toBe(value)
        expect(await store().getInteraction(id)).toBe(value)
        expect(await store().takeInteraction(id)).toBe(value)
        expect(await store().takeInteraction(id)).toBeNull()
        expect(await store().getInteraction(id)).toBeNull()
        expect(await store().takeInteraction(randomUUID())).toBeNull()
      })

      it("forgets an interaction when it expires", async () => {
        const id = randomUUID()
        await store().putInteraction(id, "v", later(SHORT_MS))
        expect(await eventually(() => store().getInteraction(id), (v) => v === null)).toBeNull()
        expect(await store().takeInteraction(id)).toBeNull()
      })

      it("of 50 concurrent takes of one interaction, exactly one gets the value", async () => {
        const id = randomUUID()
        await store().putInteraction(id, "the request", later())
        const takes = await Promise.all(Array.from({ length: 50 }, () => store().takeInteraction(id)))
        expect(count(takes, "the request")).toBe(1)
        expect(count(takes, null)).toBe(49)
      })
    })

    describe("signing keys", () => {
      it("adds keys, lists them oldest first, and sets retiredAt and expiresAt", async () => {
        const before = (await store().listSigningKeys()).map((k) => k.kid)
        const first = makeSigningKey()
        const second = makeSigningKey({ alg: "RS256", publicJwk: { kty: "RSA", n: "n", e: "AQAB" } })
        await store().addSigningKey(first)
        await store().addSigningKey(second)
        const mine = async () => (await store().listSigningKeys()).filter((k) => !before.includes(k.kid))
        expect(await mine()).toEqual([first, second])
        const retiredAt = tick()
        const expiresAt = later()
        await store().updateSigningKey(first.kid, { retiredAt, expiresAt })
        expect(await mine()).toEqual([{ ...first, retiredAt, expiresAt }, second])
        // Removing is an expiresAt in the past.
        await store().updateSigningKey(first.kid, { expiresAt: new Date(Date.now() - 1_000) })
        expect(await mine()).toEqual([second])
        // An unknown kid changes nothing.
        await store().updateSigningKey(randomUUID(), { retiredAt })
        expect(await mine()).toEqual([second])
      })

      it("keeps both of two keys added at once", async () => {
        const [a, b] = [makeSigningKey(), makeSigningKey()]
        await Promise.all([store().addSigningKey(a), store().addSigningKey(b)])
        const kids = (await store().listSigningKeys()).map((k) => k.kid)
        expect(kids).toContain(a.kid)
        expect(kids).toContain(b.kid)
      })
    })
  })
}
