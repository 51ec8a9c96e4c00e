/**
 * The ledger's claim slots on their own (issue 28): at most `max` held however many take at
 * once, a slot given back is found again, and the in-process fallback (adapters without
 * `acquireLock`) expires and stays bounded. The flows over HTTP are in
 * settings-brute-force.test.ts, instances.test.ts and processes.test.ts.
 */
import { describe, expect, it } from "vitest"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { MAX_ATTEMPTS, MAX_WRONG_PER_USER, TwoFactorLedger } from "../../src/lib/two-factor/ledger.js"
import { MemoryRefreshLock } from "../../src/lib/tokens/lock.js"

function ledger(claims = new MemoryRefreshLock()) {
  const adapter = MemoryAdapter()
  return new TwoFactorLedger(claims, { createVerificationToken: adapter.createVerificationToken!, useVerificationToken: adapter.useVerificationToken! })
}

describe("claim slots", () => {
  it("gives 10 of 100 concurrent attempts of one user a slot, numbered 1 to 10", async () => {
    const l = ledger()
    const claims = await Promise.all(Array.from({ length: 100 }, () => l.userAttempt("ada")))
    const held = claims.filter((c) => c !== undefined)
    expect(held).toHaveLength(MAX_WRONG_PER_USER)
    expect(held.map((c) => c!.count).sort((x, y) => x - y)).toEqual(Array.from({ length: MAX_WRONG_PER_USER }, (_, i) => i + 1))
  })

  it("finds a slot given back, also behind the attempt's first pass", async () => {
    const l = ledger()
    const held = []
    for (let i = 0; i < MAX_WRONG_PER_USER; i++) held.push(await l.userAttempt("grace"))
    expect(await l.userAttempt("grace")).toBeUndefined()
    await l.release(held[0]!)
    expect((await l.userAttempt("grace"))?.count).toBe(1)
  })

  it("counts five attempts per challenge, and one challenge's attempts leave another's alone", async () => {
    const l = ledger()
    const challenge = { id: "c1", userId: "ada", until: Date.now() + 300_000 }
    for (let i = 1; i <= MAX_ATTEMPTS; i++) expect((await l.challengeAttempt(challenge))?.count).toBe(i)
    expect(await l.challengeAttempt(challenge)).toBeUndefined()
    expect((await l.challengeAttempt({ ...challenge, id: "c2" }))?.count).toBe(1)
  })

  it("spends a challenge once, and only one that was issued", async () => {
    const l = ledger()
    const challenge = { id: "c1", userId: "ada", until: Date.now() + 300_000 }
    expect(await l.spend(challenge)).toBe(false)
    await l.issue(challenge)
    // Exactly one of two concurrent spends wins — which one, the hashing threads decide (under load either).
    expect((await Promise.all([l.spend(challenge), l.spend(challenge)])).sort()).toEqual([false, true])
  })
})

describe("the in-process fallback (MemoryRefreshLock, shared with token refresh)", () => {
  it("lets an expired slot be taken again, and a holder release only its own", async () => {
    const claims = new MemoryRefreshLock()
    expect(await claims.acquire("k", "a", 200)).toBe(true)
    expect(await claims.acquire("k", "b", 60_000)).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 250))
    expect(await claims.acquire("k", "b", 60_000)).toBe(true)
    await claims.release("k", "a")
    expect(await claims.acquire("k", "c", 60_000)).toBe(false)
    await claims.release("k", "b")
    expect(await claims.acquire("k", "c", 60_000)).toBe(true)
  })

  it("stays bounded under a flood of one-off keys", async () => {
    const claims = new MemoryRefreshLock()
    for (let i = 0; i < 60_000; i++) await claims.acquire(`flood-${i}`, "x", 60_000)
    // The newest key is held; the oldest went to make room.
    expect(await claims.acquire("flood-59999", "y", 60_000)).toBe(false)
    expect(await claims.acquire("flood-0", "y", 60_000)).toBe(true)
  })
})

