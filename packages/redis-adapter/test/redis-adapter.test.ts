// The Redis adapter on one Redis server: the shared suites (test/suites.ts, also run on a
// Redis Cluster by cluster.test.ts), and what only a single server's client shows.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Redis } from "ioredis"
import { makeSession, makeUser, redisAvailable, redisService } from "@portcullis/adapter-test"
import { connectRedis, randomKeyPrefix } from "@portcullis/adapter-test/redis"
import { RedisAdapter } from "@portcullis/redis-adapter"
import { runRedisSuites, testRedis } from "./suites.js"

const service = redisService()
const target = { connect: () => connectRedis(service.url), prefix: () => randomKeyPrefix("adapter") }
const gate = await redisAvailable()

gate.describe("Redis", () => {
  runRedisSuites(target)

  describe("RedisAdapter on one server", () => {
    const redis = testRedis(target)
    const adapter = () => RedisAdapter(redis.client(), { prefix: redis.prefix }) as Required<ReturnType<typeof RedisAdapter>>
    beforeAll(() => redis.open())
    afterAll(() => redis.close())

    it("reads a session and its user in one round trip", async () => {
      const user = await adapter().createUser(makeUser())
      const session = await adapter().createSession(makeSession(user.id))
      let commands = 0
      const client = redis.client() as Redis
      const send = client.sendCommand.bind(client)
      client.sendCommand = (...args: Parameters<typeof send>) => {
        commands++
        return send(...args)
      }
      try {
        expect((await adapter().getSessionAndUser(session.sessionToken))?.user.id).toBe(user.id)
      } finally {
        client.sendCommand = send
      }
      expect(commands).toBe(1)
    })

    it("honours an ioredis keyPrefix in the session script", async () => {
      const prefixed = new Redis(service.url, { keyPrefix: redis.prefix, lazyConnect: true, maxRetriesPerRequest: 1, commandTimeout: 10_000 })
      prefixed.on("error", () => {})
      try {
        await prefixed.connect()
        const withPrefix = RedisAdapter(prefixed, { prefix: "kp:" }) as Required<ReturnType<typeof RedisAdapter>>
        const user = await withPrefix.createUser(makeUser())
        const session = await withPrefix.createSession(makeSession(user.id))
        expect((await withPrefix.getSessionAndUser(session.sessionToken))?.user.id).toBe(user.id)
      } finally {
        await prefixed.quit()
      }
    })
  })
})
