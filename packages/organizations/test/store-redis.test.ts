import { createHash, randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { organizationRedisKeys, STALE_CLAIM_MS } from "@portcullis/organizations/redis"
import { makeInvitation, makeOrganization, runOrganizationStoreTests } from "@portcullis/organizations/testing"
import { run } from "../src/redis/scripts.js"
import { openRedisStore, redisGate } from "./redis-harness.js"

redisGate.describe("Redis", () => {
  runOrganizationStoreTests("redisOrganizationStore", openRedisStore)

  describe("redisOrganizationStore: keys and cut-off sequences", () => {
    let harness: Awaited<ReturnType<typeof openRedisStore>>
    beforeAll(async () => {
      harness = await openRedisStore()
    })
    afterAll(() => harness?.close())
    const owner = (organizationId: string) => ({ organizationId, userId: randomUUID(), role: "owner", createdAt: new Date() })

    it("keeps an organization's own keys under one hash tag, so one Cluster slot", async () => {
      const organization = makeOrganization()
      await harness.store.createOrganization(organization, owner(organization.id))
      await harness.store.createInvitation(makeInvitation(organization))
      const keys: string[] = []
      for await (const batch of harness.client.scanStream({ match: `${harness.prefix}{org:*`, count: 500 })) keys.push(...(batch as string[]))
      const own = keys.filter((key) => key.includes(organization.id))
      expect(own.length).toBeGreaterThanOrEqual(5)
      expect(new Set(own.map((key) => /\{[^}]*\}/.exec(key)![0]))).toEqual(new Set([`{org:${organization.id}}`]))
    })

    it("ignores a slug claim whose organization was never written, and takes it over once stale", async () => {
      const keys = organizationRedisKeys(harness.prefix)
      const slug = `cut-${randomUUID().slice(0, 8)}`
      // A creation cut off after its claim: the claim is there, the organization is not.
      await harness.client.set(keys.slug(slug), JSON.stringify({ id: randomUUID(), at: Date.now() }))
      expect(await harness.store.getOrganizationBySlug(slug)).toBeNull()
      const fresh = makeOrganization({ slug })
      // A fresh claim may be a creation in flight: it is respected.
      expect(await harness.store.createOrganization(fresh, owner(fresh.id))).toBe(false)
      await harness.client.set(keys.slug(slug), JSON.stringify({ id: randomUUID(), at: Date.now() - STALE_CLAIM_MS - 1 }))
      expect(await harness.store.createOrganization(fresh, owner(fresh.id))).toBe(true)
      expect(await harness.store.getOrganizationBySlug(slug)).toEqual(fresh)
    })

    it("ignores a user index entry without its membership (an accept that failed)", async () => {
      const organization = makeOrganization()
      await harness.store.createOrganization(organization, owner(organization.id))
      const userId = randomUUID()
      await harness.client.sadd(organizationRedisKeys(harness.prefix).userOrganizations(userId), organization.id, randomUUID())
      expect(await harness.store.listOrganizations(userId)).toEqual([])
    })

    it("ignores an active mark whose organization was deleted", async () => {
      const organization = makeOrganization()
      await harness.store.createOrganization(organization, owner(organization.id))
      const sessionKey = randomUUID()
      await harness.store.setActiveOrganization(sessionKey, organization.id, new Date(Date.now() + 60_000))
      await harness.store.deleteOrganization(organization.id)
      expect(await harness.store.getActiveOrganization(sessionKey)).toBeNull()
    })

    it("runs a script the server does not know yet (a restarted or failed-over server) by sending it", async () => {
      // A source no server has seen: EVALSHA answers NOSCRIPT, and the script is sent whole.
      const script = { source: `return ARGV[1] -- ${randomUUID()}`, sha: "" }
      script.sha = createHash("sha1").update(script.source).digest("hex")
      expect(await run(harness.client, script, [], ["sent"])).toBe("sent")
      expect(await run(harness.client, script, [], ["cached"])).toBe("cached")
    })
  })
})
