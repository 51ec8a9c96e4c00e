import { describe, expect, it } from "vitest"
import { Deadlines } from "../../src/lib/config/deadlines.js"

/** One timer bounds every call of a store (`Deadlines`), in place of a timer per call. */
const late = () => new DOMException("late", "TimeoutError")
const never = () => new Promise<never>(() => {})
const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms))

describe("deadlines", () => {
  it("pass a call's answer or failure through when it settles in time", async () => {
    const deadlines = new Deadlines(200)
    await expect(deadlines.race(Promise.resolve(1), late)).resolves.toBe(1)
    await expect(deadlines.race(after(10, "x"), late)).resolves.toBe("x")
    await expect(deadlines.race(Promise.reject(new Error("down")), late)).rejects.toThrow("down")
  })

  it("fail a call that has not settled within the limit, and not much later", async () => {
    const deadlines = new Deadlines(60)
    const started = performance.now()
    await expect(deadlines.race(never(), late)).rejects.toMatchObject({ name: "TimeoutError" })
    const took = performance.now() - started
    expect(took).toBeGreaterThanOrEqual(59)
    expect(took).toBeLessThan(60 * 1.25 + 200) // the sweep interval, plus a busy machine's slack
  })

  it("50 hanging calls at once all fail; 50 quick ones beside them all answer", async () => {
    const deadlines = new Deadlines(50)
    const hanging = Array.from({ length: 50 }, () => deadlines.race(never(), late))
    const quick = Array.from({ length: 50 }, (_, i) => deadlines.race(after(5, i), late))
    expect(await Promise.all(quick)).toEqual(Array.from({ length: 50 }, (_, i) => i))
    const outcomes = await Promise.allSettled(hanging)
    expect(outcomes.every((o) => o.status === "rejected" && (o.reason as Error).name === "TimeoutError")).toBe(true)
  })

  it("ignore a late call's eventual outcome, a rejection included (never unhandled)", async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on("unhandledRejection", onUnhandled)
    try {
      const deadlines = new Deadlines(20)
      const slowFailure = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("too late")), 80))
      await expect(deadlines.race(slowFailure, late)).rejects.toMatchObject({ name: "TimeoutError" })
      await after(120, null)
      expect(unhandled).toEqual([])
    } finally {
      process.off("unhandledRejection", onUnhandled)
    }
  })

  it("keep no timer running once nothing is pending, and start one again when needed", async () => {
    const deadlines = new Deadlines(20)
    await expect(deadlines.race(never(), late)).rejects.toMatchObject({ name: "TimeoutError" })
    await after(40, null)
    // A fresh call after the sweep stopped is still bounded.
    await expect(deadlines.race(never(), late)).rejects.toMatchObject({ name: "TimeoutError" })
  })
})
