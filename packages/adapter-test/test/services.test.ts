import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it, vi } from "vitest"
import { describeAddress, isCI, pingRedis, postgresService, redisService, serviceAvailable } from "@portcullis/adapter-test"

const service = { name: "FakeDB", url: "fake://user:secret@127.0.0.1:7777/db", start: "fakedb start" }
const refused = async () => {
  throw new Error("connect ECONNREFUSED 127.0.0.1:7777")
}

describe("serviceAvailable", () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it("reports a reachable service as available, silently", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {})
    const gate = await serviceAvailable(service, async () => {})
    expect(gate.available).toBe(true)
    expect(gate.error).toBeUndefined()
    expect(log).not.toHaveBeenCalled()
  })

  it("outside CI, prints one line saying what to start, without credentials", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {})
    const gate = await serviceAvailable(service, refused, { env: {} })
    expect(gate.available).toBe(false)
    expect(log).toHaveBeenCalledTimes(1)
    expect(log).toHaveBeenCalledWith("skipping FakeDB adapter tests: start FakeDB on 127.0.0.1:7777 (fakedb start)")
  })

  it("in CI, keeps quiet and keeps the error for the failing test", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {})
    const gate = await serviceAvailable(service, refused, { env: { CI: "true" } })
    expect(gate.available).toBe(false)
    expect(gate.error?.message).toBe("connect ECONNREFUSED 127.0.0.1:7777")
    expect(log).not.toHaveBeenCalled()
  })

  it("treats a probe that hangs as unreachable", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {})
    const gate = await serviceAvailable(service, () => new Promise(() => {}), { timeoutMs: 20, env: {} })
    expect(gate.available).toBe(false)
    expect(gate.error?.message).toMatch(/no answer within 20 ms/)
  })
})

describe("service settings", () => {
  // One gate for every suite that needs a server, a browser or a runtime (issue 36): `CI=1`
  // once skipped the browser suites silently, their gate reading only `CI=true`.
  it.each(["true", "1", "TRUE", "yes", "github-actions", " true "])("reads CI=%j as CI: a missing server fails the suite", (value) => {
    expect(isCI({ CI: value })).toBe(true)
  })

  it.each([undefined, "", "0", "false", "False", " FALSE ", "  "])("reads CI=%j as not CI: a missing server skips the suite", (value) => {
    expect(isCI(value === undefined ? {} : { CI: value })).toBe(false)
  })

  it("uses loopback defaults and honours the PORTCULLIS_* overrides", () => {
    expect(postgresService({}).url).toBe("postgres://postgres@127.0.0.1:5432/test")
    expect(postgresService({ PORTCULLIS_PG_URL: "postgres://db:5433/x" }).url).toBe("postgres://db:5433/x")
    expect(redisService({ PORTCULLIS_REDIS_URL: "redis://cache:6380" }).url).toBe("redis://cache:6380")
  })

  it("shows only host and port of a URL", () => {
    expect(describeAddress("mysql://root:pw@10.0.0.1:3306/test")).toBe("10.0.0.1:3306")
  })
})

describe("pingRedis (the one Redis reachability probe)", () => {
  /** A server speaking just enough RESP: records what it got, answers with `reply(received)`. */
  async function fakeRedis(reply: (received: string) => string | undefined) {
    const received: string[] = []
    const server = createServer((socket) => {
      let got = ""
      socket.on("data", (chunk) => {
        got += chunk.toString()
        const answer = reply(got)
        if (answer !== undefined) {
          received.push(got)
          socket.write(answer)
        }
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
  }

  it("sends PING as a RESP array and resolves on +PONG", async () => {
    const redis = await fakeRedis((got) => (got.endsWith("PING\r\n") ? "+PONG\r\n" : undefined))
    try {
      await pingRedis(`redis://127.0.0.1:${redis.port}`)
      expect(redis.received).toEqual(["*1\r\n$4\r\nPING\r\n"])
    } finally {
      await redis.close()
    }
  })

  it("authenticates first when the URL carries credentials, and reports the server's refusal", async () => {
    const redis = await fakeRedis((got) => (got.endsWith("PING\r\n") ? (got.includes("s3cr:t") ? "+OK\r\n+PONG\r\n" : "-WRONGPASS invalid password\r\n-NOAUTH Authentication required.\r\n") : undefined))
    try {
      await pingRedis(`redis://app:${encodeURIComponent("s3cr:t")}@127.0.0.1:${redis.port}`)
      expect(redis.received[0]).toBe("*3\r\n$4\r\nAUTH\r\n$3\r\napp\r\n$6\r\ns3cr:t\r\n*1\r\n$4\r\nPING\r\n")
      await expect(pingRedis(`redis://:wrong@127.0.0.1:${redis.port}`)).rejects.toThrow("Redis answered -WRONGPASS invalid password")
    } finally {
      await redis.close()
    }
  })

  it("rejects a server that never answers, after the timeout", async () => {
    const redis = await fakeRedis(() => undefined)
    try {
      await expect(pingRedis(`redis://127.0.0.1:${redis.port}`, 50)).rejects.toThrow("no answer to PING within 50 ms")
    } finally {
      await redis.close()
    }
  })
})
