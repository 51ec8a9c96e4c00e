/**
 * Issue 29, health checks: `health()` from `@portcullis/core/integration` and the opt-in
 * `GET <basePath>/health` report each store's reachability and latency, for load balancers
 * and Kubernetes probes — bounded in time per store, shared between concurrent probes, and
 * with nothing in the body a probe's reader should not see (no stack, no message, no user).
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import type { AuthConfig } from "@portcullis/core"
import { health, type HealthReport } from "@portcullis/core/integration"
import { memoryRateLimitStore, type RateLimitStore } from "@portcullis/core/rate-limit"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { credentialsConfig } from "../helpers.js"
import { httpServer, type TestServer } from "../http-server.js"

/** What a driver's error looks like when its server is gone: a code, and a message naming the server and its credentials. */
function driverError(): Error {
  const error = new Error("connect ECONNRESET postgres://portcullis:hunter2@db.internal:5432/app") as Error & { code: string }
  error.code = "ECONNRESET"
  return error
}

/** A memory adapter whose `getUser` calls are counted, and can be made to fail or hang. */
function countedAdapter(mode: { fail?: boolean; hang?: boolean } = {}) {
  const adapter = MemoryAdapter() as Adapter
  const getUser = adapter.getUser!.bind(adapter)
  const counter = { calls: 0 }
  adapter.getUser = async (id) => {
    counter.calls++
    if (mode.fail) throw driverError()
    if (mode.hang) return new Promise<never>(() => {})
    return getUser(id)
  }
  return { adapter, counter }
}

/** A rate-limit store whose `peek`s are counted. */
function countedStore(mode: { hang?: boolean } = {}) {
  const inner = memoryRateLimitStore()
  const counter = { peeks: 0 }
  const store: RateLimitStore = {
    hit: (key, window, points) => inner.hit(key, window, points),
    peek: (key) => {
      counter.peeks++
      return mode.hang ? new Promise<never>(() => {}) : inner.peek(key)
    },
    reset: (key) => inner.reset(key),
  }
  return { store, counter }
}

/** A database-session app: its sessions need the adapter, so a failing adapter makes it `down`. */
function config(adapter: Adapter, extra: Partial<AuthConfig> = {}): AuthConfig {
  return credentialsConfig({ adapter, session: { strategy: "database" }, logger: { error: () => {}, warn: () => {}, debug: () => {} }, ...extra })
}

let server: TestServer | undefined
afterEach(async () => {
  vi.useRealTimers()
  await server?.close()
  server = undefined
})

describe("health(): each store the configuration has, read once", () => {
  it("answers ok with the latency of the adapter and the rate-limit store (one store for rate limits and step-up: one check)", async () => {
    const { adapter, counter } = countedAdapter()
    const { store } = countedStore()
    const report = await health(config(adapter, { rateLimit: { store } }))
    expect(report.status).toBe("ok")
    expect(report.checks.config).toEqual({ status: "ok" })
    expect(report.checks.adapter).toMatchObject({ status: "ok" })
    expect(report.checks.adapter!.latencyMs).toBeGreaterThanOrEqual(0)
    expect(report.checks.rateLimit).toMatchObject({ status: "ok" })
    expect(report.checks.stepUp).toBeUndefined()
    expect(counter.calls).toBe(1)
    expect(Date.parse(report.time)).not.toBeNaN()
  })

  it("checks a step-up store of its own, and the session registry of JWT sessions", async () => {
    const { store: marks, counter } = countedStore()
    const listed: string[] = []
    const registry = { add() {}, touch: () => true, list: (userId: string) => (listed.push(userId), []), remove: () => 0, removeAll: () => 0 }
    const report = await health(credentialsConfig({ stepUp: { store: marks }, session: { strategy: "jwt", registry } }))
    expect(report.status).toBe("ok")
    expect(report.checks.stepUp).toMatchObject({ status: "ok" })
    expect(report.checks.sessionRegistry).toMatchObject({ status: "ok" })
    expect(counter.peeks).toBe(1)
    // A user that does not exist: the probe reads nobody's sessions.
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatch(/^health-[0-9a-f]{16}$/)
  })
})

describe("health(): a store that fails", () => {
  it("is down with the driver's error code, never its message (which names the server and its password)", async () => {
    const report = await health(config(countedAdapter({ fail: true }).adapter))
    expect(report.status).toBe("down")
    expect(report.checks.adapter).toMatchObject({ status: "down", error: "ECONNRESET" })
    const body = JSON.stringify(report)
    expect(body).not.toContain("hunter2")
    expect(body).not.toContain("postgres://")
    expect(body).not.toContain("db.internal")
  })

  it("makes the app degraded, not down, when sessions do not need it (JWT sessions; a rate-limit store)", async () => {
    const jwt = await health(credentialsConfig({ adapter: countedAdapter({ fail: true }).adapter, session: { strategy: "jwt" } }))
    expect(jwt.status).toBe("degraded")
    const { store } = countedStore({ hang: true })
    const limited = await health(config(countedAdapter().adapter, { rateLimit: { store } }), { timeout: 50 })
    expect(limited.status).toBe("degraded")
    expect(limited.checks.rateLimit).toMatchObject({ status: "down", error: "timeout" })
  })
})

describe("health(): a store that hangs", () => {
  it("is down with `timeout` at the bound, and the report does not wait for the store", async () => {
    const started = performance.now()
    const report = await health(config(countedAdapter({ hang: true }).adapter, { health: { timeout: 150 } }))
    const elapsed = performance.now() - started
    expect(report.checks.adapter).toEqual({ status: "down", latencyMs: 150, error: "timeout" })
    expect(report.status).toBe("down")
    expect(elapsed).toBeGreaterThanOrEqual(140)
    expect(elapsed).toBeLessThan(1000)
  })
})

describe("health(): a configuration problem", () => {
  it("is down with the problem's type", async () => {
    const report = await health(credentialsConfig({ session: { strategy: "database" } }))
    expect(report.status).toBe("down")
    expect(report.checks.config).toEqual({ status: "down", error: "MissingAdapter" })
  })
})

describe("GET <basePath>/health, off by default", () => {
  it("answers as an unknown action does, and probes nothing", async () => {
    const { adapter, counter } = countedAdapter()
    server = await httpServer(config(adapter))
    const probe = await fetch(`${server.origin}/auth/health`)
    const unknown = await fetch(`${server.origin}/auth/no-such-action`)
    expect(probe.status).toBe(unknown.status)
    expect(probe.status).toBe(400)
    expect(((await probe.json()) as { error: string }).error).toBe("UnknownAction")
    await unknown.body?.cancel()
    expect(counter.calls).toBe(0)
  })
})

describe("GET <basePath>/health with health.endpoint", () => {
  it("answers 200 and the report, not cached by anyone, with no cookie", async () => {
    server = await httpServer(config(countedAdapter().adapter, { health: { endpoint: true } }))
    const response = await fetch(`${server.origin}/auth/health`)
    expect(response.status).toBe(200)
    expect(response.headers.get("cache-control")).toBe("no-store")
    expect(response.headers.get("content-type")).toContain("application/json")
    expect(response.headers.getSetCookie()).toEqual([])
    const report = (await response.json()) as HealthReport
    expect(report).toMatchObject({ status: "ok", checks: { config: { status: "ok" }, adapter: { status: "ok" } } })
  })

  it("answers 503 when down, with the error code and no stack, message or secret in the body", async () => {
    server = await httpServer(config(countedAdapter({ fail: true }).adapter, { health: { endpoint: true } }))
    const response = await fetch(`${server.origin}/auth/health`)
    expect(response.status).toBe(503)
    const body = await response.text()
    expect(JSON.parse(body)).toMatchObject({ status: "down", checks: { adapter: { status: "down", error: "ECONNRESET" } } })
    for (const leak of ["hunter2", "postgres://", "db.internal", "    at ", "stack", "message"]) expect(body).not.toContain(leak)
  })

  it("answers 503 down for a configuration with a problem, instead of the error page, and logs the problem", async () => {
    const logged: Error[] = []
    server = await httpServer(credentialsConfig({ session: { strategy: "database" }, health: { endpoint: true }, logger: { error: (e) => void logged.push(e) } }))
    const response = await fetch(`${server.origin}/auth/health`)
    expect(response.status).toBe(503)
    expect(await response.json()).toMatchObject({ status: "down", checks: { config: { status: "down", error: "MissingAdapter" } } })
    expect(logged.map((e) => e.name)).toEqual(["MissingAdapter"])
  })

  it("takes GET only", async () => {
    server = await httpServer(config(countedAdapter().adapter, { health: { endpoint: true } }))
    const response = await fetch(`${server.origin}/auth/health`, { method: "POST" })
    expect(response.status).toBe(405)
    await response.body?.cancel()
  })
})

describe("a flood of probes", () => {
  it("50 concurrent probes cost each store one call; the report serves a second, then the stores are read again", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })
    const { adapter, counter } = countedAdapter()
    const { store, counter: peeks } = countedStore()
    server = await httpServer(config(adapter, { rateLimit: { store }, health: { endpoint: true } }))
    const probe = () => fetch(`${server!.origin}/auth/health`).then(async (r) => ({ status: r.status, report: (await r.json()) as HealthReport }))
    const answers = await Promise.all(Array.from({ length: 50 }, probe))
    expect(answers.every((a) => a.status === 200 && a.report.status === "ok")).toBe(true)
    expect(new Set(answers.map((a) => a.report.time)).size).toBe(1)
    expect(counter.calls).toBe(1)
    expect(peeks.peeks).toBe(1)

    vi.setSystemTime(Date.now() + 900)
    await Promise.all(Array.from({ length: 10 }, probe))
    expect(counter.calls).toBe(1)

    vi.setSystemTime(Date.now() + 200)
    await Promise.all(Array.from({ length: 10 }, probe))
    expect(counter.calls).toBe(2)
    expect(peeks.peeks).toBe(2)
  })
})
