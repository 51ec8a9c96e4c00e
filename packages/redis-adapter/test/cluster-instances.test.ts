// Two app processes on one Redis Cluster (STYLE.md §20: single use across instances), each
// with its own cluster client: 2 × 25 concurrent takes of one verification token, 2 × 25
// acquisitions of one refresh lock, 2 × 25 rate-limit hits on one key. Exactly one take and
// one lock win, and no hit is lost. With CI=true a missing cluster fails.
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, expect, it } from "vitest"
import type { Cluster } from "ioredis"
import { askAll, makeVerificationToken, redisClusterAvailable, redisClusterService, startWorkers, type LineWorker } from "@portcullis/adapter-test"
import { connectRedisCluster, deleteKeys, randomKeyPrefix } from "@portcullis/adapter-test/redis"
import { RedisAdapter } from "@portcullis/redis-adapter"

const worker = fileURLToPath(new URL("./fixtures/cluster-worker.ts", import.meta.url))
const service = redisClusterService()
const gate = await redisClusterAvailable()

gate.describe("two instances on one Redis Cluster", () => {
  // The adapter's prefix is this one inside a hash tag; the lock and counters use it bare.
  const prefix = randomKeyPrefix("cluster-instances")
  let client: Cluster
  let workers: LineWorker[] = []
  beforeAll(async () => {
    client = connectRedisCluster(service.url)
    await client.connect()
    workers = await startWorkers(worker, [{ url: service.url, prefix }, { url: service.url, prefix }])
  }, 60_000)
  afterAll(async () => {
    for (const w of workers) w.stop()
    await deleteKeys(client, prefix)
    await deleteKeys(client, `{${prefix}}:`)
    await client.quit()
  })

  const outcomes = async <T>(command: string) => (await askAll(workers, command)).flatMap((line) => JSON.parse(line) as T[])

  it("of 2 × 25 concurrent takes of one token, exactly one gets it", async () => {
    const token = makeVerificationToken()
    await RedisAdapter(client, { prefix: `{${prefix}}:` }).createVerificationToken!(token)
    const taken = await outcomes<boolean>(`take ${token.identifier} ${token.token} 25`)
    expect(taken).toHaveLength(50)
    expect(taken.filter(Boolean)).toHaveLength(1)
  })

  it("of 2 × 25 concurrent acquisitions of one refresh lock, exactly one holds it", async () => {
    const held = await outcomes<boolean>("lock refresh:account-1 25")
    expect(held).toHaveLength(50)
    expect(held.filter(Boolean)).toHaveLength(1)
  })

  it("counts 2 × 25 concurrent rate-limit hits on one key as 1 to 50, none lost", async () => {
    const counts = await outcomes<number>("hit ip:198.51.100.7 25")
    expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
  })
})
