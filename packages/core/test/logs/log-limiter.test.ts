/**
 * Issue 29: the state behind rate-limited log lines cannot grow with traffic. The limiter's
 * windows are keyed by (code, kind), and one kind comes from traffic — the two-factor
 * warning's `<userId>:<reason>` — so a stream of users (or of user ids an attacker makes
 * up after a first factor) grew its map without bound.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { recorder } from "./support.js"
import { LogLimiter } from "../../src/lib/log-limiter.js"

afterEach(() => vi.useRealTimers())

describe("the log limiter under kinds that come from traffic", () => {
  it("100,000 user ids in a minute hold at most its bound of windows, and write at most that many lines", () => {
    vi.useFakeTimers({ toFake: ["Date"], now: 0 })
    const { lines, logger } = recorder()
    const limiter = new LogLimiter(logger, 60_000, 100)
    for (let i = 0; i < 100_000; i++) limiter.warn("two-factor-code-refused", `user-${i}:wrong`, { userId: `user-${i}`, reason: "wrong" })
    // The bound's windows, and one overflow window for the code.
    expect(limiter.size).toBeLessThanOrEqual(101)
    expect(lines.length).toBeLessThanOrEqual(101)
    expect(lines.at(-1)!.details).toMatchObject({ kind: "(more kinds)" })
  })

  it("expired windows are swept: a day of new user ids every minute never holds more than the bound", () => {
    vi.useFakeTimers({ toFake: ["Date"], now: 0 })
    const { lines, logger } = recorder()
    const limiter = new LogLimiter(logger, 60_000, 100)
    for (let minute = 0; minute < 24 * 60; minute++) {
      vi.setSystemTime(minute * 60_000)
      for (let i = 0; i < 50; i++) limiter.warn("two-factor-code-refused", `user-${minute}-${i}:wrong`)
      expect(limiter.size).toBeLessThanOrEqual(101)
    }
    // 50 kinds a minute fit the bound once the last minute's are swept: each got its line.
    expect(lines.filter((l) => l.details?.kind === "(more kinds)").length).toBeLessThanOrEqual(24 * 60)
  })

  it("a repeated kind is still one line a window, with the count on the next", () => {
    vi.useFakeTimers({ toFake: ["Date"], now: 0 })
    const { lines, logger } = recorder()
    const limiter = new LogLimiter(logger)
    for (let i = 0; i < 1_000; i++) limiter.warn("csrf-refused", "MissingCSRF")
    vi.setSystemTime(60_000)
    limiter.warn("csrf-refused", "MissingCSRF")
    expect(lines).toEqual([
      { level: "warn", code: "csrf-refused", details: { kind: "MissingCSRF" } },
      { level: "warn", code: "csrf-refused", details: { kind: "MissingCSRF", suppressed: 999, windowSeconds: 60 } },
    ])
  })
})
