/**
 * What a configuration remembers about its JWT session registry (`RegistryState`,
 * `lib/session/registry.ts`): when each session was last confirmed, so a check within
 * `revocationCheckInterval` costs no store call. Everything it remembers must be exact —
 * one session's confirmation is never another's, a revocation it has seen is never answered
 * from memory, and the memory is bounded — since a wrong "still registered" is a revoked
 * session that keeps working. Driven with explicit clocks (`now`), so nothing here waits.
 */
import { describe, expect, it } from "vitest"
import { MemorySessionRegistry } from "@portcullis/memory-adapter"
import { createdAtOf, isSessionId, RegistryState, sessionIdOf, stepUpIdOf } from "../../src/lib/session/registry.js"

const INTERVAL = 60_000
const MAX_AGE = 24 * 60 * 60 * 1000

/** The memory registry, counting the confirmations it is asked for. */
class CountingRegistry extends MemorySessionRegistry {
  touches: string[] = []
  override async touch(userId: string, id: string, lastSeenAt: Date, expires: Date) {
    this.touches.push(`${userId}/${id}`)
    return super.touch(userId, id, lastSeenAt, expires)
  }
}

const id = (n: number) => n.toString(16).padStart(32, "0")

async function registered(sessions: [userId: string, id: string][]) {
  const store = new CountingRegistry()
  const now = Date.now()
  for (const [userId, sid] of sessions) await store.add({ id: sid, userId, createdAt: new Date(now), lastSeenAt: new Date(now), expires: new Date(now + MAX_AGE) })
  return { store, state: new RegistryState(store, INTERVAL), now }
}

describe("a confirmation within the interval", () => {
  it("answers at once without asking the store, and asks again from the moment the interval ends", async () => {
    const { store, state, now } = await registered([["ada", id(1)]])
    expect(await state.confirm("ada", id(1), now, MAX_AGE)).toBe(true)
    expect(state.confirm("ada", id(1), now + INTERVAL - 1, MAX_AGE)).toBe(true)
    expect(store.touches).toHaveLength(1)
    // At exactly the interval's end the confirmation is no longer trusted.
    expect(await state.confirm("ada", id(1), now + INTERVAL, MAX_AGE)).toBe(true)
    expect(store.touches).toHaveLength(2)
  })

  it("is one session's only: another session of the user, or the same id under another user, is asked for", async () => {
    const { store, state, now } = await registered([["ada", id(1)], ["ada", id(2)]])
    expect(await state.confirm("ada", id(1), now, MAX_AGE)).toBe(true)
    // id(2) was revoked elsewhere; ada's confirmed id(1) must not vouch for it.
    await store.remove("ada", [id(2)])
    expect(await state.confirm("ada", id(2), now + 1, MAX_AGE)).toBe(false)
    // Bob presenting ada's session id (under his own user id) is asked for, and is no one.
    expect(await state.confirm("bob", id(1), now + 1, MAX_AGE)).toBe(false)
    expect(store.touches).toEqual([`ada/${id(1)}`, `ada/${id(2)}`, `bob/${id(1)}`])
  })

  it("is not made by a session the store did not find", async () => {
    const { store, state, now } = await registered([])
    expect(await state.confirm("ada", id(1), now, MAX_AGE)).toBe(false)
    expect(await state.confirm("ada", id(1), now + 1, MAX_AGE)).toBe(false)
    expect(store.touches).toHaveLength(2)
  })
})

describe("a fresh confirmation (the step-up gate's, before a sensitive action)", () => {
  it("asks the store even within the interval", async () => {
    const { store, state, now } = await registered([["ada", id(1)]])
    await state.confirm("ada", id(1), now, MAX_AGE)
    expect(await state.confirm("ada", id(1), now + 1, MAX_AGE, true)).toBe(true)
    expect(store.touches).toHaveLength(2)
  })

  it("that finds the session revoked ends the confirmation remembered from before: the next plain check is refused too", async () => {
    const { store, state, now } = await registered([["ada", id(1)]])
    expect(await state.confirm("ada", id(1), now, MAX_AGE)).toBe(true)
    // Revoked on another instance: this one still remembers its confirmation.
    await store.remove("ada", [id(1)])
    expect(await state.confirm("ada", id(1), now + 1, MAX_AGE, true)).toBe(false)
    expect(await state.confirm("ada", id(1), now + 2, MAX_AGE)).toBe(false)
  })
})

describe("concurrent confirmations of one session", () => {
  it("share one store call, and once it settled the next check past the interval asks again", async () => {
    const { store, state, now } = await registered([["ada", id(1)]])
    const all = await Promise.all(Array.from({ length: 20 }, () => state.confirm("ada", id(1), now, MAX_AGE)))
    expect(all.every((found) => found === true)).toBe(true)
    expect(store.touches).toHaveLength(1)
    await store.remove("ada", [id(1)])
    expect(await state.confirm("ada", id(1), now + INTERVAL, MAX_AGE)).toBe(false)
    expect(store.touches).toHaveLength(2)
  })

  it("after a store failure (rejected to the caller) ask the store again rather than sharing the failure", async () => {
    const store = new CountingRegistry()
    const state = new RegistryState(store, INTERVAL)
    const now = Date.now()
    await store.add({ id: id(1), userId: "ada", createdAt: new Date(now), lastSeenAt: new Date(now), expires: new Date(now + MAX_AGE) })
    const touch = store.touch.bind(store)
    store.touch = async () => {
      throw new Error("registry down")
    }
    await expect(state.confirm("ada", id(1), now, MAX_AGE)).rejects.toThrow("registry down")
    store.touch = touch
    expect(await state.confirm("ada", id(1), now, MAX_AGE)).toBe(true)
  })
})

describe("a revocation made on this instance (forget)", () => {
  it("is seen by the next check at once, for exactly the sessions named", async () => {
    const { store, state, now } = await registered([["ada", id(1)], ["ada", id(2)]])
    await state.confirm("ada", id(1), now, MAX_AGE)
    await state.confirm("ada", id(2), now, MAX_AGE)
    await store.remove("ada", [id(1)])
    state.forget("ada", [id(1)])
    expect(await state.confirm("ada", id(1), now + 1, MAX_AGE)).toBe(false)
    expect(state.confirm("ada", id(2), now + 1, MAX_AGE)).toBe(true)
  })
})

describe("the memory of confirmations", () => {
  const LIMIT = 50_000

  /** A registry where every session is registered: the memory, not the store, is under test here. */
  function everyoneRegistered() {
    const touches: string[] = []
    const store = new MemorySessionRegistry()
    store.touch = async (userId: string, sid: string) => (touches.push(`${userId}/${sid}`), true)
    return { touches, state: new RegistryState(store, INTERVAL), now: Date.now() }
  }

  it("holds at most 50,000 sessions, dropping the one confirmed longest ago first", async () => {
    const { touches, state, now } = everyoneRegistered()
    for (let n = 0; n <= LIMIT; n++) await state.confirm("ada", id(n), now, MAX_AGE)
    touches.length = 0
    // The 50,001st confirmation pushed out the first; the second is still remembered.
    expect(state.confirm("ada", id(1), now + 1, MAX_AGE)).toBe(true)
    expect(await state.confirm("ada", id(0), now + 1, MAX_AGE)).toBe(true)
    expect(touches).toEqual([`ada/${id(0)}`])
  })

  it("when full, confirming a remembered session again drops no other session", async () => {
    const { touches, state, now } = everyoneRegistered()
    for (let n = 0; n < LIMIT; n++) await state.confirm("ada", id(n), now, MAX_AGE)
    // Session 5's confirmation ran out and is renewed: the memory is full, yet no one else goes.
    await state.confirm("ada", id(5), now + INTERVAL, MAX_AGE)
    touches.length = 0
    expect(state.confirm("ada", id(0), now + 1, MAX_AGE)).toBe(true)
    expect(touches).toEqual([])
  })
})

describe("session ids", () => {
  it("are 32 lowercase hexadecimal characters and nothing else", () => {
    expect(isSessionId(id(1))).toBe(true)
    expect(isSessionId("0123456789abcdef0123456789abcdef")).toBe(true)
    for (const bad of [id(1).toUpperCase().replace(/0/g, "A"), id(1).slice(1), `${id(1)}0`, `x${id(1)}`, `${id(1)}\n`, id(1).replace(/.$/, "g"), "", 12345, null, [id(1)]]) {
      expect(isSessionId(bad), JSON.stringify(bad)).toBe(false)
    }
  })

  it("name a JWT session by its registry id, else by its step-up id; a malformed claim names none", () => {
    expect(sessionIdOf({ pcl_sid: id(1), pcl_su: id(2) })).toBe(id(1))
    expect(sessionIdOf({ pcl_su: id(2) })).toBeUndefined()
    expect(sessionIdOf({ pcl_sid: "not-an-id" })).toBeUndefined()
    expect(stepUpIdOf({ pcl_sid: id(1), pcl_su: id(2) })).toBe(id(1))
    expect(stepUpIdOf({ pcl_su: id(2) })).toBe(id(2))
    expect(stepUpIdOf({ pcl_su: "../other-session" })).toBeUndefined()
    expect(stepUpIdOf({})).toBeUndefined()
  })
})

describe("when a JWT session began (for absoluteMaxAge)", () => {
  it("is its pcl_created claim in milliseconds, else its iat, else unknown", () => {
    expect(createdAtOf({ pcl_created: 1_700_000_000, iat: 1_800_000_000 })).toBe(1_700_000_000_000)
    expect(createdAtOf({ iat: 1_800_000_000 })).toBe(1_800_000_000_000)
    expect(createdAtOf({ pcl_created: "1700000000", iat: 1_800_000_000 })).toBe(1_800_000_000_000)
    expect(createdAtOf({ pcl_created: Number.POSITIVE_INFINITY, iat: 1_800_000_000 })).toBe(1_800_000_000_000)
    expect(createdAtOf({ pcl_created: Number.NaN })).toBeUndefined()
    expect(createdAtOf({ iat: "1800000000" } as never)).toBeUndefined()
  })
})
