import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { resolve } from "../../src/lib/config/resolve.js"
import { revokeAllSessions } from "../../src/lib/password-flows/revoke.js"
import { publicId } from "../../src/lib/session/manage.js"
import { SECRET } from "../helpers.js"

/**
 * Ending every session of a user (`revokeAllSessions` in `lib/password-flows/revoke.ts`) —
 * what a password reset and a two-factor recovery do — on each session strategy, called on
 * a resolved configuration: which sessions end, what it returns, and the one
 * `sessionRevoked` event it reports them in (under the ids session management lists).
 */

type Revocation = { userId: string; sessionIds: string[]; scope: string; strategy: string }

function configured(adapter: Adapter, session: AuthConfig["session"] & { registry?: MemorySessionRegistry }) {
  const events: Revocation[] = []
  const config = resolve({ secret: SECRET, providers: [], adapter, session, events: { sessionRevoked: (message) => void events.push(message as Revocation) } }, {})
  return { ctx: { config }, events }
}

const inADay = () => new Date(Date.now() + 86_400_000)

async function userWithSessions(adapter: Adapter, email: string, tokens: string[]) {
  const user = await adapter.createUser!({ id: crypto.randomUUID(), email, emailVerified: new Date(), name: null, image: null })
  for (const sessionToken of tokens) await adapter.createSession!({ sessionToken, userId: user.id, expires: inADay() })
  return user
}

describe("database sessions", () => {
  it("end each of the user's sessions and no one else's, reported once under their public ids", async () => {
    const adapter = MemoryAdapter()
    const grace = await userWithSessions(adapter, "grace@example.com", ["grace-laptop", "grace-phone"])
    await userWithSessions(adapter, "ada@example.com", ["ada-laptop"])
    const { ctx, events } = configured(adapter, { strategy: "database" })
    expect(await revokeAllSessions(ctx, grace.id)).toBe(2)
    expect(await adapter.getSessionAndUser!("grace-laptop")).toBeNull()
    expect(await adapter.getSessionAndUser!("grace-phone")).toBeNull()
    expect(await adapter.getSessionAndUser!("ada-laptop")).not.toBeNull()
    expect(events).toHaveLength(1)
    expect(events[0]).toEqual({ userId: grace.id, sessionIds: expect.any(Array), scope: "everywhere", strategy: "database" })
    expect([...events[0]!.sessionIds].sort()).toEqual((await Promise.all(["grace-laptop", "grace-phone"].map(publicId))).sort())
  })

  it("from a store whose listSessions answers other users' rows too, end only the user's", async () => {
    const base = MemoryAdapter()
    const grace = await userWithSessions(base, "grace@example.com", ["grace-laptop"])
    const ada = await userWithSessions(base, "ada@example.com", ["ada-laptop"])
    // A store that ignores the user it is asked about.
    const sloppy: Adapter = { ...base, listSessions: async () => [...(await base.listSessions!(grace.id)), ...(await base.listSessions!(ada.id))] }
    const { ctx, events } = configured(sloppy, { strategy: "database" })
    expect(await revokeAllSessions(ctx, grace.id)).toBe(1)
    expect(await base.getSessionAndUser!("ada-laptop")).not.toBeNull()
    expect(events[0]!.sessionIds).toEqual([await publicId("grace-laptop")])
  })

  it("none to end: 0, and no event", async () => {
    const adapter = MemoryAdapter()
    const grace = await userWithSessions(adapter, "grace@example.com", [])
    const { ctx, events } = configured(adapter, { strategy: "database" })
    expect(await revokeAllSessions(ctx, grace.id)).toBe(0)
    expect(events).toEqual([])
  })

  it("on a store that cannot list sessions (an Auth.js adapter): none can be found, 0, and no event", async () => {
    const base = MemoryAdapter()
    const grace = await userWithSessions(base, "grace@example.com", ["grace-laptop"])
    const { listSessions: _, ...unlisting } = base
    const { ctx, events } = configured(unlisting, { strategy: "database" })
    expect(await revokeAllSessions(ctx, grace.id)).toBe(0)
    expect(await base.getSessionAndUser!("grace-laptop")).not.toBeNull()
    expect(events).toEqual([])
  })
})

describe("JWT sessions", () => {
  it("with a registry: the user's registered sessions end and no one else's, reported once", async () => {
    const registry = new MemorySessionRegistry()
    const { ctx, events } = configured(MemoryAdapter(), { strategy: "jwt", registry })
    const store = ctx.config.sessionRegistry!.store
    const record = (userId: string, id: string) => ({ id, userId, createdAt: new Date(), lastSeenAt: new Date(), expires: inADay() })
    await store.add(record("grace", "one"))
    await store.add(record("grace", "two"))
    await store.add(record("ada", "three"))
    expect(await revokeAllSessions(ctx, "grace")).toBe(2)
    expect(await store.list("grace")).toEqual([])
    expect((await store.list("ada")).map((r) => r.id)).toEqual(["three"])
    expect(events).toHaveLength(1)
    expect(events[0]).toEqual({ userId: "grace", sessionIds: expect.any(Array), scope: "everywhere", strategy: "jwt" })
    expect([...events[0]!.sessionIds].sort()).toEqual(["one", "two"])
  })

  it("without a registry: nothing can be ended, 0, and no event", async () => {
    const { ctx, events } = configured(MemoryAdapter(), { strategy: "jwt" })
    expect(await revokeAllSessions(ctx, "grace")).toBe(0)
    expect(events).toEqual([])
  })
})
