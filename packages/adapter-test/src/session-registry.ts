/**
 * The conformance suite of a JWT session registry (`session.registry`): what core relies
 * on, as a spec. Run it from each registry's tests.
 * @module
 */
import { describe, expect, it } from "vitest"
import type { SessionRecord, SessionRegistry } from "@portcullis/core/adapters"
import { randomUUID, randomBytes } from "node:crypto"

/** How the suite obtains the registry under test (one per test file is enough: every spec uses its own users). */
export interface RegistryFactory {
  registry: () => SessionRegistry
}

const hour = 3_600_000

function record(userId: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  const now = Date.now()
  return {
    id: randomBytes(16).toString("hex"),
    userId,
    createdAt: new Date(now),
    lastSeenAt: new Date(now),
    expires: new Date(now + hour),
    userAgent: "Mozilla/5.0 (X11; Linux x86_64) Test",
    ipAddress: "203.0.113.7",
    ...overrides,
  }
}

/**
 * Registers the session-registry conformance suite.
 *
 * @example
 * ```ts
 * runSessionRegistryConformance("MemorySessionRegistry", { registry: () => new MemorySessionRegistry() })
 * ```
 */
export function runSessionRegistryConformance(name: string, factory: RegistryFactory): void {
  describe(`${name} (session registry conformance)`, () => {
    const r = () => factory.registry()
    const user = () => `user-${randomUUID()}`

    it("lists what was added, with every field as added (dates as Dates)", async () => {
      const userId = user()
      const added = record(userId)
      await r().add(added)
      const [listed] = await r().list(userId)
      expect(listed).toEqual(added)
    })

    it("lists only the user's own sessions", async () => {
      const [ada, bob] = [user(), user()]
      await r().add(record(ada))
      await r().add(record(bob))
      expect((await r().list(ada)).every((s) => s.userId === ada)).toBe(true)
      expect(await r().list(ada)).toHaveLength(1)
      expect(await r().list(user())).toEqual([])
    })

    it("touch answers true for a registered session and records when it was seen", async () => {
      const userId = user()
      const added = record(userId)
      await r().add(added)
      const seen = new Date(Date.now() + 1000)
      const expires = new Date(Date.now() + 2 * hour)
      expect(await r().touch(userId, added.id, seen, expires)).toBe(true)
      const [listed] = await r().list(userId)
      expect(listed!.lastSeenAt.getTime()).toBe(seen.getTime())
      expect(listed!.expires.getTime()).toBe(expires.getTime())
    })

    it("two touches with the same time (two instances in one millisecond) both answer true", async () => {
      const userId = user()
      const added = record(userId)
      await r().add(added)
      const at = new Date(Date.now() + 500)
      const expires = new Date(Date.now() + hour)
      expect(await r().touch(userId, added.id, at, expires)).toBe(true)
      expect(await r().touch(userId, added.id, at, expires)).toBe(true)
    })

    it("touch answers false for a removed, unknown or another user's session, and brings none back", async () => {
      const [ada, bob] = [user(), user()]
      const added = record(ada)
      await r().add(added)
      expect(await r().touch(bob, added.id, new Date(), new Date(Date.now() + hour))).toBe(false)
      expect(await r().remove(ada, [added.id])).toBe(1)
      expect(await r().touch(ada, added.id, new Date(), new Date(Date.now() + hour))).toBe(false)
      expect(await r().touch(ada, randomBytes(16).toString("hex"), new Date(), new Date(Date.now() + hour))).toBe(false)
      expect(await r().list(ada)).toEqual([])
      expect(await r().list(bob)).toEqual([])
    })

    it("remove takes only the named sessions of that user; another user's id is left alone", async () => {
      const [ada, bob] = [user(), user()]
      const [one, two] = [record(ada), record(ada)]
      const bobs = record(bob)
      for (const x of [one, two, bobs]) await r().add(x)
      expect(await r().remove(ada, [one.id, bobs.id])).toBe(1)
      expect((await r().list(ada)).map((s) => s.id)).toEqual([two.id])
      expect(await r().list(bob)).toHaveLength(1)
      expect(await r().remove(ada, [])).toBe(0)
    })

    it("removeAll takes every session of that user and no one else's", async () => {
      const [ada, bob] = [user(), user()]
      for (let i = 0; i < 3; i++) await r().add(record(ada))
      await r().add(record(bob))
      expect(await r().removeAll(ada)).toBe(3)
      expect(await r().list(ada)).toEqual([])
      expect(await r().list(bob)).toHaveLength(1)
    })

    it("does not list expired sessions, and touch does not revive them", async () => {
      const userId = user()
      const expired = record(userId, { createdAt: new Date(Date.now() - 2 * hour), lastSeenAt: new Date(Date.now() - 2 * hour), expires: new Date(Date.now() - hour) })
      await r().add(expired)
      expect(await r().list(userId)).toEqual([])
      expect(await r().touch(userId, expired.id, new Date(), new Date(Date.now() + hour))).toBe(false)
    })

    it("50 concurrent adds are 50 listed; 50 concurrent removals (each id twice) remove each exactly once", async () => {
      const userId = user()
      const records = Array.from({ length: 50 }, () => record(userId))
      await Promise.all(records.map((x) => r().add(x)))
      expect(await r().list(userId)).toHaveLength(50)
      const counts = await Promise.all([...records, ...records].map((x) => r().remove(userId, [x.id])))
      expect(counts.reduce((a, b) => a + b, 0)).toBe(50)
      expect(await r().list(userId)).toEqual([])
    })

    it("a touch racing a removal never leaves the session registered", async () => {
      const userId = user()
      const added = record(userId)
      await r().add(added)
      await Promise.all([
        ...Array.from({ length: 20 }, () => r().touch(userId, added.id, new Date(), new Date(Date.now() + hour))),
        r().remove(userId, [added.id]),
        ...Array.from({ length: 20 }, () => r().touch(userId, added.id, new Date(), new Date(Date.now() + hour))),
      ])
      expect(await r().list(userId)).toEqual([])
      expect(await r().touch(userId, added.id, new Date(), new Date(Date.now() + hour))).toBe(false)
    })

    // Optional (an admin console's "active sessions"): checked when the registry has it. Other
    // specs share the registry, so a spec counts what it added itself.
    const withCount = (title: string, fn: (count: () => Promise<number>) => Promise<void>) =>
      it(title, async () => {
        const registry = r()
        if (typeof registry.count !== "function") return void expect(registry.count).toBeUndefined()
        await fn(async () => registry.count!())
      })

    withCount("count: the unexpired sessions of every user, an expired or removed one not", async (count) => {
      const [ada, bob] = [user(), user()]
      const before = await count()
      const first = record(ada)
      await r().add(first)
      await r().add(record(bob))
      await r().add(record(bob, { expires: new Date(Date.now() + 300) }))
      expect(await count()).toBe(before + 3)
      await new Promise((resolve) => setTimeout(resolve, 400))
      expect(await count()).toBe(before + 2)
      await r().remove(ada, [first.id])
      expect(await count()).toBe(before + 1)
    })

    withCount("count: 50 sessions added at once", async (count) => {
      const userId = user()
      const before = await count()
      await Promise.all(Array.from({ length: 50 }, () => r().add(record(userId))))
      expect(await count()).toBe(before + 50)
    })
  })
}
