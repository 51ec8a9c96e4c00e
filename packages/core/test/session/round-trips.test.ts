/**
 * Store round trips per session check (issue 35), counted, not timed: with database
 * sessions every `GET /auth/session` reads the store exactly once and writes nothing while
 * the session is not due for extension (`updateAge`); with JWT sessions and a session
 * registry, many checks of one session ask the registry at most once per
 * `revocationCheckInterval`. Real SQLite (through `SqlAdapter`, its methods counted) and
 * real Redis (`RedisAdapter` / `RedisSessionRegistry`, every command the client sends
 * counted).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import type { Redis } from "ioredis"
import { createAuth, type AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import type { SessionRegistry } from "@portcullis/core/types"
import { redisAvailable } from "@portcullis/adapter-test"
import { openRedisPrefix } from "@portcullis/adapter-test/redis"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { RedisAdapter, RedisSessionRegistry } from "@portcullis/redis-adapter"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { Browser, credentialsConfig } from "../helpers.js"

const COOKIE = "authjs.session-token"
const quiet = { error() {}, warn() {}, debug() {} }
const DAY = 24 * 60 * 60 * 1000
const redis = await redisAvailable()

/** `target` with every method call counted by name (the adapter's or the registry's own calls, as core makes them). */
function counted<T extends object>(target: T): { wrapped: T; calls: Record<string, number>; reset(): void } {
  const calls: Record<string, number> = {}
  const wrapped = { ...target } as Record<string, unknown>
  for (const [name, value] of Object.entries(target)) {
    if (typeof value !== "function") continue
    wrapped[name] = (...args: unknown[]) => {
      calls[name] = (calls[name] ?? 0) + 1
      return (value as (...a: unknown[]) => unknown).apply(target, args)
    }
  }
  return { wrapped: wrapped as T, calls, reset: () => { for (const k of Object.keys(calls)) delete calls[k] } }
}

/** Counts every command `client` sends (a script call is one; a pipeline's commands each one). */
function countCommands(client: Redis): { count(): number; reset(): void } {
  let n = 0
  const send = client.sendCommand.bind(client)
  client.sendCommand = ((command: Parameters<Redis["sendCommand"]>[0], stream?: Parameters<Redis["sendCommand"]>[1]) => {
    n++
    return send(command, stream)
  }) as Redis["sendCommand"]
  return { count: () => n, reset: () => void (n = 0) }
}

async function seed(adapter: Adapter, sessions: { token: string; expires: Date }[]) {
  await adapter.createUser!({ id: "user-ada", name: "Ada Lovelace", email: "ada@example.com", emailVerified: null })
  for (const s of sessions) await adapter.createSession!({ sessionToken: s.token, userId: "user-ada", expires: s.expires })
}

function checker(config: AuthConfig) {
  const auth = createAuth(config)
  return async (token: string) => {
    const response = await auth.handle(new Request("http://localhost:3000/auth/session", { headers: { cookie: `${COOKIE}=${token}` } }))
    return { status: response.status, body: (await response.json()) as { user?: { email?: string } } | null, setCookie: response.headers.getSetCookie() }
  }
}

const live = Array.from({ length: 10 }, (_, i) => ({ token: `live-${i}`, expires: new Date(Date.now() + 30 * DAY) }))
const due = { token: "due", expires: new Date(Date.now() + 20 * DAY) }

describe("database sessions on SQLite: one store read per check", () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await openTestDatabase("sqlite")
    await seed(database.adapter, [...live, due])
  })
  afterAll(() => database?.close())

  it("reads the session once and writes nothing for checks not near updateAge; a due session is extended once", async () => {
    const adapter = counted(database.adapter)
    const check = checker(credentialsConfig({ logger: quiet, adapter: adapter.wrapped, session: { strategy: "database" } }))
    await check(live[0]!.token)
    adapter.reset()
    for (let round = 0; round < 10; round++) {
      for (const s of live) {
        const answer = await check(s.token)
        expect(answer.body?.user?.email).toBe("ada@example.com")
        expect(answer.setCookie).toEqual([])
      }
    }
    expect(adapter.calls).toEqual({ getSessionAndUser: 100 })

    adapter.reset()
    expect((await check(due.token)).setCookie.length).toBe(1)
    expect(adapter.calls).toEqual({ getSessionAndUser: 1, updateSession: 1 })
    adapter.reset()
    expect((await check(due.token)).setCookie).toEqual([])
    expect(adapter.calls).toEqual({ getSessionAndUser: 1 })
  })

  it("an unknown or expired token is one read too (and nothing written for an unknown one)", async () => {
    const adapter = counted(database.adapter)
    const check = checker(credentialsConfig({ logger: quiet, adapter: adapter.wrapped, session: { strategy: "database" } }))
    await check(live[0]!.token)
    adapter.reset()
    for (let i = 0; i < 5; i++) expect((await check(`unknown-${i}`)).body).toBeNull()
    expect(adapter.calls).toEqual({ getSessionAndUser: 5 })
  })

  it("50 concurrent checks of one session share reads, never more than one each", async () => {
    const adapter = counted(database.adapter)
    const check = checker(credentialsConfig({ logger: quiet, adapter: adapter.wrapped, session: { strategy: "database" } }))
    await check(live[1]!.token)
    adapter.reset()
    const answers = await Promise.all(Array.from({ length: 50 }, () => check(live[1]!.token)))
    for (const a of answers) expect(a.body?.user?.email).toBe("ada@example.com")
    expect(adapter.calls.getSessionAndUser).toBeGreaterThanOrEqual(1)
    expect(adapter.calls.getSessionAndUser).toBeLessThanOrEqual(50)
    expect(Object.keys(adapter.calls)).toEqual(["getSessionAndUser"])
  })
})

redis.describe("database sessions on Redis: one command per check", () => {
  let store: Awaited<ReturnType<typeof openRedisPrefix>>
  let commands: ReturnType<typeof countCommands>
  let adapter: Adapter
  beforeAll(async () => {
    store = await openRedisPrefix("round-trips")
    commands = countCommands(store.client)
    adapter = RedisAdapter(store.client, { prefix: store.prefix, logger: { error() {}, warn() {} } })
    await seed(adapter, [...live, due])
  })
  afterAll(() => store?.close())

  it("sends exactly one command (the session-and-user script) per check not near updateAge", async () => {
    const check = checker(credentialsConfig({ logger: quiet, adapter, session: { strategy: "database" } }))
    // The first call may load the script (NOSCRIPT, then SCRIPT LOAD / EVAL): not counted.
    await check(live[0]!.token)
    commands.reset()
    for (let round = 0; round < 5; round++) {
      for (const s of live) expect((await check(s.token)).body?.user?.email).toBe("ada@example.com")
    }
    expect(commands.count()).toBe(50)
  })
})

redis.describe("JWT sessions with a Redis session registry: at most one registry read per revocationCheckInterval", () => {
  let store: Awaited<ReturnType<typeof openRedisPrefix>>
  beforeAll(async () => {
    store = await openRedisPrefix("round-trips-registry")
  })
  afterAll(() => store?.close())
  afterEach(() => vi.useRealTimers())

  it("many checks of one session ask the registry once per interval, concurrent ones included", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })
    // Every registry call core makes, counted by method.
    const real = new RedisSessionRegistry(store.client, { prefix: store.prefix })
    const calls: Record<string, number> = {}
    const count = (name: string) => void (calls[name] = (calls[name] ?? 0) + 1)
    const wrapped: SessionRegistry = {
      add: (r) => (count("add"), real.add(r)),
      touch: (u, i, l, e) => (count("touch"), real.touch(u, i, l, e)),
      list: (u) => (count("list"), real.list(u)),
      remove: (u, ids) => (count("remove"), real.remove(u, ids)),
      removeAll: (u) => (count("removeAll"), real.removeAll(u)),
    }
    const auth = createAuth(credentialsConfig({ logger: quiet, session: { strategy: "jwt", registry: wrapped, revocationCheckInterval: 60 }, adapter: MemoryAdapter() }))
    const browser = new Browser((request) => auth.handle(request))
    expect((await browser.signIn()).status).toBe(302)
    expect(calls.add).toBe(1)
    for (const k of Object.keys(calls)) delete calls[k]
    for (let i = 0; i < 40; i++) expect((await browser.session())?.user?.email).toBe("ada@example.com")
    expect(calls.touch ?? 0).toBeLessThanOrEqual(1)
    // Past the interval: one more confirmation for the next 40 checks, 20 of them concurrent.
    vi.setSystemTime(Date.now() + 61_000)
    const before = calls.touch ?? 0
    await Promise.all(Array.from({ length: 20 }, () => browser.session()))
    for (let i = 0; i < 20; i++) await browser.session()
    expect((calls.touch ?? 0) - before).toBe(1)
    expect(Object.keys(calls).filter((k) => k !== "touch")).toEqual([])
  })
})
