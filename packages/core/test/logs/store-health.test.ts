/**
 * Issue 29: a store's outage tracker writes each of its lines — the first failure with its
 * chain, the count, the recovery — at most once a window, however the store flaps.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { recorder } from "./support.js"
import { StoreHealth } from "../../src/lib/store-health.js"

afterEach(() => vi.useRealTimers())

describe("a store's outage tracker", () => {
  it("a store that flaps 10,000 times in a minute writes one stack, at most one count and one recovered line", () => {
    vi.useFakeTimers({ toFake: ["Date"], now: 0 })
    const { lines, logger } = recorder()
    const health = new StoreHealth(logger)
    const adapter = health.of("adapter")
    for (let i = 0; i < 10_000; i++) {
      vi.setSystemTime(i * 5)
      const error = new Error(`refused ${i}`)
      health.raised("adapter", error)
      health.failed(error)
      adapter.recovered()
    }
    expect(lines.filter((l) => l.level === "error")).toEqual([{ level: "error", code: "refused 0" }])
    expect(lines.filter((l) => l.code === "store-recovered")).toHaveLength(1)
    expect(lines.length).toBeLessThanOrEqual(3)
  })

  it("an error no wrapper raised counts against the generic store, which starts a new outage after a quiet window", () => {
    vi.useFakeTimers({ toFake: ["Date"], now: 0 })
    const { lines, logger } = recorder()
    const health = new StoreHealth(logger)
    health.failed(new Error("first"))
    health.failed(new Error("second"))
    vi.setSystemTime(120_000)
    health.failed(new Error("after a quiet minute"))
    expect(lines.filter((l) => l.level === "error").map((l) => l.code)).toEqual(["first", "after a quiet minute"])
  })
})
