// The SSO store's conformance suite on a Redis Cluster (scripts/redis-cluster.sh): a domain's
// keys share {domain:<domain>}, an organization's SCIM resources {org:<id>}, and every other
// key stands alone. With CI=true a missing cluster fails.
import { redisClusterAvailable } from "@portcullis/adapter-test"
import { openRedisClusterPrefix } from "@portcullis/adapter-test/redis"
import { redisSsoStore } from "@portcullis/sso/redis"
import { ssoStoreConformance } from "@portcullis/sso/testing"

const gate = await redisClusterAvailable()

gate.describe("Redis Cluster", () => {
  ssoStoreConformance("redisSsoStore (cluster)", async () => {
    const { client, prefix, close } = await openRedisClusterPrefix("sso")
    return { store: redisSsoStore(client, { prefix }), cleanup: close }
  })
})
