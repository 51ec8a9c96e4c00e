// The Redis adapter's suites, parametrised by the client they run on: redis-adapter.test.ts
// runs them on one Redis server, cluster.test.ts on a Redis Cluster. Not a test file itself.
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Cluster, Redis } from "ioredis"
import {
  daysFromNow, makeAccount, makeAuthenticator, makeSession, makeUser, makeVerificationToken,
  runAdapterConformance, runSessionRegistryConformance,
} from "@portcullis/adapter-test"
import { deleteKeys, listKeys } from "@portcullis/adapter-test/redis"
import { RedisAdapter, redisKeys, RedisSessionRegistry } from "@portcullis/redis-adapter"

/** What the suites run on: a not yet connected client, and a key prefix per suite. */
export interface RedisTarget {
  connect: () => Redis | Cluster
  /** A fresh prefix for one suite (on a cluster, with a hash tag). */
  prefix: () => string
}

/** A client and a random key prefix per suite; teardown deletes every key under it. */
export function testRedis(target: RedisTarget) {
  const prefix = target.prefix()
  const state = { client: undefined as Redis | Cluster | undefined }
  const client = () => state.client ?? (state.client = target.connect())
  return {
    prefix,
    keys: redisKeys(prefix),
    client,
    storedKeys: () => listKeys(client(), prefix),
    async open() {
      await client().connect()
    },
    async close() {
      await deleteKeys(client(), prefix)
      await client().quit()
    },
  }
}

/** The adapter conformance suite, the session registry's, and the storage layout checks. */
export function runRedisSuites(target: RedisTarget): void {
  const conformance = testRedis(target)
  const k = conformance.keys
  runAdapterConformance("RedisAdapter", {
    setup: () => conformance.open(),
    adapter: () => RedisAdapter(conformance.client(), { prefix: conformance.prefix }),
    teardown: () => conformance.close(),
    tokenRefresh: true,
    passwords: true,
    twoFactor: true,
    auditTrail: true,
    db: {
      user: (id) => conformance.client().get(k.user(id)),
      account: (provider, providerAccountId) => conformance.client().get(k.account(provider, providerAccountId)),
      session: (token) => conformance.client().get(k.session(token)),
      verificationToken: (identifier, token) => conformance.client().get(k.verificationToken(identifier, token)),
      authenticator: (credentialID) => conformance.client().get(k.authenticator(credentialID)),
    },
  })

  describe("RedisSessionRegistry", () => {
    // The registry needs no hash tag (one key per command): untagged, so users spread over a cluster.
    const redis = testRedis({ ...target, prefix: () => `portcullis-test-registry:${randomBytes(4).toString("hex")}:` })
    beforeAll(() => redis.open())
    afterAll(() => redis.close())
    runSessionRegistryConformance("RedisSessionRegistry", { registry: () => new RedisSessionRegistry(redis.client(), { prefix: redis.prefix }) })

    it("keeps a user's registry key alive until the last of their sessions expires, and no longer", async () => {
      const registry = new RedisSessionRegistry(redis.client(), { prefix: redis.prefix })
      const userId = `user-${crypto.randomUUID()}`
      const expires = daysFromNow(2)
      await registry.add({ id: randomBytes(16).toString("hex"), userId, createdAt: new Date(), lastSeenAt: new Date(), expires })
      const ttl = await redis.client().pttl(redis.keys.sessionRegistry(userId))
      expect(ttl).toBeGreaterThan(0)
      expect(ttl).toBeLessThanOrEqual(expires.getTime() - Date.now() + 1000)
    })
  })

  describe("RedisAdapter storage", () => {
    const redis = testRedis(target)
    const adapter = () => RedisAdapter(redis.client(), { prefix: redis.prefix }) as Required<ReturnType<typeof RedisAdapter>>
    beforeAll(() => redis.open())
    afterAll(() => redis.close())

    it("gives a session key a TTL that ends at expires", async () => {
      const user = await adapter().createUser(makeUser())
      const session = await adapter().createSession(makeSession(user.id, { expires: daysFromNow(2) }))
      expect(await redis.client().pexpiretime(redis.keys.session(session.sessionToken))).toBe(session.expires.getTime())

      const expires = daysFromNow(5)
      await adapter().updateSession({ sessionToken: session.sessionToken, expires })
      expect(await redis.client().pexpiretime(redis.keys.session(session.sessionToken))).toBe(expires.getTime())
    })

    it("gives a verification token key a TTL that ends at expires", async () => {
      const token = makeVerificationToken()
      await adapter().createVerificationToken(token)
      const key = redis.keys.verificationToken(token.identifier, token.token)
      expect(await redis.client().pexpiretime(key)).toBe(token.expires.getTime())
    })

    it("lets expired sessions vanish on their own: the key expires at the session's end, in Redis's clock", async () => {
      const user = await adapter().createUser(makeUser())
      // What the adapter computes is the absolute expiry (PXAT); Redis does the rest. A
      // session that ends in 5 s gets exactly that end, not a relative TTL that drifts.
      const soon = await adapter().createSession(makeSession(user.id, { expires: new Date(Date.now() + 5_000) }))
      expect(await redis.client().pexpiretime(redis.keys.session(soon.sessionToken))).toBe(soon.expires.getTime())
      // And an end already past is an expired key at once: nothing to read, nothing stored.
      const ended = await adapter().createSession(makeSession(user.id, { expires: new Date(Date.now() - 1_000) }))
      expect(await adapter().getSessionAndUser(ended.sessionToken)).toBeNull()
      expect(await redis.client().exists(redis.keys.session(ended.sessionToken))).toBe(0)
    })

    it("leaves no key behind that mentions a deleted user", async () => {
      const user = await adapter().createUser(makeUser())
      await adapter().linkAccount(makeAccount(user.id))
      await adapter().createSession(makeSession(user.id))
      await adapter().createAuthenticator(makeAuthenticator(user.id))
      await adapter().deleteUser(user.id)
      const keys = await redis.storedKeys()
      expect(keys.filter((key) => key.includes(user.id) || key.includes(encodeURIComponent(user.email)) || key.includes(user.email))).toEqual([])
    })
  })

  describe("RedisAdapter two-factor records and deleteUser", () => {
    const redis = testRedis(target)
    beforeAll(() => redis.open())
    afterAll(() => redis.close())

    it("refuses a record for a user that does not exist (as the SQL foreign key does), leaving no keys", async () => {
      const adapter = RedisAdapter(redis.client(), { prefix: redis.prefix })
      const userId = crypto.randomUUID()
      await expect(adapter.setTwoFactor!({ userId, secret: "sealed", enabled: true, lastUsedStep: null, backupCodes: ["h1"] })).rejects.toThrow(/no user/)
      expect(await redis.client().exists(redis.keys.twoFactor(userId), redis.keys.twoFactorCodes(userId))).toBe(0)
    })

    it("a record written while its user is deleted does not outlive the user", async () => {
      const adapter = RedisAdapter(redis.client(), { prefix: redis.prefix })
      for (let i = 0; i < 20; i++) {
        const user = await adapter.createUser!(makeUser())
        const record = { userId: user.id, secret: "sealed", enabled: true, lastUsedStep: 5, backupCodes: ["h1", "h2"] }
        await Promise.allSettled([adapter.setTwoFactor!(record), adapter.deleteUser!(user.id)])
        expect(await adapter.getTwoFactor!(user.id)).toBeNull()
      }
    })
  })
}
