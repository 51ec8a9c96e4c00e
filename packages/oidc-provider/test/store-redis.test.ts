import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { oidcProviderRedisKeys } from "@portcullis/oidc-provider/redis"
import { makeClient, makeCode, makeDevice, makeGrant, makeRefreshToken, makeSigningKey, oidcProviderStoreConformance } from "@portcullis/oidc-provider/testing"
import { openRedisStore, redisGate } from "./store-harness.js"

/** The hash tag of a key (what Cluster hashes), or the whole key when it has none. */
const tagOf = (key: string) => /\{[^}]*\}/.exec(key)?.[0] ?? key

redisGate.describe("Redis", () => {
  oidcProviderStoreConformance("redisOidcProviderStore", openRedisStore)

  describe("redisOidcProviderStore: keys", () => {
    let harness: Awaited<ReturnType<typeof openRedisStore>>
    beforeAll(async () => {
      harness = await openRedisStore()
    })
    afterAll(() => harness?.cleanup())

    async function allKeys(): Promise<string[]> {
      const keys: string[] = []
      for await (const batch of harness.client.scanStream({ match: `${harness.prefix}*`, count: 500 })) keys.push(...(batch as string[]))
      return keys
    }

    it("keeps a grant family — grant, codes, refresh tokens, indexes, consents, devices — under one hash tag, so one Cluster slot", async () => {
      const grant = makeGrant()
      await harness.store.createGrant(grant)
      await harness.store.saveCode(makeCode(grant))
      await harness.store.saveRefreshToken(makeRefreshToken(grant))
      await harness.store.saveConsent({ userId: grant.userId!, clientId: grant.clientId, scope: "openid", resources: [], createdAt: new Date(), updatedAt: new Date() })
      await harness.store.createDevice(makeDevice())
      const keys = await allKeys()
      const family = keys.filter((key) => !key.includes("{op:clients}") && !key.includes("{op:keys}") && !key.includes(":interaction:") && !key.includes(":revoked-jti:"))
      expect(family.length).toBeGreaterThanOrEqual(8)
      expect(new Set(family.map(tagOf))).toEqual(new Set(["{op:grants}"]))
    })

    it("keeps a client with its dynamic index, and the signing keys with theirs, each under one tag", async () => {
      await harness.store.createClient(makeClient())
      await harness.store.addSigningKey(makeSigningKey())
      const keys = await allKeys()
      expect(new Set(keys.filter((key) => key.includes("{op:clients}")).map(tagOf))).toEqual(new Set(["{op:clients}"]))
      expect(keys.filter((key) => key.includes("{op:keys}")).length).toBeGreaterThanOrEqual(2)
    })

    it("encodes free-form parts, so an id cannot close the tag or reach another user's keys", () => {
      const keys = oidcProviderRedisKeys("p:")
      expect(tagOf(keys.grant("a}b"))).toBe("{op:grants}")
      expect(keys.grant("a}b")).toBe("p:{op:grants}:grant:a%7Db")
      expect(keys.consent("u:x", "c")).not.toBe(keys.consent("u", "x:c"))
    })

    it("puts a TTL from expiresAt on everything that expires", async () => {
      const keys = oidcProviderRedisKeys(harness.prefix)
      const expiresAt = new Date(Date.now() + 60_000)
      const grant = makeGrant({ expiresAt })
      await harness.store.createGrant(grant)
      const code = makeCode(grant, { expiresAt })
      await harness.store.saveCode(code)
      const token = makeRefreshToken(grant, { expiresAt })
      await harness.store.saveRefreshToken(token)
      const device = makeDevice({ expiresAt })
      await harness.store.createDevice(device)
      const interaction = randomUUID()
      await harness.store.putInteraction(interaction, "v", expiresAt)
      const jti = randomUUID()
      await harness.store.revokeAccessToken(jti, expiresAt)
      const signing = makeSigningKey()
      await harness.store.addSigningKey(signing)
      await harness.store.updateSigningKey(signing.kid, { expiresAt })
      for (const key of [
        keys.grant(grant.id), keys.userGrants(grant.userId!), keys.sessionGrants(grant.sessionKey!), keys.code(code.codeHash),
        keys.refreshToken(token.tokenHash), keys.device(device.deviceCodeHash), keys.userCode(device.userCode), keys.interaction(interaction),
        keys.revokedAccessToken(jti), keys.signingKey(signing.kid),
      ]) {
        const ttl = await harness.client.pttl(key)
        expect(ttl, key).toBeGreaterThan(50_000)
        expect(ttl, key).toBeLessThanOrEqual(60_000)
      }
    })

    it("keeps a rotated token until it expires, so presenting it again is still seen as reuse", async () => {
      const keys = oidcProviderRedisKeys(harness.prefix)
      const grant = makeGrant()
      await harness.store.createGrant(grant)
      const token = makeRefreshToken(grant)
      await harness.store.saveRefreshToken(token)
      await harness.store.rotateRefreshToken(token.tokenHash, makeRefreshToken(grant))
      expect(await harness.client.hget(keys.refreshToken(token.tokenHash), "rotated")).toBe("1")
      expect(await harness.client.pttl(keys.refreshToken(token.tokenHash))).toBeGreaterThan(0)
    })
  })
})
