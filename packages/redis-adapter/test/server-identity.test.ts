// Which server the Redis suites of this run talk to. vitest.config.ts runs this folder twice:
// on Redis, and as the "valkey" project on Valkey (PORTCULLIS_REDIS_EXPECT=valkey, with the
// single server and the cluster moved to Valkey's ports). This file proves that the second
// pass is really Valkey, and the first really Redis, so neither can pass on the other's server.
import { expect, it } from "vitest"
import { redisAvailable, redisClusterAvailable, redisClusterService, redisService } from "@portcullis/adapter-test"
import { connectRedis, connectRedisCluster } from "@portcullis/adapter-test/redis"

const expected = process.env.PORTCULLIS_REDIS_EXPECT || "redis"

/** `valkey` when the INFO server section names Valkey (`server_name:valkey`, `valkey_version`), else `redis`. */
function serverOf(info: string): string {
  return /^server_name:valkey\b/m.test(info) || /^valkey_version:/m.test(info) ? "valkey" : "redis"
}

const single = await redisAvailable()
single.describe("the single server of this run", () => {
  it(`is ${expected}`, async () => {
    const client = connectRedis(redisService().url)
    await client.connect()
    try {
      expect(serverOf(await client.info("server"))).toBe(expected)
    } finally {
      await client.quit()
    }
  })
})

const cluster = await redisClusterAvailable()
cluster.describe("the cluster of this run", () => {
  it(`is ${expected} on every master`, async () => {
    const client = connectRedisCluster(redisClusterService().url)
    await client.connect()
    try {
      const masters = client.nodes("master")
      expect(masters.length).toBe(3)
      for (const node of masters) expect(serverOf(await node.info("server"))).toBe(expected)
    } finally {
      await client.quit()
    }
  })
})
