/**
 * How long the ledger's slots are held, and under which keys (issue 36). A wrong code counts
 * against its user for 15 minutes, a challenge's five attempts stay used up for a minute past
 * the challenge (instances' clocks differ), and the keys in the shared store are the same on
 * every instance and every version of Portcullis — during a rolling deploy old and new
 * instances count in, and spend, the same slots. ledger.test.ts has the counting itself.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { createHash } from "node:crypto"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import type { VerificationToken } from "@portcullis/core/adapters"
import { lockedOut, MAX_ATTEMPTS, MAX_WRONG_PER_USER, TwoFactorLedger, type SpendStore } from "../../src/lib/two-factor/ledger.js"
import { MemoryRefreshLock, type RefreshLock } from "../../src/lib/tokens/lock.js"

const MINUTE = 60_000
const T = Date.UTC(2026, 10, 28, 12, 0, 0)

afterEach(() => {
  vi.useRealTimers()
})

/** Sets the clock (Date only) to `ms`. */
function at(ms: number) {
  vi.useFakeTimers({ toFake: ["Date"], now: ms })
}

function memoryStore(): SpendStore {
  const adapter = MemoryAdapter()
  return { createVerificationToken: adapter.createVerificationToken!, useVerificationToken: adapter.useVerificationToken! }
}

/** A real in-process lock that also notes every key asked for. */
class NotingLock implements RefreshLock {
  readonly keys: string[] = []
  readonly #lock = new MemoryRefreshLock()
  acquire(key: string, owner: string, ttlMs: number) {
    this.keys.push(key)
    return this.#lock.acquire(key, owner, ttlMs)
  }
  release(key: string, owner: string) {
    return this.#lock.release(key, owner)
  }
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

describe("a wrong code counts against its user for 15 minutes", () => {
  it("keeps the user locked until the window of the oldest wrong code ends, then frees a slot", async () => {
    at(T)
    const ledger = new TwoFactorLedger(new MemoryRefreshLock(), memoryStore())
    for (let i = 0; i < MAX_WRONG_PER_USER; i++) await ledger.userAttempt("ada")
    at(T + 15 * MINUTE - 1)
    expect(await ledger.userAttempt("ada")).toBeUndefined()
    at(T + 15 * MINUTE)
    expect((await ledger.userAttempt("ada"))?.count).toBe(1)
  })
})

describe("the refusal of a locked user", () => {
  it("is a 429 that tells the client to come back when the window ends, and names the cap", () => {
    const refusal = lockedOut("user-ada")
    expect(refusal).toMatchObject({ type: "RateLimited", retryAfter: 15 * 60 })
    expect(refusal.message).toBe("Two-factor codes of user user-ada are locked: 10 wrong codes within 15 minutes")
  })
})

describe("a used-up challenge stays used up a minute past its expiry", () => {
  const challenge = { id: "c1", userId: "ada", until: T + 5 * MINUTE }

  it("refuses a sixth attempt until a minute after the challenge expired", async () => {
    at(T)
    const ledger = new TwoFactorLedger(new MemoryRefreshLock(), memoryStore())
    for (let i = 0; i < MAX_ATTEMPTS; i++) await ledger.challengeAttempt(challenge)
    at(challenge.until + MINUTE - 1)
    expect(await ledger.challengeAttempt(challenge)).toBeUndefined()
    at(challenge.until + MINUTE)
    expect((await ledger.challengeAttempt(challenge))?.count).toBe(1)
  })

  it("holds the slots of a challenge already expired on this instance's clock for that minute too", async () => {
    at(T)
    const ledger = new TwoFactorLedger(new MemoryRefreshLock(), memoryStore())
    const expired = { ...challenge, until: T - 30_000 }
    for (let i = 0; i < MAX_ATTEMPTS; i++) expect(await ledger.challengeAttempt(expired)).toBeDefined()
    at(T + MINUTE - 1)
    expect(await ledger.challengeAttempt(expired)).toBeUndefined()
  })
})

describe("the keys in the shared store are the same on every instance and version", () => {
  it("counts a challenge's attempts under two-factor:challenge:<id>:<n>", async () => {
    const lock = new NotingLock()
    const ledger = new TwoFactorLedger(lock, memoryStore())
    await ledger.challengeAttempt({ id: "c1", userId: "ada", until: Date.now() + 5 * MINUTE })
    await ledger.challengeAttempt({ id: "c1", userId: "ada", until: Date.now() + 5 * MINUTE })
    expect(lock.keys).toEqual(["two-factor:challenge:c1:1", "two-factor:challenge:c1:1", "two-factor:challenge:c1:2"])
  })

  it("counts a user's wrong codes under a digest of the user id, never the id itself", async () => {
    const lock = new NotingLock()
    const ledger = new TwoFactorLedger(lock, memoryStore())
    await ledger.userAttempt("ada@example.com")
    const digest = sha256("portcullis-two-factor-user:ada@example.com").slice(0, 32)
    expect(lock.keys).toEqual([`two-factor:user:${digest}:1`])
  })

  it("records a challenge under the two-factor identifier and a digest of its id, so another version can spend it", async () => {
    const written: VerificationToken[] = []
    const store = memoryStore()
    const ledger = new TwoFactorLedger(new MemoryRefreshLock(), {
      createVerificationToken: async (token) => {
        written.push(token)
        return store.createVerificationToken(token)
      },
      useVerificationToken: store.useVerificationToken,
    })
    const challenge = { id: "c1", userId: "ada", until: Date.now() + 5 * MINUTE }
    await ledger.issue(challenge)
    expect(written).toHaveLength(1)
    expect(written[0]!.token).toBe(sha256("portcullis-two-factor-challenge:c1"))
    expect(written[0]!.expires).toEqual(new Date(challenge.until))
    // What an instance of another version, knowing only the format, finds and spends.
    expect(await store.useVerificationToken({ identifier: written[0]!.identifier, token: sha256("portcullis-two-factor-challenge:c1") })).not.toBeNull()
    expect(await ledger.spend(challenge)).toBe(false)
  })
})

describe("spending against a store that answers undefined for a missing token", () => {
  it("counts undefined as not spent, like null", async () => {
    const ledger = new TwoFactorLedger(new MemoryRefreshLock(), {
      createVerificationToken: async (token) => token,
      useVerificationToken: async () => undefined as unknown as null,
    })
    expect(await ledger.spend({ id: "c1", userId: "ada", until: Date.now() + 5 * MINUTE })).toBe(false)
  })
})
