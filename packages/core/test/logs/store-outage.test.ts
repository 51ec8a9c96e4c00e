/**
 * Issue 29, log levels by cause: a store outage logs its first failure with the cause
 * chain, then counts, then one "recovered" line. Measured before: a 5.4 s PostgreSQL stop
 * wrote 4,754 `[auth][error]` entries with full cause stacks (53,867 lines). Done when a
 * 10 s outage under load writes fewer than 50 lines.
 *
 * The store is a memory adapter whose every call is refused as a stopped server's would be
 * while it is down, served over a real HTTP server to concurrent session checks and
 * sign-ins. The clock (`Date`) is moved on between waves of requests, so ten seconds — or
 * ten minutes — of outage take a moment.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { outageFixture } from "../outage-fixture.js"
import { ada } from "../helpers.js"
import { httpServer, type TestServer } from "../http-server.js"
import { consoleLines, flood, STACK_LINE } from "./support.js"

let server: TestServer | undefined
let printed: ReturnType<typeof consoleLines> | undefined
afterEach(async () => {
  printed?.restore()
  vi.useRealTimers()
  await server?.close()
})

/** A signed-in app on a store that can be stopped, its console captured. */
async function app() {
  const store = outageFixture()
  const cookie = await store.signedInCookie()
  // The fixture's config silences logger.error: take the default console logger back.
  const { logger: _silent, ...config } = store.config()
  server = await httpServer(config)
  const csrfResponse = await fetch(`${server.origin}/auth/csrf`)
  const { csrfToken } = (await csrfResponse.json()) as { csrfToken: string }
  const csrfCookie = csrfResponse.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; ")
  const origin = server.origin
  /** Every other request a session check, the rest sign-ins: both need the store. */
  const request = (i: number) =>
    i % 2
      ? fetch(`${origin}/auth/session`, { headers: { cookie } })
      : fetch(`${origin}/auth/callback/credentials`, { method: "POST", redirect: "manual", body: new URLSearchParams({ csrfToken, ...ada }).toString(), headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie } })
  return { store, request }
}

/** `seconds` of outage: a wave of 40 requests (20 in flight) every 200 ms of the clock, each answered 503 or the error page. */
async function outage(request: (i: number) => Promise<Response>, seconds: number) {
  for (let wave = 0; wave < seconds * 5; wave++) {
    await flood(40, 20, request, (response) => {
      if (response.status === 302) expect(response.headers.get("location")).toContain("error=ServiceUnavailable")
      else expect(response.status).toBe(503)
    })
    vi.setSystemTime(Date.now() + 200)
  }
}

describe("a 10 s store outage under concurrent load", () => {
  it("writes fewer than 50 lines: the first failure with its chain, counts, one recovered line", { timeout: 120_000 }, async () => {
    const { store, request } = await app()
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })
    printed = consoleLines()

    store.down = true
    await outage(request, 10)
    store.down = false
    await flood(20, 10, request, (response) => expect(response.status).not.toBe(503))

    const { lines, calls } = printed
    printed.restore()
    expect(lines.length).toBeLessThan(50)
    // The first lines are the error, with the chain down to the driver's error and its stack.
    expect(calls[0]!.level).toBe("error")
    expect(calls[0]!.text).toMatch(/^\[auth\]\[error\] ServiceUnavailable: /)
    expect(calls[1]!.text).toMatch(/^\[auth\]\[cause\]: Error: \w+: connect ECONNREFUSED 127\.0\.0\.1:5432/)
    expect(calls[1]!.text.split("\n").some((line) => STACK_LINE.test(line))).toBe(true)
    // Only one error, and exactly one line saying the store is back.
    expect(calls.filter((c) => c.text.startsWith("[auth][error]"))).toHaveLength(1)
    expect(calls.filter((c) => c.text.startsWith("[auth][warn][store-recovered]"))).toHaveLength(1)
    expect(calls.at(-1)!.text).toMatch(/^\[auth\]\[warn\]\[store-recovered\] .*"store":"adapter","failures":2000,"outageSeconds":10/)
  })

  it("a ten-minute outage writes O(1) lines a minute: one count line per minute, no second stack", { timeout: 120_000 }, async () => {
    const { store, request } = await app()
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })
    printed = consoleLines()

    store.down = true
    for (let minute = 0; minute < 10; minute++) {
      // A burst of failures, then the rest of the minute passes.
      await flood(40, 20, request, () => {})
      vi.setSystemTime(Date.now() + 60_000)
    }
    store.down = false
    await flood(4, 2, request, () => {})

    const { calls, lines } = printed
    printed.restore()
    expect(calls.filter((c) => c.text.startsWith("[auth][error]"))).toHaveLength(1)
    expect(calls.filter((c) => c.text.startsWith("[auth][warn][store-failing]"))).toHaveLength(9)
    expect(calls.filter((c) => c.text.startsWith("[auth][warn][store-recovered]"))).toHaveLength(1)
    expect(lines.length).toBeLessThan(50)
  })
})

describe("a store that flaps (fails, answers, fails again) under load", () => {
  it("writes no second stack within the minute: its failures are counted", { timeout: 60_000 }, async () => {
    const { store, request } = await app()
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })
    printed = consoleLines()

    for (let flap = 0; flap < 50; flap++) {
      store.down = true
      await flood(10, 5, request, () => {})
      store.down = false
      await flood(2, 2, request, () => {})
      vi.setSystemTime(Date.now() + 500)
    }

    const { calls, lines } = printed
    printed.restore()
    // 25 s of flapping: one stack, at most one count and one recovered line a minute.
    expect(calls.filter((c) => c.text.startsWith("[auth][error]"))).toHaveLength(1)
    expect(calls.filter((c) => c.text.startsWith("[auth][warn][store-recovered]"))).toHaveLength(1)
    expect(lines.length).toBeLessThan(50)
  })
})
