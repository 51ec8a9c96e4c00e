// A client from createRedisClient survives its server: a kill -9 makes commands fail fast
// (within the command timeout) with no "[ioredis] Unhandled error event" lines, a 10 s
// pause (SIGSTOP) turns commands into timeouts, and commands succeed again within 2 s of
// the server's return. Runs on a throwaway redis-server of the test's own.
import { Redis } from "ioredis"
import { afterAll, beforeAll, expect, it, vi } from "vitest"
import { makeSession, makeUser, recoveryMs, serviceAvailable, startFaultLoad } from "@portcullis/adapter-test"
import { missingBinaries, startThrowawayRedis, type ThrowawayServer } from "@portcullis/adapter-test/throwaway"
import { createRedisClient, RedisAdapter, type StoreLogger } from "@portcullis/redis-adapter"

function capturingLogger() {
  const lines: { level: "error" | "warn"; message: string }[] = []
  const logger: StoreLogger = {
    error: (message) => void lines.push({ level: "error", message }),
    warn: (message) => void lines.push({ level: "warn", message }),
  }
  return { lines, logger }
}

const gate = await serviceAvailable({ name: "redis-server binary", url: "tcp://127.0.0.1:0", start: "apt-get install redis-server" }, async () => {
  const missing = missingBinaries("redis")
  if (missing.length) throw new Error(`not installed: ${missing.join(", ")}`)
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

gate.describe("Redis client faults", () => {
  let server: ThrowawayServer
  beforeAll(async () => {
    server = await startThrowawayRedis()
  }, 30_000)
  afterAll(() => server?.close())

  /** A client, an adapter, and one stored session the load reads over and over. */
  async function session(commandTimeoutMs: number) {
    const { lines, logger } = capturingLogger()
    const client = createRedisClient(server.url, { commandTimeoutMs, logger })
    await new Promise((resolve) => client.once("ready", resolve))
    const adapter = RedisAdapter(client, { prefix: `faults:${crypto.randomUUID()}:`, logger }) as Required<ReturnType<typeof RedisAdapter>>
    const user = await adapter.createUser(makeUser())
    const stored = await adapter.createSession(makeSession(user.id))
    const read = async () => {
      if (!(await adapter.getSessionAndUser(stored.sessionToken))) throw new Error("session missing")
    }
    return { client, adapter, read, lines }
  }

  it("kill -9: commands fail fast, nothing unhandled, back within 2 s of the restart; the data survived", async () => {
    const consoleError = vi.spyOn(console, "error")
    const { client, read, lines } = await session(1_000)
    expect(lines).toEqual([]) // a client from createRedisClient draws no warning
    const load = startFaultLoad(read, { workers: 20, pauseMs: 20 })
    await sleep(300)
    await server.kill()
    const killed = Date.now()
    await sleep(2_000)
    await server.start()
    const back = Date.now()
    await sleep(2_500)
    const records = await load.stop()
    const down = records.filter((r) => r.start > killed + 100 && r.end <= back)
    expect(down.length).toBeGreaterThan(0)
    expect(down.every((r) => r.error)).toBe(true)
    // Fail fast: no call made while the server was gone waited out the command timeout.
    expect(Math.max(...down.map((r) => r.end - r.start))).toBeLessThanOrEqual(1_200)
    expect(recoveryMs(records, back)).toBeLessThanOrEqual(2_000)
    expect(consoleError.mock.calls.filter((c) => String(c[0]).includes("Unhandled error event"))).toEqual([])
    expect(lines.filter((l) => l.level === "error").length).toBeLessThanOrEqual(2)
    consoleError.mockRestore()
    client.disconnect()
  }, 30_000)

  it("SIGSTOP 10 s: commands end in timeouts within the command timeout, and succeed after SIGCONT", async () => {
    const { client, read } = await session(1_000)
    const load = startFaultLoad(read, { workers: 20, pauseMs: 20 })
    await sleep(300)
    server.pause()
    const paused = Date.now()
    await sleep(10_000)
    server.resume()
    const back = Date.now()
    await sleep(2_500)
    const records = await load.stop()
    const started = records.filter((r) => r.start > paused + 50 && r.start < back - 1_500)
    expect(started.length).toBeGreaterThan(0)
    expect(started.every((r) => r.error?.message === "Command timed out")).toBe(true)
    expect(Math.max(...started.map((r) => r.end - r.start))).toBeLessThanOrEqual(1_500)
    expect(recoveryMs(records, back)).toBeLessThanOrEqual(2_000)
    client.disconnect()
  }, 30_000)

  it("warns once per adapter about a client without an error listener or command timeout", () => {
    const { lines, logger } = capturingLogger()
    const bare = new Redis(server.url, { lazyConnect: true })
    RedisAdapter(bare, { logger })
    expect(lines).toHaveLength(1)
    expect(lines[0]!.message).toMatch(/no 'error' listener.*no commandTimeout/)
    bare.disconnect()
  })
})
