import { createServer, connect, type Server, type Socket } from "node:net"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import { Auth, raw, type AuthConfig } from "@portcullis/core"
import { AdapterError, InvalidConfig, ServiceUnavailable } from "@portcullis/core/errors"
import { postgresGate } from "./postgres-gate.js"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { runtimeFor } from "../src/lib/runtime.js"

const resolveConfig = (config: Parameters<typeof runtimeFor>[0]) => runtimeFor(config).config
import { Browser, captureLogger, credentialsConfig, direct } from "./helpers.js"
import { httpServer } from "./http-server.js"

/**
 * Issue #13: what Portcullis answers while its store is down, slow or paused. An outage is
 * its own outcome (`ServiceUnavailable`, 503): never a sign-out (`200 null`), never a
 * misconfiguration (`error=Configuration`), never a request held without bound.
 */

/** An adapter whose methods can be made to fail (refused connection) or hang (paused store). */
function faultyStore(adapter: Adapter = MemoryAdapter()) {
  const failing = new Set<string>()
  const hanging = new Set<string>()
  const calls: Record<string, number> = {}
  const wrapped: Record<string, unknown> = {}
  for (const [name, fn] of Object.entries(adapter)) {
    wrapped[name] = async (...args: unknown[]) => {
      calls[name] = (calls[name] ?? 0) + 1
      if (hanging.has(name)) return new Promise(() => {})
      if (failing.has(name)) throw new Error(`${name}: connect ECONNREFUSED 127.0.0.1:5432 (simulated outage)`)
      return (fn as (...a: unknown[]) => unknown).apply(adapter, args)
    }
  }
  return { adapter: wrapped as Adapter, failing, hanging, calls, inner: adapter }
}

function setup(extra: Partial<AuthConfig> = {}) {
  const store = faultyStore()
  const log = captureLogger()
  const config = credentialsConfig({ adapter: store.adapter, logger: log.logger, adapterTimeout: 200, ...extra })
  return { store, config, ...log }
}

async function signedIn(config: AuthConfig, transport = direct(config), origin?: string) {
  const browser = new Browser(transport, origin)
  const response = await browser.signIn()
  expect(response.status).toBe(302)
  expect(browser.sessionCookie()).toBeDefined()
  return browser
}

describe("adapterTimeout: every adapter call from core is bounded", () => {
  it("a call that never settles fails as AdapterError, its cause a TimeoutError", async () => {
    const store = faultyStore()
    store.hanging.add("getUser")
    const { adapter } = resolveConfig(credentialsConfig({ adapter: store.adapter, adapterTimeout: 50 }))
    const started = Date.now()
    const error = await adapter!.getUser!("someone").then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(AdapterError)
    expect((error as AdapterError).cause?.err).toMatchObject({ name: "TimeoutError" })
    expect((error as AdapterError).cause?.err?.message).toContain("within 50 ms")
    expect(Date.now() - started).toBeLessThan(1_000)
  })

  it("defaults to 5000 ms; false and 0 switch it off; anything else is a configuration error", () => {
    const adapter = MemoryAdapter()
    expect(resolveConfig(credentialsConfig({ adapter })).adapterTimeout).toBe(5_000)
    expect(resolveConfig(credentialsConfig({ adapter, adapterTimeout: false })).adapterTimeout).toBe(0)
    expect(resolveConfig(credentialsConfig({ adapter, adapterTimeout: 0 })).adapterTimeout).toBe(0)
    for (const bad of [-1, Number.NaN, "5000", 2 ** 31]) {
      expect(resolveConfig(credentialsConfig({ adapter, adapterTimeout: bad as number })).error).toBeInstanceOf(InvalidConfig)
    }
  })

  it("with the limit off, a slow call is waited for", async () => {
    const slow: Adapter = { ...MemoryAdapter(), getUser: (id) => new Promise((r) => setTimeout(() => r({ id, email: "a@b.c", emailVerified: null }), 80)) }
    const { adapter } = resolveConfig(credentialsConfig({ adapter: slow, adapterTimeout: false }))
    await expect(adapter!.getUser!("x")).resolves.toMatchObject({ id: "x" })
  })

  it("a paused store: a session check answers 503 within the limit instead of hanging", async () => {
    const { store, config } = setup()
    const browser = await signedIn(config)
    store.hanging.add("getSessionAndUser")
    const started = Date.now()
    const response = await browser.request("/auth/session")
    expect(response.status).toBe(503)
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it("50 concurrent checks against a paused store all answer 503 within the limit", async () => {
    const { store, config } = setup()
    const browsers = await Promise.all(Array.from({ length: 5 }, () => signedIn(config)))
    store.hanging.add("getSessionAndUser")
    const started = Date.now()
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => browsers[i % 5]!.request("/auth/session")))
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(503))
    expect(Date.now() - started).toBeLessThan(3_000)
  })
})

describe("GET /session during an outage answers 503 ServiceUnavailable, not 200 null", () => {
  it("503 with Retry-After and a JSON error; the cookie is kept and works again after recovery", async () => {
    const { store, config, lines } = setup()
    const browser = await signedIn(config)
    const cookie = browser.sessionCookie()
    store.failing.add("getSessionAndUser")
    const response = await browser.request("/auth/session")
    expect(response.status).toBe(503)
    expect(response.headers.get("retry-after")).toBe("5")
    expect(response.headers.get("cache-control")).toContain("no-store")
    expect(await response.json()).toEqual({ error: "ServiceUnavailable", message: expect.any(String) })
    expect(response.headers.getSetCookie()).toEqual([])
    expect(browser.sessionCookie()).toBe(cookie)
    // The log has the whole story: the outage, the adapter method, the driver's error.
    expect(lines.join("\n")).toMatch(/ServiceUnavailable[\s\S]*getSessionAndUser[\s\S]*ECONNREFUSED/)
    store.failing.clear()
    expect((await browser.session()).user.name).toBe("Ada Lovelace")
  })

  it("POST /session (update) during an outage answers 503 too", async () => {
    const { store, config } = setup()
    const browser = await signedIn(config)
    const csrfToken = await browser.csrfToken()
    store.failing.add("getSessionAndUser")
    const response = await browser.request("/auth/session", { json: { csrfToken, data: { name: "x" } } })
    expect(response.status).toBe(503)
  })

  it("a failed extension write is not an outage of the session: it is answered unextended", async () => {
    const { store, config, lines } = setup({ session: { updateAge: 0 } })
    const browser = await signedIn(config)
    store.failing.add("updateSession")
    const response = await browser.request("/auth/session")
    expect(response.status).toBe(200)
    expect(((await response.json()) as any).user.name).toBe("Ada Lovelace")
    expect(lines.join("\n")).toContain("could not be extended")
  })

  it("the raw variant (server-side readers) throws ServiceUnavailable instead of returning null", async () => {
    const { store, config } = setup()
    const browser = await signedIn(config)
    store.failing.add("getSessionAndUser")
    const request = new Request("http://localhost:3000/auth/session", { headers: { cookie: browser.cookieHeader() } })
    await expect(Auth(request, { ...config, raw })).rejects.toBeInstanceOf(ServiceUnavailable)
  })

  it("20 concurrent checks during an outage are all 503, none 200 null", async () => {
    const { store, config } = setup()
    const browser = await signedIn(config)
    store.failing.add("getSessionAndUser")
    const responses = await Promise.all(Array.from({ length: 20 }, () => browser.request("/auth/session")))
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(503))
  })
})

describe("sign-out during an outage is not reported as done", () => {
  it("the error page with ServiceUnavailable; the cookie is kept and the row survives; a retry after recovery signs out", async () => {
    const { store, config } = setup()
    const browser = await signedIn(config)
    const token = browser.sessionCookie()!
    store.failing.add("deleteSession")
    const response = await browser.signOut()
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/error?error=ServiceUnavailable")
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(false)
    expect(browser.sessionCookie()).toBe(token)
    expect(await store.inner.getSessionAndUser!(token)).not.toBeNull()

    store.failing.clear()
    const retry = await browser.signOut()
    expect(retry.headers.get("location")).toBe("http://localhost:3000")
    expect(browser.sessionCookie()).toBeUndefined()
    expect(await store.inner.getSessionAndUser!(token)).toBeNull()
  })

  it("fetch clients (X-Auth-Return-Redirect) get 503 with the error page's url, not 200", async () => {
    const { store, config } = setup()
    const browser = await signedIn(config)
    store.failing.add("deleteSession")
    const csrfToken = await browser.csrfToken()
    const response = await browser.request("/auth/signout", { form: { csrfToken }, headers: { "X-Auth-Return-Redirect": "1" } })
    expect(response.status).toBe(503)
    expect(response.headers.get("retry-after")).toBe("5")
    expect(await response.json()).toMatchObject({ error: "ServiceUnavailable", url: "http://localhost:3000/auth/error?error=ServiceUnavailable" })
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(false)
  })

  it("through a real HTTP server: the error page, and the session still reads as signed in afterwards", async () => {
    const { store, config } = setup()
    const server = await httpServer(config)
    try {
      const browser = await signedIn(config, server.transport, server.origin)
      store.failing.add("deleteSession")
      const response = await browser.signOut()
      expect(new URL(response.headers.get("location")!).search).toBe("?error=ServiceUnavailable")
      store.failing.clear()
      expect((await browser.session()).user.name).toBe("Ada Lovelace")
    } finally {
      await server.close()
    }
  })

  it("a paused store: sign-out fails within the limit and keeps the cookie", async () => {
    const { store, config } = setup()
    const browser = await signedIn(config)
    store.hanging.add("deleteSession")
    const response = await browser.signOut()
    expect(response.headers.get("location")).toContain("error=ServiceUnavailable")
    expect(browser.sessionCookie()).toBeDefined()
  })

  it("two tabs signing out at once, store up: both succeed and the row is gone", async () => {
    const { store, config } = setup()
    const browser = await signedIn(config)
    const token = browser.sessionCookie()!
    const csrfToken = await browser.csrfToken()
    const [a, b] = await Promise.all([0, 1].map(() => browser.request("/auth/signout", { form: { csrfToken } })))
    for (const r of [a!, b!]) expect(r.headers.get("location")).toBe("http://localhost:3000")
    expect(await store.inner.getSessionAndUser!(token)).toBeNull()
  })
})

describe("sign-in during an outage shows a try-again page, not Configuration", () => {
  it("a failing store ends on the error page with ServiceUnavailable, and no session", async () => {
    const { store, config } = setup()
    store.failing.add("createSession")
    const browser = new Browser(direct(config))
    const response = await browser.signIn()
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/error?error=ServiceUnavailable")
    expect(browser.sessionCookie()).toBeUndefined()
  })

  it("the error page answers 503 with Retry-After and a try-again message", async () => {
    const { config } = setup()
    const response = await Auth(new Request("http://localhost:3000/auth/error?error=ServiceUnavailable"), config)
    expect(response.status).toBe(503)
    expect(response.headers.get("retry-after")).toBe("5")
    const html = await response.text()
    expect(html).toContain("Temporarily unavailable")
    expect(html).toContain("please try again in a moment")
  })

  it("10 concurrent sign-ins during an outage all end on ServiceUnavailable", async () => {
    const { store, config } = setup()
    store.hanging.add("getUser")
    const responses = await Promise.all(Array.from({ length: 10 }, () => new Browser(direct(config)).signIn()))
    for (const r of responses) expect(r.headers.get("location")).toContain("error=ServiceUnavailable")
  })
})

/**
 * A TCP relay in front of PostgreSQL that can stop passing bytes: the store is up and the
 * connection open, but nothing answers — what a paused (SIGSTOP) or partitioned server does.
 */
async function pausableRelay(target: URL) {
  let paused = false
  const held: (() => void)[] = []
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on("close", () => sockets.delete(s))
      s.on("error", () => {})
    }
    const forward = (from: Socket, to: Socket) =>
      from.on("data", (chunk) => (paused ? held.push(() => to.write(chunk)) : to.write(chunk)))
    forward(client, upstream)
    forward(upstream, client)
    client.on("close", () => upstream.destroy())
    upstream.on("close", () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = new URL(target)
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: url.href,
    pause: () => void (paused = true),
    resume() {
      paused = false
      for (const release of held.splice(0)) release()
    },
    close: () => {
      for (const s of sockets) s.destroy()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

const { service, postgres } = await postgresGate()

/**
 * After `resume()` the relay first drains what it held while paused, so on a loaded
 * machine the pool's next queries can still miss a 300 ms limit. "After resume" in these
 * tests means once the store answers again, as a user's retry would find it: poll it
 * (bounded) instead of assuming the first query after resume is fast.
 */
async function storeAnswersAgain(adapter: Adapter): Promise<void> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const started = Date.now()
    try {
      await adapter.getUser!("00000000-0000-0000-0000-000000000000")
      if (Date.now() - started < 100) return
    } catch (error) {
      if (Date.now() > deadline) throw error
    }
    if (Date.now() > deadline) throw new Error("the store did not answer promptly within 10 s of resume")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

postgres.describe("a really paused PostgreSQL (gate)", () => {
  let relay: Awaited<ReturnType<typeof pausableRelay>>
  let database: TestDatabase
  let config: AuthConfig
  beforeAll(async () => {
    relay = await pausableRelay(new URL(service.url))
    database = await openTestDatabase("postgres", { url: relay.url })
    config = credentialsConfig({ adapter: database.adapter, adapterTimeout: 300, logger: captureLogger().logger })
  })
  afterAll(async () => {
    relay?.resume()
    await database?.close()
    await relay?.close()
  })

  it("a session check answers 503 within the limit, and the session reads again after resume", async () => {
    const browser = await signedIn(config)
    relay.pause()
    try {
      const started = Date.now()
      const check = await browser.request("/auth/session")
      expect(check.status).toBe(503)
      expect(Date.now() - started).toBeLessThan(2_000)
    } finally {
      relay.resume()
    }
    await storeAnswersAgain(database.adapter)
    expect((await browser.session()).user.name).toBe("Ada Lovelace")
  })

  it("a sign-out answers ServiceUnavailable and keeps the cookie; the retry after resume signs out", async () => {
    const browser = await signedIn(config)
    const token = browser.sessionCookie()!
    relay.pause()
    try {
      const signOut = await browser.signOut()
      expect(signOut.headers.get("location")).toContain("error=ServiceUnavailable")
      expect(browser.sessionCookie()).toBeDefined()
    } finally {
      relay.resume()
    }
    await storeAnswersAgain(database.adapter)
    // The abandoned DELETE may still land once the store resumes; the retry is idempotent
    // either way, and only its success clears the cookie.
    const retry = await browser.signOut()
    expect(retry.headers.get("location")).toBe("http://localhost:3000")
    expect(browser.sessionCookie()).toBeUndefined()
    const replay = await Auth(new Request("http://localhost:3000/auth/session", { headers: { cookie: `authjs.session-token=${token}` } }), config)
    expect(await replay.json()).toBeNull()
  })
})
