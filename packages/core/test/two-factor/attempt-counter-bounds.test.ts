/**
 * The per-challenge attempt counter at its edges (issue 36): a count lives exactly as long as
 * its challenge, and the bound on remembered challenges is kept to the entry — past it the
 * oldest wrong-code count goes, and only the oldest. attempts.test.ts has the ordinary flow
 * and the default bound of 10,000; here a bound of 5 shows the boundaries a flipped
 * comparison would move.
 */
import { describe, expect, it } from "vitest"
import { AttemptCounter } from "../../src/lib/two-factor/attempts.js"

const LIMIT = 5
const now = 1_000_000
const until = now + 300_000

/** `count` one-off challenges counted at `at`, each expiring at `expiring`. */
function flood(counter: AttemptCounter, count: number, expiring: number, at = now) {
  for (let i = 0; i < count; i++) counter.hit(`flood-${i}`, expiring, at)
}

describe("a count ends when its challenge does", () => {
  it("keeps counting up to the last millisecond before the challenge's expiry", () => {
    const counter = new AttemptCounter()
    counter.hit("c", until, now)
    expect(counter.hit("c", until, until - 1)).toBe(2)
  })

  it("starts again at one at the expiry itself (the cookie is refused from then on too)", () => {
    const counter = new AttemptCounter()
    counter.hit("c", until, now)
    counter.hit("c", until, now)
    expect(counter.hit("c", until + 300_000, until)).toBe(1)
  })

  it("holds a spent mark up to the expiry, and lets a new one be set at it", () => {
    const counter = new AttemptCounter()
    expect(counter.spend("c", until, now)).toBe(true)
    expect(counter.spend("c", until, until - 1)).toBe(false)
    expect(counter.spend("c", until + 300_000, until)).toBe(true)
  })

  it("does not take a count of wrong codes for a spent mark", () => {
    const counter = new AttemptCounter()
    for (let i = 0; i < 3; i++) counter.hit("c", until, now)
    expect(counter.spend("c", until, now)).toBe(true)
  })
})

describe("the bound on remembered challenges", () => {
  it("forgets the oldest wrong-code count once a new challenge would go past it", () => {
    const counter = new AttemptCounter(LIMIT)
    counter.hit("oldest", until, now)
    counter.hit("oldest", until, now)
    flood(counter, LIMIT - 1, until)
    // Exactly at the bound: the next new challenge makes room by dropping the oldest.
    counter.hit("newcomer", until, now)
    expect(counter.hit("oldest", until, now)).toBe(1)
  })

  it("forgets only the oldest: the second oldest keeps its count", () => {
    const counter = new AttemptCounter(LIMIT)
    counter.hit("oldest", until, now)
    counter.hit("second", until, now)
    counter.hit("second", until, now)
    flood(counter, LIMIT - 2, until)
    counter.hit("newcomer", until, now)
    expect(counter.hit("second", until, now)).toBe(3)
  })

  it("forgets nothing live while below the bound", () => {
    const counter = new AttemptCounter(LIMIT)
    counter.hit("oldest", until, now)
    flood(counter, LIMIT - 2, until)
    counter.hit("newcomer", until, now)
    expect(counter.hit("oldest", until, now)).toBe(2)
  })

  it("drops expired counts first, so a live one stays when the rest expired that very millisecond", () => {
    const counter = new AttemptCounter(LIMIT)
    counter.hit("live", until, now)
    const soon = now + 1_000
    flood(counter, LIMIT - 1, soon)
    // At `soon` every flood entry has expired; sweeping them leaves room for the newcomer.
    counter.hit("newcomer", until, soon)
    expect(counter.hit("live", until, soon)).toBe(2)
  })
})
