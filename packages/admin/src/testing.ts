/**
 * `@portcullis/admin/testing`: the conformance suites every ban store and every impersonation
 * store passes (memory, SQL, Redis, and yours): a ban read back, replaced, lifted, lapsing at
 * its expiry, and 50 concurrent bans of one user leaving one; an impersonation read back,
 * replaced by its end, forgotten after its `ttl`, and 50 concurrent writes leaving one whole
 * record.
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
import type { Impersonation, ImpersonationStore } from "./store/impersonations.js"

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

export interface ImpersonationStoreHarness {
  store: ImpersonationStore
  close(): Promise<void>
}

const second = () => Math.floor(Date.now() / 1000) * 1000
const impersonation = (extra: Partial<Impersonation> = {}): Impersonation => ({
  userId: "user-bob",
  by: { id: "user-ada", email: "ada@example.com" },
  startedAt: new Date(second()),
  until: new Date(second() + 1_800_000),
  endedAt: null,
  ...extra,
})
const HOUR = 3_600_000

/**
 * Runs the impersonation store suite against the stores `open` makes (one per test).
 *
 * @example
 * ```ts
 * impersonationStoreConformance("my store", async () => ({ store: myImpersonations(), close: async () => {} }))
 * ```
 */
export function impersonationStoreConformance(label: string, open: () => Promise<ImpersonationStoreHarness>, options: { skip?: boolean } = {}): void {
  describe.skipIf(!!options.skip)(`impersonation store conformance: ${label}`, () => {
    let harness: ImpersonationStoreHarness | undefined
    const store = async () => (harness = await open()).store
    afterEach(async () => {
      await harness?.close()
      harness = undefined
    })

    it("reads back a record as stored, and null for a session without one", async () => {
      const s = await store()
      const stored = impersonation()
      await s.put("session-1", stored, HOUR)
      expect(await s.get("session-1")).toEqual(stored)
      expect(await s.get("session-2")).toBeNull()
    })

    it("keeps an admin without an address as null", async () => {
      const s = await store()
      await s.put("session-1", impersonation({ by: { id: "user-ada", email: null } }), HOUR)
      expect((await s.get("session-1"))?.by).toEqual({ id: "user-ada", email: null })
    })

    it("replaces a record: the ended one is what every later read sees", async () => {
      const s = await store()
      const running = impersonation()
      await s.put("session-1", running, HOUR)
      const ended = { ...running, endedAt: new Date(second()) }
      await s.put("session-1", ended, HOUR)
      expect(await s.get("session-1")).toEqual(ended)
    })

    it("forgets a record after its ttl, and not before", async () => {
      const s = await store()
      await s.put("session-1", impersonation(), 150)
      await s.put("session-2", impersonation(), HOUR)
      expect(await s.get("session-1")).not.toBeNull()
      await new Promise((resolve) => setTimeout(resolve, 400))
      expect(await s.get("session-1")).toBeNull()
      expect(await s.get("session-2")).not.toBeNull()
      // A new put of the forgotten key stores afresh.
      await s.put("session-1", impersonation({ userId: "user-carol" }), HOUR)
      expect((await s.get("session-1"))?.userId).toBe("user-carol")
    })

    it("keeps keys exactly (case, unicode, quotes)", async () => {
      const s = await store()
      await s.put("Session-Ä'1", impersonation(), HOUR)
      expect(await s.get("session-ä'1")).toBeNull()
      expect((await s.get("Session-Ä'1"))?.userId).toBe("user-bob")
    })

    it("answers a key made of SQL, pattern or key-space characters with no other session's record", async () => {
      const s = await store()
      await s.put("session-1", impersonation(), HOUR)
      for (const probe of ["session-%", "session-_", "%", "*", "' OR '1'='1", "session-1' --", "session-1\u0000", " session-1", "session-1 ", "}session-1{"]) {
        expect(await s.get(probe)).toBeNull()
      }
      expect(await s.get("session-1")).not.toBeNull()
    })

    it("holds one whole record after 50 concurrent puts of one session", async () => {
      const s = await store()
      const records = Array.from({ length: 50 }, (_, i) => impersonation({ userId: `user-${i}`, by: { id: `admin-${i}`, email: `admin-${i}@example.com` } }))
      await Promise.all(records.map((r) => s.put("session-1", r, HOUR)))
      const found = await s.get("session-1")
      // Whichever won, its fields are all its own: no row mixes two writes.
      expect(records).toContainEqual(found)
    })

    it("keeps 50 sessions' records apart when written at once", async () => {
      const s = await store()
      await Promise.all(Array.from({ length: 50 }, (_, i) => s.put(`session-${i}`, impersonation({ userId: `user-${i}` }), HOUR)))
      const found = await Promise.all(Array.from({ length: 50 }, (_, i) => s.get(`session-${i}`)))
      expect(found.map((r) => r?.userId)).toEqual(Array.from({ length: 50 }, (_, i) => `user-${i}`))
    })
  })
}
