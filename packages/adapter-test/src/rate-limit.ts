/**
 * The contract every rate-limit store keeps (`RateLimitStore` in `@portcullis/core/rate-limit`),
 * run against the memory, Redis and SQL stores: counts, windows, reads, deletes, and 50
 * concurrent increments that all count.
 * @module
 */
import { describe, expect, it } from "vitest"
import type { RateLimitStore } from "@portcullis/core/rate-limit"

/** Registers the contract for `store()` (a fresh store per call, or one shared with distinct keys). */
export function runRateLimitStoreContract(name: string, store: () => RateLimitStore | Promise<RateLimitStore>): void {
  let n = 0
  const key = () => `contract:${Date.now().toString(36)}:${process.pid}:${++n}`

  describe(`${name}: the rate-limit store contract`, () => {
    it("counts hits of a key from 1, and reports the time left in its window", async () => {
      const s = await store()
      const k = key()
      expect((await s.hit(k, 60)).count).toBe(1)
      const second = await s.hit(k, 60)
      expect(second.count).toBe(2)
      expect(second.resetMs).toBeGreaterThan(0)
      expect(second.resetMs).toBeLessThanOrEqual(60_000)
    })

    it("adds the points given", async () => {
      const s = await store()
      const k = key()
      await s.hit(k, 60, 3)
      expect((await s.hit(k, 60, 4)).count).toBe(7)
    })

    it("keeps keys apart", async () => {
      const s = await store()
      const [a, b] = [key(), key()]
      await s.hit(a, 60)
      await s.hit(a, 60)
      expect((await s.hit(b, 60)).count).toBe(1)
    })

    it("reads a counter without changing it, whatever its window, and null for none", async () => {
      const s = await store()
      const [short, long] = [key(), key()]
      await s.hit(short, 60)
      await s.hit(long, 86_400, 2)
      expect((await s.peek(short))?.count).toBe(1)
      expect((await s.peek(long))?.count).toBe(2)
      expect((await s.peek(long))!.resetMs).toBeGreaterThan(60_000)
      expect(await s.peek(key())).toBeNull()
    })

    it("forgets a counter on reset, whatever its window", async () => {
      const s = await store()
      const k = key()
      await s.hit(k, 3600, 5)
      await s.reset(k)
      expect(await s.peek(k)).toBeNull()
      expect((await s.hit(k, 3600)).count).toBe(1)
    })

    it("does not extend the window on later hits", async () => {
      const s = await store()
      const k = key()
      const first = await s.hit(k, 60)
      const later = await s.hit(k, 60)
      expect(later.resetMs).toBeLessThanOrEqual(first.resetMs)
    })

    it("counts 50 concurrent hits of one key exactly: every count from 1 to 50 once", async () => {
      const s = await store()
      const k = key()
      const counts = (await Promise.all(Array.from({ length: 50 }, () => s.hit(k, 60)))).map((c) => c.count)
      expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
      expect((await s.peek(k))?.count).toBe(50)
    })
  })
}
