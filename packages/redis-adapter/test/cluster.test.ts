// The Redis stores on a Redis Cluster (scripts/redis-cluster.sh: three masters, one replica
// each): the adapter, registry and storage suites of test/suites.ts, the rate-limit store
// contract, the refresh lock, and what the cluster changes — hash-tagged prefixes, SCANs
// over every master, createRedisClient's cluster forms. With CI=true a missing cluster fails.
import { once } from "node:events"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Cluster } from "ioredis"
import { clusterNodes, makeSession, makeUser, makeVerificationToken, redisClusterAvailable, redisClusterService } from "@portcullis/adapter-test"
import { runRateLimitStoreContract } from "@portcullis/adapter-test/rate-limit"
import { connectRedisCluster, deleteKeys, randomKeyPrefix, randomTaggedPrefix } from "@portcullis/adapter-test/redis"
import { createRedisClient, RedisAdapter, redisClientProblems, redisKeys, redisRefreshLock, RedisReplicationError, RedisSessionRegistry } from "@portcullis/redis-adapter"
import { redisRateLimitStore } from "@portcullis/redis-adapter/rate-limit"
import { runRedisSuites } from "./suites.js"

const service = redisClusterService()
const gate = await redisClusterAvailable()

/** A connected cluster client for one describe, and its keys under `prefix` deleted afterwards. */
function clusterClient(prefix: string) {
  const state = { client: undefined as Cluster | undefined }
  beforeAll(async () => {
    state.client = connectRedisCluster(service.url)
    await state.client.connect()
  })
  afterAll(async () => {
    if (!state.client) return
    await deleteKeys(state.client, prefix)
    await state.client.quit()
  })
  return () => state.client!
}

/** The slot of each key, asked of the cluster itself. */
async function slots(client: Cluster, keys: string[]): Promise<Set<number>> {
  return new Set(await Promise.all(keys.map((key) => client.cluster("KEYSLOT", key) as Promise<number>)))
}

gate.describe("Redis Cluster", () => {
  describe("the adapter suites, hash-tagged prefix", () => {
    runRedisSuites({ connect: () => connectRedisCluster(service.url), prefix: () => randomTaggedPrefix("cluster") })
  })

  describe("RedisAdapter's key prefix on a cluster", () => {
    const prefix = randomTaggedPrefix("cluster-prefix")
    const client = clusterClient(prefix)

    it("refuses a prefix without a hash tag, naming the fix, before any key is written", () => {
      expect(() => RedisAdapter(client(), { prefix: "myapp:auth:" })).toThrow(/hash tag.*\{myapp:auth:\}/)
      expect(() => RedisAdapter(client(), { prefix: "myapp:{}:" })).toThrow(/hash tag/)
    })

    it("puts every key of a user, their sessions and accounts in one slot", async () => {
      const adapter = RedisAdapter(client(), { prefix }) as Required<ReturnType<typeof RedisAdapter>>
      const user = await adapter.createUser(makeUser())
      const session = await adapter.createSession(makeSession(user.id))
      const k = redisKeys(prefix)
      const keys = [k.user(user.id), k.userByEmail(user.email), k.session(session.sessionToken), k.userSessions(user.id), k.auditAll(), k.lock("x")]
      expect((await slots(client(), keys)).size).toBe(1)
      expect((await adapter.getSessionAndUser(session.sessionToken))?.user.id).toBe(user.id)
    })

    it("defaults to the tagged {portcullis}: on a cluster", async () => {
      const adapter = RedisAdapter(client()) as Required<ReturnType<typeof RedisAdapter>>
      const user = await adapter.createUser(makeUser())
      try {
        expect(await client().exists(`{portcullis}:user:${user.id}`)).toBe(1)
      } finally {
        await adapter.deleteUser(user.id)
      }
    })
  })

  describe("attacker-chosen braces in ids and emails", () => {
    const prefix = randomTaggedPrefix("cluster-braces")
    const client = clusterClient(prefix)

    it("cannot move a key out of the adapter's slot: Redis hashes the first tag, the prefix's", async () => {
      // A user who picks "{x}" in an email or id would, if it decided the slot, split a
      // user's keys over slots and make every script and MULTI on them fail (CROSSSLOT).
      const adapter = RedisAdapter(client(), { prefix }) as Required<ReturnType<typeof RedisAdapter>>
      const user = await adapter.createUser(makeUser({ id: `}{evil}-${crypto.randomUUID()}`, email: `{other}${crypto.randomUUID()}@example.com` }))
      const session = await adapter.createSession(makeSession(user.id))
      const k = redisKeys(prefix)
      expect((await slots(client(), [k.user(user.id), k.userByEmail(user.email), k.session(session.sessionToken), k.userSessions(user.id)])).size).toBe(1)
      expect((await adapter.getSessionAndUser(session.sessionToken))?.user.id).toBe(user.id)
      expect((await adapter.deleteUser(user.id))?.id).toBe(user.id)
      expect(await adapter.getSessionAndUser(session.sessionToken)).toBeNull()
    })

    it("leaves the registry working for a user id with braces (its key is alone in its slot)", async () => {
      const registry = new RedisSessionRegistry(client(), { prefix: randomKeyPrefix("cluster-braces") })
      const userId = `{${crypto.randomUUID()}}}{`
      const id = crypto.randomUUID()
      await registry.add({ id, userId, createdAt: new Date(), lastSeenAt: new Date(), expires: new Date(Date.now() + 60_000) })
      expect(await registry.touch(userId, id, new Date(), new Date(Date.now() + 60_000))).toBe(true)
      expect(await registry.removeAll(userId)).toBe(1)
    })
  })

  describe("SCANs reach every master", () => {
    const prefix = randomKeyPrefix("cluster-scan")
    const client = clusterClient(prefix)

    it("counts the registry's sessions of users whose keys live on three different masters", async () => {
      const registry = new RedisSessionRegistry(client(), { prefix })
      const k = redisKeys(prefix)
      // Users until their registry keys cover every slot owner: the count must add up all of them.
      const users: string[] = []
      const owners = new Set<string>()
      const masters = client().nodes("master").length
      while (owners.size < masters) {
        const userId = `user-${crypto.randomUUID()}`
        users.push(userId)
        const slot = (await client().cluster("KEYSLOT", k.sessionRegistry(userId))) as number
        const owner = ((await client().cluster("SLOTS")) as unknown as [number, number, [string, number]][]).find(([from, to]) => slot >= from && slot <= to)![2]
        owners.add(`${owner[0]}:${owner[1]}`)
      }
      const expires = new Date(Date.now() + 3_600_000)
      for (const userId of users) await registry.add({ id: crypto.randomUUID(), userId, createdAt: new Date(), lastSeenAt: new Date(), expires })
      expect(await registry.count()).toBe(users.length)
      expect(owners.size).toBeGreaterThanOrEqual(3)
    })

    it("counts the adapter's sessions and lists its users from every master", async () => {
      // One hash tag puts the adapter in one slot; the SCAN still asks every master, so a
      // store whose keys moved (a resharding) is still found.
      const tagged = randomTaggedPrefix("cluster-scan")
      const adapter = RedisAdapter(client(), { prefix: tagged }) as Required<ReturnType<typeof RedisAdapter>>
      try {
        const user = await adapter.createUser(makeUser())
        await adapter.createSession(makeSession(user.id))
        await adapter.createSession(makeSession(user.id))
        expect(await adapter.countSessions()).toBe(2)
        expect((await adapter.listUsers({ limit: 10 })).users.map((u) => u.id)).toEqual([user.id])
      } finally {
        await deleteKeys(client(), tagged)
      }
    })
  })

  describe("RedisAdapter waitForReplicas on a cluster", () => {
    const prefix = randomTaggedPrefix("cluster-wait")
    const client = clusterClient(prefix)

    it("of 50 concurrent takes of one token exactly one wins, confirmed by the replica", async () => {
      const adapter = RedisAdapter(client(), { prefix, waitForReplicas: { replicas: 1, timeoutMs: 2_000 } }) as Required<ReturnType<typeof RedisAdapter>>
      // Its second connection (the one WAIT may hold) is ready once a take goes through.
      const warmup = makeVerificationToken()
      await adapter.createVerificationToken(warmup)
      await expect.poll(() => Promise.resolve(adapter.useVerificationToken(warmup)).then(() => true, () => false), { timeout: 10_000, interval: 50 }).toBe(true)
      const token = makeVerificationToken()
      await adapter.createVerificationToken(token)
      const results = await Promise.all(Array.from({ length: 50 }, () => adapter.useVerificationToken({ identifier: token.identifier, token: token.token })))
      expect(results.filter((r) => r !== null)).toHaveLength(1)
    })

    it("fails a take as RedisReplicationError when fewer replicas than asked confirm it", async () => {
      const adapter = RedisAdapter(client(), { prefix, waitForReplicas: { replicas: 2, timeoutMs: 50 } }) as Required<ReturnType<typeof RedisAdapter>>
      const token = makeVerificationToken()
      await adapter.createVerificationToken(token)
      await expect.poll(() => Promise.resolve(adapter.useVerificationToken(token)).then(() => "answered", (error: unknown) => error), { timeout: 10_000, interval: 50 }).toBeInstanceOf(RedisReplicationError)
    })

    it("refuses a zero timeout (WAIT 0 blocks forever) or zero replicas", () => {
      expect(() => RedisAdapter(client(), { prefix, waitForReplicas: { replicas: 1, timeoutMs: 0 } })).toThrow(/timeoutMs/)
      expect(() => RedisAdapter(client(), { prefix, waitForReplicas: { replicas: 0, timeoutMs: 10 } })).toThrow(/replicas/)
    })
  })

  describe("redisRateLimitStore on a cluster", () => {
    const prefix = randomKeyPrefix("cluster-rl").slice(0, -1)
    const client = clusterClient(prefix)
    runRateLimitStoreContract("redisRateLimitStore (cluster)", () => redisRateLimitStore(client(), { prefix }))

    it("spreads its counters over the masters (one key per counter: no tag needed)", async () => {
      const store = redisRateLimitStore(client(), { prefix })
      const keys = Array.from({ length: 30 }, (_, i) => `ip:198.51.100.${i}`)
      for (const key of keys) expect((await store.hit(key, 60)).count).toBe(1)
      expect((await slots(client(), keys.map((key) => `${prefix}:${key}`))).size).toBeGreaterThan(1)
      for (const key of keys) await store.reset(key)
    })
  })

  describe("redisRefreshLock on a cluster", () => {
    const prefix = randomKeyPrefix("cluster-lock")
    const client = clusterClient(prefix)

    it("of 50 concurrent acquirers exactly one holds the lock; only its owner releases it", async () => {
      const lock = redisRefreshLock(client(), { prefix })
      const won = await Promise.all(Array.from({ length: 50 }, (_, i) => lock.acquire("refresh:acct", `owner-${i}`, 30_000)))
      expect(won.filter(Boolean)).toHaveLength(1)
      const owner = `owner-${won.indexOf(true)}`
      await lock.release("refresh:acct", "someone-else")
      expect(await lock.acquire("refresh:acct", "late", 30_000)).toBe(false)
      await lock.release("refresh:acct", owner)
      expect(await lock.acquire("refresh:acct", "next", 30_000)).toBe(true)
      await lock.share!("refresh:acct:value", "new-tokens", 30_000)
      expect(await lock.read!("refresh:acct:value")).toBe("new-tokens")
    })
  })

  describe("createRedisClient on a cluster", () => {
    it("takes a redis+cluster:// URL or seed nodes, gives a Cluster with the fail-fast options, and refuses a bare cluster URL", async () => {
      const logger = { error: () => {}, warn: () => {} }
      for (const target of [{ cluster: service.url }, { cluster: clusterNodes(service.url) }]) {
        const client = createRedisClient(target, { logger })
        try {
          await once(client, "ready")
          expect(client.isCluster).toBe(true)
          expect(redisClientProblems(client)).toEqual([])
          expect(client.options.enableOfflineQueue).toBe(false)
          expect(client.options.redisOptions?.commandTimeout).toBe(2_000)
          const key = `${randomKeyPrefix("cluster-client")}k`
          await client.set(key, "v", "PX", 10_000)
          expect(await client.get(key)).toBe("v")
          await client.del(key)
        } finally {
          await client.quit()
        }
      }
      expect(() => createRedisClient(service.url, { logger })).toThrow(/\{ cluster: url \}/)
      expect(() => createRedisClient({ cluster: "redis+cluster://" }, { logger })).toThrow(/cluster URL/)
    })
  })
})

describe("createRedisClient's cluster URL", () => {
  it("reads every host, the credentials and rediss (TLS), without connecting", () => {
    const client = createRedisClient(
      { cluster: "rediss+cluster://app:p%40ss@10.0.0.1:6380,10.0.0.2,[::1]:7000" },
      { logger: { error: () => {}, warn: () => {} }, clusterOptions: { lazyConnect: true } },
    )
    try {
      expect(Reflect.get(client, "startupNodes")).toEqual([{ host: "10.0.0.1", port: 6380 }, { host: "10.0.0.2", port: 6379 }, { host: "::1", port: 7000 }])
      expect(client.options.redisOptions).toMatchObject({ username: "app", password: "p@ss", tls: {}, commandTimeout: 2_000 })
      expect(client.options.enableOfflineQueue).toBe(false)
    } finally {
      client.disconnect()
    }
  })

  it("refuses a URL that lists no host", () => {
    expect(() => createRedisClient({ cluster: "redis+cluster://user@" }, { logger: { error: () => {}, warn: () => {} } })).toThrow(/cluster URL/)
  })
})
