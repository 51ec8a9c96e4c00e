/**
 * `@portcullis/admin/testing`: the conformance suite every ban store passes (memory, SQL,
 * Redis, and yours): a ban read back, replaced, lifted, lapsing at its expiry, and 50
 * concurrent bans of one user leaving one.
 *
 * @example
 * ```ts
 * import { banStoreConformance } from "@portcullis/admin/testing"
 * banStoreConformance("my store", async () => ({ store: myStore(), close: async () => {} }))
 * ```
 * @module
 */
import { afterEach, describe, expect, it } from "vitest"
import type { Ban, BanStore } from "./store/types.js"

export interface BanStoreHarness {
  store: BanStore
  close(): Promise<void>
}

const ban = (userId: string, extra: Partial<Ban> = {}): Ban => ({ userId, reason: "spam", bannedBy: "user-admin", bannedAt: new Date(Math.floor(Date.now() / 1000) * 1000), expires: null, ...extra })

/** Runs the suite against the stores `open` makes (one per test). */
export function banStoreConformance(label: string, open: () => Promise<BanStoreHarness>, options: { skip?: boolean } = {}): void {
  describe.skipIf(!!options.skip)(`ban store conformance: ${label}`, () => {
    let harness: BanStoreHarness | undefined
    const store = async () => (harness = await open()).store
    afterEach(async () => {
      await harness?.close()
      harness = undefined
    })

    it("reads back a ban as stored, and null for a user without one", async () => {
      const s = await store()
      const stored = ban("user-1", { expires: new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000) })
      await s.ban(stored)
      expect(await s.get("user-1")).toEqual(stored)
      expect(await s.get("user-2")).toBeNull()
    })

    it("replaces a ban with the newer one", async () => {
      const s = await store()
      await s.ban(ban("user-1", { reason: "first" }))
      await s.ban(ban("user-1", { reason: "second" }))
      expect((await s.get("user-1"))?.reason).toBe("second")
    })

    it("lifts a ban, saying whether one was in force", async () => {
      const s = await store()
      await s.ban(ban("user-1"))
      expect(await s.unban("user-1")).toBe(true)
      expect(await s.get("user-1")).toBeNull()
      expect(await s.unban("user-1")).toBe(false)
    })

    it("lets an expired ban lapse by itself", async () => {
      const s = await store()
      await s.ban(ban("user-1", { expires: new Date(Date.now() + 1_000) }))
      expect(await s.get("user-1", new Date(Date.now() + 2_000))).toBeNull()
      expect(await s.get("user-1")).not.toBeNull()
    })

    it("answers the bans in force among many users", async () => {
      const s = await store()
      await s.ban(ban("user-1"))
      await s.ban(ban("user-3", { expires: new Date(Date.now() + 1_000) }))
      const found = await s.many(["user-1", "user-2", "user-3"], new Date(Date.now() + 2_000))
      expect([...found.keys()]).toEqual(["user-1"])
      expect((await s.many([])).size).toBe(0)
    })

    it("keeps ids exactly (case, unicode, quotes)", async () => {
      const s = await store()
      await s.ban(ban("User-Ä'1"))
      expect(await s.get("user-ä'1")).toBeNull()
      expect((await s.get("User-Ä'1"))?.userId).toBe("User-Ä'1")
    })

    it("holds one ban after 50 concurrent bans of one user", async () => {
      const s = await store()
      await Promise.all(Array.from({ length: 50 }, (_, i) => s.ban(ban("user-1", { reason: `r${i}` }))))
      expect((await s.get("user-1"))?.reason).toMatch(/^r\d+$/)
      expect(await s.unban("user-1")).toBe(true)
      expect(await s.get("user-1")).toBeNull()
    })
  })
}
