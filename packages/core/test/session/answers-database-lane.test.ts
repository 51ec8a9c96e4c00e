/**
 * The database session lane on its own (`DatabaseSessionAnswers` in `lib/session/answers.ts`):
 * what it answers itself and what it hands to the full check. Through `Auth()` the lane only
 * runs once the origin is remembered, and the full check gives the same body either way, so
 * a lane that answered nothing itself would pass every comparison of answers; these tests
 * ask the lane directly.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { AdapterSession, AdapterUser } from "@portcullis/core/adapters"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { resolve } from "../../src/lib/config/resolve.js"
import { sha256Hex } from "../../src/lib/crypto.js"
import { sessionAnswers } from "../../src/lib/session/answers.js"
import type { LookedUp } from "../../src/lib/context.js"
import { credentialsConfig } from "../helpers.js"

const COOKIE = "authjs.session-token"
const NOW = new Date("2026-11-28T12:00:00.000Z")
const DAY = 86_400_000
const quiet = { error() {}, warn() {}, debug() {} }
const user: AdapterUser = { id: "u1", email: "ada@example.com", emailVerified: null, name: "Ada", image: null }

/**
 * The lane of a database configuration over rows kept here. Each read answers a fresh copy
 * of the row whatever its expiry (an Auth.js adapter may leave the expiry check to core).
 */
function laneOver(rows: Record<string, Date>, session: Partial<NonNullable<AuthConfig["session"]>> = {}) {
  const adapter = {
    ...MemoryAdapter(),
    async getSessionAndUser(token: string): Promise<{ session: AdapterSession; user: AdapterUser } | null> {
      const expires = rows[token]
      return expires ? { session: { sessionToken: token, userId: user.id, expires: new Date(expires) }, user: { ...user } } : null
    },
  }
  const lane = sessionAnswers(resolve(credentialsConfig({ logger: quiet, adapter, session: { strategy: "database", ...session } }), {}))
  if (!lane) throw new Error("a database configuration with no callback has a lane")
  return lane
}

const answerOf = (expires: Date) => JSON.stringify({ user: { name: "Ada", email: "ada@example.com", image: null }, expires: expires.toISOString() })

afterEach(() => vi.useRealTimers())

describe("a live row not due for extension", () => {
  it("is answered by the lane itself, as databaseStrategy.read builds the answer", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    const expires = new Date(NOW.getTime() + 30 * DAY)
    const lane = laneOver({ tok: expires })
    expect(await lane.answer(`${COOKIE}=tok`, false)).toBe(answerOf(expires))
  })

  it("is answered by the lane itself with hashed tokens too (the key is hashed first)", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    const expires = new Date(NOW.getTime() + 30 * DAY)
    const lane = laneOver({ [await sha256Hex("tok")]: expires }, { hashTokens: true })
    expect(await lane.answer(`${COOKIE}=tok`, false)).toBe(answerOf(expires))
    // The cookie's token itself is not a stored key there.
    expect(typeof (await laneOver({ tok: expires }, { hashTokens: true }).answer(`${COOKIE}=tok`, false))).toBe("object")
  })

  it("is the secure cookie's over https", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    const expires = new Date(NOW.getTime() + 30 * DAY)
    const lane = laneOver({ tok: expires })
    expect(await lane.answer(`__Secure-${COOKIE}=tok`, true)).toBe(answerOf(expires))
    expect(await lane.answer(`${COOKIE}=tok`, true)).toBe("null")
  })
})

describe("a row that is over", () => {
  // An updateAge past maxAge: a row is never due for extension, so "due" cannot stand in
  // for the expiry check.
  const neverDue = { maxAge: 60, updateAge: 3600 }

  it("is handed to the full check with its reading, never answered, once its expiry has passed", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    const lane = laneOver({ tok: new Date(NOW.getTime() - 1000) }, neverDue)
    const handoff = (await lane.answer(`${COOKIE}=tok`, false)) as LookedUp
    expect(handoff).toMatchObject({ key: "tok" })
    expect((await handoff.reading)?.session.sessionToken).toBe("tok")
  })

  it("is over at the very millisecond of its expiry", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    const lane = laneOver({ tok: NOW }, neverDue)
    expect(await lane.answer(`${COOKIE}=tok`, false)).toMatchObject({ key: "tok" })
    // One millisecond before, it is still live.
    vi.setSystemTime(NOW.getTime() - 1)
    expect(await lane.answer(`${COOKIE}=tok`, false)).toBe(answerOf(NOW))
  })
})

describe("a live row due for extension", () => {
  it("is handed to the full check, which extends it and re-sets the cookie", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    // Default maxAge 30 days, updateAge 1 day: a row with less than 29 days left is due.
    const lane = laneOver({ tok: new Date(NOW.getTime() + 28 * DAY) })
    expect(await lane.answer(`${COOKIE}=tok`, false)).toMatchObject({ key: "tok" })
    expect(await laneOver({ tok: new Date(NOW.getTime() + 29 * DAY + 1) }).answer(`${COOKIE}=tok`, false)).toBe(answerOf(new Date(NOW.getTime() + 29 * DAY + 1)))
  })
})

describe("concurrent checks of one session that the full check must finish", () => {
  it("share one reading of the row: the same object, not copies (the lane and the full check only read it)", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    // Due for extension (default maxAge 30 days, updateAge 1 day): the full check extends it.
    const lane = laneOver({ tok: new Date(NOW.getTime() + DAY) })
    const [first, second] = (await Promise.all([lane.answer(`${COOKIE}=tok`, false), lane.answer(`${COOKIE}=tok`, false)])) as LookedUp[]
    expect(first).toMatchObject({ key: "tok" })
    expect(second).toMatchObject({ key: "tok" })
    const [a, b] = await Promise.all([first!.reading, second!.reading])
    expect(a).not.toBeNull()
    expect(b).toBe(a)
  })
})
