import { describe, expect, it } from "vitest"
import { AttemptCounter } from "../../src/lib/two-factor/attempts.js"
import { MAX_ATTEMPTS } from "../../src/lib/two-factor/options.js"

// The server-side count behind "five codes per challenge" and "one challenge, one session"
// (docs/two-factor.md); the flows over HTTP are in attacks.test.ts and
// security/attacks-2026-11-27/fixes-reviewed.test.ts.
describe("the per-challenge attempt counter", () => {
  const now = 1_000_000
  const until = now + 600_000

  it("lets a challenge be spent once: the second spender is told, and every later hit is over the cap", () => {
    const counter = new AttemptCounter()
    expect(counter.hit("a", until, now)).toBe(1)
    expect(counter.hit("a", until, now)).toBe(2)
    expect(counter.spend("a", until, now)).toBe(true)
    expect(counter.spend("a", until, now)).toBe(false)
    expect(counter.hit("a", until, now)).toBeGreaterThan(MAX_ATTEMPTS)
  })

  it("keeps a live spent mark when 10,000 other challenges fill it, and forgets the oldest wrong-code counts instead", () => {
    const counter = new AttemptCounter()
    counter.hit("passed", until, now)
    counter.spend("passed", until, now)
    counter.hit("guessed", until, now)
    for (let i = 0; i < 10_000; i++) counter.hit(`flood-${i}`, until, now)
    expect(counter.hit("passed", until, now)).toBeGreaterThan(MAX_ATTEMPTS)
    expect(counter.spend("passed", until, now)).toBe(false)
    // The oldest wrong-code count went to make room: that challenge starts again at one.
    expect(counter.hit("guessed", until, now)).toBe(1)
  })

  it("forgets a spent mark once its challenge has expired (the cookie is dead by then too)", () => {
    const counter = new AttemptCounter()
    counter.spend("passed", until, now)
    expect(counter.hit("passed", until + 1, until + 1)).toBe(1)
  })
})
