// A store whose backend fails — a closed pool, a database or Redis that does not answer —
// rejects every call. It never resolves with an answer it did not get from the backend: a
// `takeCode` that could not redeem must not say "taken" nor "missing", a rotation must not
// say "rotated", a revocation must not say "none".
import { describe, expect, it } from "vitest"
import type { OidcProviderStore } from "@portcullis/oidc-provider"
import { createPostgresKysely } from "@portcullis/sql-adapter"
import { redisOidcProviderStore } from "@portcullis/oidc-provider/redis"
import { sqlOidcProviderStore } from "@portcullis/oidc-provider/sql"
import { makeClient, makeCode, makeDevice, makeGrant, makeRefreshToken, makeSigningKey, randomHash } from "@portcullis/oidc-provider/testing"
import { connectRedis, openSqlStore, postgresBackend, postgresGate, sqliteBackend } from "./store-harness.js"

const later = () => new Date(Date.now() + 60_000)

/** One call of every method, by name. */
function everyCall(store: OidcProviderStore): Array<[string, () => Promise<unknown>]> {
  const grant = makeGrant()
  const device = makeDevice()
  return [
    ["createClient", () => store.createClient(makeClient())],
    ["getClient", () => store.getClient("c1")],
    ["deleteClient", () => store.deleteClient("c1")],
    ["countDynamicClients", () => store.countDynamicClients()],
    ["createGrant", () => store.createGrant(grant)],
    ["getGrant", () => store.getGrant(grant.id)],
    ["revokeGrant", () => store.revokeGrant(grant.id)],
    ["listGrants", () => store.listGrants("u1")],
    ["revokeGrantsOf", () => store.revokeGrantsOf("u1", "c1")],
    ["revokeGrantsOfSession", () => store.revokeGrantsOfSession("s1")],
    ["saveCode", () => store.saveCode(makeCode(grant))],
    ["takeCode", () => store.takeCode(randomHash())],
    ["saveRefreshToken", () => store.saveRefreshToken(makeRefreshToken(grant))],
    ["rotateRefreshToken", () => store.rotateRefreshToken(randomHash(), makeRefreshToken(grant))],
    ["getRefreshToken", () => store.getRefreshToken(randomHash())],
    ["revokeAccessToken", () => store.revokeAccessToken("j1", later())],
    ["accessTokenRevoked", () => store.accessTokenRevoked("j1")],
    ["saveConsent", () => store.saveConsent({ userId: "u1", clientId: "c1", scope: "openid", resources: [], createdAt: new Date(), updatedAt: new Date() })],
    ["getConsent", () => store.getConsent("u1", "c1")],
    ["listConsents", () => store.listConsents("u1")],
    ["revokeConsent", () => store.revokeConsent("u1", "c1")],
    ["createDevice", () => store.createDevice(device)],
    ["findDeviceByUserCode", () => store.findDeviceByUserCode(device.userCode)],
    ["decideDevice", () => store.decideDevice(device.userCode, { status: "denied" })],
    ["pollDevice", () => store.pollDevice(device.deviceCodeHash, new Date())],
    ["putInteraction", () => store.putInteraction("i1", "v", later())],
    ["takeInteraction", () => store.takeInteraction("i1")],
    ["getInteraction", () => store.getInteraction("i1")],
    ["listSigningKeys", () => store.listSigningKeys()],
    ["addSigningKey", () => store.addSigningKey(makeSigningKey())],
    ["updateSigningKey", () => store.updateSigningKey("k1", { retiredAt: new Date() })],
  ]
}

function rejectsEverything(label: string, open: () => Promise<{ store: OidcProviderStore; close(): Promise<unknown> }>) {
  describe(label, () => {
    it("rejects every call, and resolves none", async () => {
      const { store, close } = await open()
      try {
        const settled = await Promise.all(everyCall(store).map(async ([name, call]) => {
          try {
            return { name, resolved: await call() }
          } catch (error) {
            return { name, error }
          }
        }))
        expect(settled.filter((s) => "resolved" in s).map((s) => s.name)).toEqual([])
        for (const outcome of settled) expect((outcome as { error: unknown }).error).toBeInstanceOf(Error)
      } finally {
        await close()
      }
    }, 60_000)
  })
}

describe("a failing backend", () => {
  rejectsEverything("SQLite: a Kysely instance already destroyed", async () => {
    const harness = await openSqlStore(sqliteBackend())
    await harness.db.destroy()
    return { store: harness.store, close: async () => {} }
  })

  postgresGate.describe("PostgreSQL", () => {
    rejectsEverything("PostgreSQL: a closed pool", async () => {
      const harness = await openSqlStore(postgresBackend())
      const store = harness.store
      // The schema goes with the pool; the store keeps its reference to the closed one.
      await harness.cleanup()
      return { store, close: async () => {} }
    })
  })

  rejectsEverything("PostgreSQL: nothing listening on the port", async () => {
    const db = createPostgresKysely("postgres://postgres@127.0.0.1:1/test", { pool: { connectTimeoutMs: 1_000 } })
    return { store: sqlOidcProviderStore(db), close: () => db.destroy() }
  })

  rejectsEverything("Redis: a client pointed at a dead port", async () => {
    const client = connectRedis("redis://127.0.0.1:1")
    return { store: redisOidcProviderStore(client, { prefix: "dead:" }), close: async () => client.disconnect() }
  })
})

describe("a backend lost mid-life", () => {
  it("SQLite: a rotation whose connection is gone rejects, and the token is still current on a new connection", async () => {
    const backend = sqliteBackend()
    const harness = await openSqlStore(backend)
    const grant = makeGrant()
    await harness.store.createGrant(grant)
    const token = makeRefreshToken(grant)
    await harness.store.saveRefreshToken(token)
    await harness.db.destroy()
    await expect(harness.store.rotateRefreshToken(token.tokenHash, makeRefreshToken(grant))).rejects.toThrow()
    const db = backend.connect()
    try {
      const again = sqlOidcProviderStore(db, { tablePrefix: harness.tablePrefix })
      expect(await again.getRefreshToken(token.tokenHash)).toEqual(token)
    } finally {
      await db.destroy()
      await backend.cleanup?.()
    }
  })
})
