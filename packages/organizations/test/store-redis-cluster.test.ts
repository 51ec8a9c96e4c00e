// The organization store's conformance suite on a Redis Cluster (scripts/redis-cluster.sh):
// an organization's keys share the hash tag {org:<id>}, so each script stays in one slot,
// and the indexes (slug, a user's organizations) live in slots of their own. With CI=true a
// missing cluster fails.
import { redisClusterAvailable } from "@portcullis/adapter-test"
import { openRedisClusterPrefix } from "@portcullis/adapter-test/redis"
import { redisOrganizationStore } from "@portcullis/organizations/redis"
import { runOrganizationStoreTests } from "@portcullis/organizations/testing"

const gate = await redisClusterAvailable()

gate.describe("Redis Cluster", () => {
  runOrganizationStoreTests("redisOrganizationStore (cluster)", async () => {
    const { client, prefix, close } = await openRedisClusterPrefix("orgs")
    return { store: redisOrganizationStore(client, { prefix }), close }
  })
})
