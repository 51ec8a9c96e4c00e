// A Redis Cluster master killed (SIGKILL) under steady load, on a cluster of the test's own
// (scripts/redis-cluster.sh on ports 7201-7206, so the shared one on 7101 is never touched;
// under the Valkey project of vitest.config.ts, valkey-server on 7401-7406):
// JWT session checks through core (registry on the cluster, asked on every check) and
// single-use takes of verification tokens by two instances at once. The process never
// crashes and nothing is unhandled; a failed check is a 503 that keeps the cookie, a failed
// take a rejected promise; once the replica is promoted every check answers 200 again; no
// token is ever taken twice — not by the racing instances, and not after the failover
// (waitForReplicas: a take is confirmed only once the replica has it). The killed node is
// restarted afterwards and rejoins as a replica.
import { execFile } from "node:child_process"
import { once } from "node:events"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, beforeAll, expect, it } from "vitest"
import type { Cluster } from "ioredis"
import { Auth, type AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { makeVerificationToken, serviceAvailable, startFaultLoad } from "@portcullis/adapter-test"
import { createRedisClient, RedisAdapter, redisKeys, RedisReplicationError, RedisSessionRegistry } from "@portcullis/redis-adapter"
import { Browser } from "../../core/test/helpers.js"

const run = promisify(execFile)
const script = fileURLToPath(new URL("../../../scripts/redis-cluster.sh", import.meta.url))
const BASE = Number(process.env.PORTCULLIS_FAILOVER_CLUSTER_PORT || 7201)
// The server's binaries: Redis's, or Valkey's under the Valkey project.
const SERVER = process.env.PORTCULLIS_REDIS_SERVER || "redis-server"
const CLI = process.env.PORTCULLIS_REDIS_CLI || "redis-cli"
const env = { ...process.env, REDIS_CLUSTER_PORT: String(BASE), REDIS_SERVER: SERVER, REDIS_CLI: CLI }
const cluster = (command: "start" | "stop" | "status") => run(script, [command], { env, timeout: 120_000 })

const gate = await serviceAvailable({ name: `${SERVER} and ${CLI}`, url: "tcp://127.0.0.1:0", start: `apt-get install ${SERVER}` }, async () => {
  await run(SERVER, ["--version"])
  await run(CLI, ["--version"])
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const quiet = { error: () => {}, warn: () => {} }

/** The port of the master serving `key`'s slot, asked of the cluster. */
async function ownerOf(client: Cluster, key: string): Promise<number> {
  const slot = (await client.cluster("KEYSLOT", key)) as number
  const ranges = (await client.cluster("SLOTS")) as unknown as [number, number, [string, number]][]
  return ranges.find(([from, to]) => slot >= from && slot <= to)![2][1]
}

/** Whether the surviving node on `port` sees the cluster ok with `victim` failed and no longer a master with slots. */
async function promoted(port: number, victim: number): Promise<boolean> {
  const info = (await run(CLI, ["-p", String(port), "cluster", "info"])).stdout
  const nodes = (await run(CLI, ["-p", String(port), "cluster", "nodes"])).stdout
  const line = nodes.split("\n").find((l) => l.includes(`127.0.0.1:${victim}@`)) ?? ""
  return /^cluster_state:ok/m.test(info) && /fail/.test(line.split(" ")[2] ?? "")
}

gate.describe("Redis Cluster failover under load", () => {
  let clients: Cluster[] = []
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => void unhandled.push(reason)

  beforeAll(async () => {
    await cluster("stop")
    await cluster("start")
    process.on("unhandledRejection", onUnhandled)
  }, 150_000)
  afterAll(async () => {
    process.off("unhandledRejection", onUnhandled)
    for (const client of clients) client.disconnect()
    await cluster("stop")
  }, 60_000)

  /** A client as an app creates it: fail fast, slot map refreshed after a failover. */
  async function connect(): Promise<Cluster> {
    const client = createRedisClient({ cluster: [BASE, BASE + 1, BASE + 2].map((port) => ({ host: "127.0.0.1", port })) }, { logger: quiet })
    clients.push(client)
    await once(client, "ready")
    return client
  }

  it("costs requests, never the process; checks come back after the promotion; no token is taken twice", async () => {
    // Two app instances, each with its own client.
    const [one, two] = [await connect(), await connect()]
    const prefix = "{failover}:"
    const durable = { waitForReplicas: { replicas: 1, timeoutMs: 500 }, logger: quiet }
    const instances = [RedisAdapter(one, { prefix, ...durable }), RedisAdapter(two, { prefix, ...durable })] as Required<ReturnType<typeof RedisAdapter>>[]
    // The master to kill: the one holding the adapter's slot, so the takes meet the failover.
    const victim = await ownerOf(one, redisKeys(prefix).verificationToken("x", "y"))
    const survivor = [BASE, BASE + 1, BASE + 2, BASE + 3, BASE + 4, BASE + 5].find((port) => port !== victim)!

    // Users whose registry keys live on the victim and users elsewhere: half the checks meet the outage.
    const registryPrefix = "failover-registry:"
    const onVictim: string[] = []
    const elsewhere: string[] = []
    while (onVictim.length < 10 || elsewhere.length < 10) {
      const id = `u-${crypto.randomUUID()}`
      const list = (await ownerOf(one, redisKeys(registryPrefix).sessionRegistry(id))) === victim ? onVictim : elsewhere
      if (list.length < 10) list.push(id)
    }
    const config = (client: Cluster): AuthConfig => ({
      secret: "cluster-failover-secret-0123456789abcdef0123",
      trustHost: true,
      adapterTimeout: 3_000,
      session: { strategy: "jwt", registry: new RedisSessionRegistry(client, { prefix: registryPrefix }), revocationCheckInterval: 0 },
      logger: { error: () => {}, warn: () => {} },
      providers: [Credentials({ credentials: { username: {} }, authorize: async ({ username }) => ({ id: String(username), name: String(username) }) })],
    })
    const configs = [config(one), config(two)]
    const browsers = await Promise.all([...onVictim, ...elsewhere].map(async (id, i) => {
      const browser = new Browser((request) => Auth(request, configs[i % 2]!))
      await browser.signIn({ username: id })
      expect((await browser.session())?.user?.name).toBe(id)
      return { id, browser, cookie: browser.sessionCookie() }
    }))

    // Load 1: 30 workers checking sessions through core.
    const statuses: { status: number; at: number }[] = []
    let next = 0
    const checks = startFaultLoad(async () => {
      const { id, browser, cookie } = browsers[next++ % browsers.length]!
      const response = await browser.request("/auth/session")
      statuses.push({ status: response.status, at: Date.now() })
      if (response.status === 200) {
        const body = (await response.json()) as { user?: { name?: string } } | null
        if (body?.user?.name !== id) throw new Error(`a 200 without the session of ${id}`)
      } else if (response.status === 503) {
        if (browser.sessionCookie() !== cookie) throw new Error("a 503 dropped the session cookie")
      } else {
        throw new Error(`session check answered ${response.status}`)
      }
    }, { workers: 30, pauseMs: 20 })

    // Load 2: 20 workers each creating a token and racing both instances to take it.
    const taken: { identifier: string; token: string }[] = []
    const takeErrors: unknown[] = []
    let doubleTakes = 0
    const takes = startFaultLoad(async () => {
      const token = makeVerificationToken()
      await instances[0]!.createVerificationToken(token)
      const results = await Promise.allSettled(instances.map((adapter) => adapter.useVerificationToken({ identifier: token.identifier, token: token.token })))
      const won = results.filter((r) => r.status === "fulfilled" && r.value !== null)
      if (won.length > 1) doubleTakes++
      if (won.length === 1) taken.push({ identifier: token.identifier, token: token.token })
      for (const r of results) if (r.status === "rejected") takeErrors.push(r.reason)
    }, { workers: 20, pauseMs: 20 })

    // Steady state first: every check answers 200 and tokens are taken.
    await expect.poll(() => statuses.length > 200 && taken.length > 50, { timeout: 60_000, interval: 50 }).toBe(true)
    expect(statuses.every((s) => s.status === 200)).toBe(true)
    const before = taken.length

    process.kill(Number(readFileSync(`/tmp/portcullis-redis-cluster-${BASE}/${victim}/redis.pid`, "utf8")), "SIGKILL")
    const killedAt = Date.now()
    await expect.poll(() => promoted(survivor, victim), { timeout: 60_000, interval: 100 }).toBe(true)
    const promotedAt = Date.now()

    // After the promotion the clients find the new master: every user's check answers 200
    // again (the registry waits for no replica).
    await expect.poll(async () => {
      const answers = await Promise.all(browsers.map(({ browser }) => browser.request("/auth/session")))
      return answers.every((r) => r.status === 200)
    }, { timeout: 60_000, interval: 200 }).toBe(true)
    const recoveredAt = Date.now()

    // The promoted master has no replica yet: takes that must reach one fail, cleanly.
    const errorsAtRecovery = takeErrors.length
    await expect.poll(() => takeErrors.slice(errorsAtRecovery).some((e) => e instanceof RedisReplicationError), { timeout: 60_000, interval: 100 }).toBe(true)

    // Restore: the killed node restarts and rejoins as the new master's replica; takes resume.
    await cluster("start")
    const status = (await cluster("status")).stdout
    expect(status).toMatch(new RegExp(`127\\.0\\.0\\.1:${victim} (myself,)?slave`))
    expect(status.match(/ master/g)).toHaveLength(3)
    const restoredAt = taken.length
    await expect.poll(() => taken.length > restoredAt + 20, { timeout: 60_000, interval: 50 }).toBe(true)
    const [checkRecords, takeRecords] = await Promise.all([checks.stop(), takes.stop()])

    // The outage was seen, and only as 503s with the cookie kept (anything else is recorded as an error).
    expect(checkRecords.filter((r) => r.error).map((r) => r.error!.message)).toEqual([])
    const during = statuses.filter((s) => s.at > killedAt && s.at < recoveredAt)
    expect(during.some((s) => s.status === 503)).toBe(true)
    expect(new Set(statuses.map((s) => s.status))).toEqual(new Set([200, 503]))
    // Not every request of the outage failed: the other masters' users were served (until the
    // cluster marked the master failed; Redis's default full-coverage rule then refuses all).
    expect(during.some((s) => s.status === 200)).toBe(true)
    // Takes that failed failed as Errors (a rejected promise the caller handles), nothing else.
    for (const error of [...takeErrors, ...takeRecords.filter((r) => r.error).map((r) => r.error)]) expect(error).toBeInstanceOf(Error)
    expect(taken.length).toBeGreaterThan(before)
    // Single-use: never two winners, and no confirmed take undone by the failover.
    expect(doubleTakes).toBe(0)
    const again = await Promise.all(taken.map((t) => instances[1]!.useVerificationToken(t)))
    expect(again.filter((v) => v !== null)).toEqual([])
    expect(unhandled).toEqual([])
    expect(promotedAt).toBeGreaterThan(killedAt)
  }, 300_000)
})
