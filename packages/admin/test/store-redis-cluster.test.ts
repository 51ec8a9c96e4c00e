// The ban and impersonation stores' conformance suites on a Redis Cluster
// (scripts/redis-cluster.sh): one key per user or session, each its own slot. With CI=true
// a missing cluster fails.
import { redisClusterAvailable } from "@portcullis/adapter-test"
import { openRedisClusterPrefix } from "@portcullis/adapter-test/redis"
import { redisBanStore, redisImpersonationStore } from "@portcullis/admin/redis"
import { banStoreConformance, impersonationStoreConformance } from "@portcullis/admin/testing"

const gate = await redisClusterAvailable()

gate.describe("Redis Cluster", () => {
  banStoreConformance("Redis Cluster", async () => {
    const { client, prefix, close } = await openRedisClusterPrefix("bans")
    return { store: redisBanStore(client, { prefix }), close }
  })
  impersonationStoreConformance("Redis Cluster", async () => {
    const { client, prefix, close } = await openRedisClusterPrefix("impersonations")
    return { store: redisImpersonationStore(client, { prefix }), close }
  })
})
