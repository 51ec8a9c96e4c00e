import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ssoRedisKeys } from "@portcullis/sso/redis"
import { makeDomain, makeScimGroup, makeScimUser, ssoStoreConformance } from "@portcullis/sso/testing"
import { openRedisStore, redisGate } from "./redis-harness.js"

/** The hash tag of a key (what Cluster hashes), or the whole key when it has none. */
const tagOf = (key: string) => /\{[^}]*\}/.exec(key)?.[0] ?? key

redisGate.describe("Redis", () => {
  ssoStoreConformance("redisSsoStore", openRedisStore)

  describe("redisSsoStore: keys", () => {
    let harness: Awaited<ReturnType<typeof openRedisStore>>
    beforeAll(async () => {
      harness = await openRedisStore()
    })
    afterAll(() => harness?.cleanup())

    async function keysMatching(fragment: string): Promise<string[]> {
      const keys: string[] = []
      for await (const batch of harness.client.scanStream({ match: `${harness.prefix}*`, count: 500 })) keys.push(...(batch as string[]))
      return keys.filter((key) => key.includes(fragment))
    }

    it("keeps an organization's SCIM keys under one hash tag, so one Cluster slot", async () => {
      const organizationId = randomUUID()
      const user = makeScimUser(organizationId)
      await harness.store.createScimUser(user)
      await harness.store.createScimGroup(makeScimGroup(organizationId, { members: [user.id] }))
      const own = await keysMatching(organizationId)
      expect(own.length).toBeGreaterThanOrEqual(6)
      expect(new Set(own.map(tagOf))).toEqual(new Set([`{org:${organizationId}}`]))
    })

    it("keeps a domain's claims and its verified mark under one hash tag", async () => {
      const claim = makeDomain()
      await harness.store.claimDomain(claim)
      await harness.store.claimDomain(makeDomain({ domain: claim.domain }))
      await harness.store.verifyDomain(claim.domain, claim.organizationId, new Date())
      const own = await keysMatching(`{domain:${claim.domain}}`)
      expect(own).toHaveLength(3)
      expect(new Set(own.map(tagOf))).toEqual(new Set([`{domain:${claim.domain}}`]))
    })

    it("encodes a hash tag's free-form part, so an id cannot close the tag or reach another organization's keys", () => {
      const keys = ssoRedisKeys("p:")
      expect(tagOf(keys.organization("a}b").users)).toBe("{org:a%7Db}")
      expect(keys.organization("a:scim-users").users).not.toBe(keys.organization("a").users)
    })

    it("puts a TTL on everything that expires", async () => {
      const keys = ssoRedisKeys(harness.prefix)
      const expires = new Date(Date.now() + 60_000)
      const [once, kept, session] = [randomUUID(), randomUUID(), randomUUID()]
      const userId = randomUUID()
      const organizationId = randomUUID()
      await harness.store.useOnce("assertion", once, expires)
      await harness.store.put("request", kept, "v", expires)
      await harness.store.recordSession(session, userId, organizationId, expires)
      for (const key of [keys.once("assertion", once), keys.once("request", kept), keys.session(session), keys.userSessions(userId, organizationId)]) {
        const ttl = await harness.client.pttl(key)
        expect(ttl).toBeGreaterThan(50_000)
        expect(ttl).toBeLessThanOrEqual(60_000)
      }
    })

    it("ignores a token-hash pointer whose token is gone (a revocation cut off)", async () => {
      const keys = ssoRedisKeys(harness.prefix)
      const hash = "f".repeat(64)
      await harness.client.set(keys.tokenByHash(hash), randomUUID())
      expect(await harness.store.findScimToken(hash)).toBeNull()
    })
  })
})
