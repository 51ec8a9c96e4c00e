/**
 * What the lockout and the mailbox limit count a submitted value as
 * (`normaliseIdentifier`, `mailboxOf` in `lib/rate-limit/limiter.ts`): a JSON body can send
 * any value where a name is expected, and a lookup may still find the account from it, so
 * each value counts by its text — never as "no identifier", which would skip the lockout.
 */
import { describe, expect, it } from "vitest"
import { mailboxOf, normaliseIdentifier } from "../../src/lib/rate-limit/limiter.js"

describe("a submitted value that is not a string", () => {
  it("counts by its text: numbers, booleans and big integers", () => {
    expect(normaliseIdentifier(12345)).toBe("12345")
    expect(normaliseIdentifier(true)).toBe("true")
    expect(normaliseIdentifier(10n)).toBe("10")
  })

  it("an array by its items' texts, one level deep, objects as JSON and nothing as empty", () => {
    expect(normaliseIdentifier(["Ada"])).toBe("ada")
    expect(normaliseIdentifier([1, "X", { a: 1 }, null, [2]])).toBe('1,x,{"a":1},,[2]')
  })

  it("a value with no JSON text (a function, a circular object) as one shared placeholder", () => {
    const circular: Record<string, unknown> = {}
    circular.self = circular
    expect(normaliseIdentifier(circular)).toBe("\u0000unreadable")
    expect(normaliseIdentifier(() => "ada")).toBe("\u0000unreadable")
    expect(normaliseIdentifier([circular])).toBe("\u0000unreadable")
  })

  it("none at all only for null and undefined", () => {
    expect(normaliseIdentifier(null)).toBeUndefined()
    expect(normaliseIdentifier(undefined)).toBeUndefined()
  })
})

describe("the mailbox of an address", () => {
  it("drops the plus-tag of the local part only, and folds", () => {
    expect(mailboxOf("Victim+News@Example.com")).toBe("victim@example.com")
    expect(mailboxOf("victim@ex+ample.com")).toBe("victim@ex+ample.com")
  })

  it("of text without an @ is that text folded, plus signs and all", () => {
    expect(mailboxOf("VICTIM+tag")).toBe("victim+tag")
    expect(mailboxOf("\u00AD")).toBe("\u00AD")
  })
})
