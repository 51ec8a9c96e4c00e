import { describe, expect, it } from "vitest"
import { cookieValue, parseCookies } from "../../src/lib/cookies.js"

/**
 * How a `Cookie` header is read (`parseCookies`, and `cookieValue` for one name):
 * `../cookies.test.ts` checks the two agree on random headers, which cannot see a change
 * to the value reading they share; these pin that reading itself.
 */
describe("a cookie's value is read as browsers and Auth.js write it", () => {
  it.each([
    ["a=b", "b"],
    ["a= b ", "b"],
    ['a="b"', "b"],
    ['a=""', ""],
    ['a="', '"'],
    ['a="b', '"b'],
    ['a=b"', 'b"'],
    ['a=""b""', '"b"'],
    ["a=%41%20b", "A b"],
    ['a="%41"', "A"],
    ["a=%E0%A4%A", "%E0%A4%A"],
    ["a=100%", "100%"],
    ["a=x=y", "x=y"],
    ["a=", ""],
  ])("%j → %j", (header, value) => {
    expect(parseCookies(header).a).toBe(value)
    expect(cookieValue(header, "a")).toBe(value)
  })
})

describe("names", () => {
  it("are trimmed; the first of a repeated name wins; a pair without = is skipped", () => {
    expect(parseCookies(" a =1; b=2;a=3; c; d=4")).toEqual({ a: "1", b: "2", d: "4" })
    expect(cookieValue(" a =1; b=2;a=3; c; d=4", "a")).toBe("1")
    expect(cookieValue("c; d=4", "c")).toBeUndefined()
  })

  it("a pair with no name is skipped, and names cannot reach the prototype", () => {
    const cookies = parseCookies("=x; __proto__=y; constructor=z")
    expect(Object.keys(cookies)).toEqual(["__proto__", "constructor"])
    expect(cookies[""]).toBeUndefined()
    expect(Object.getPrototypeOf(cookies)).toBeNull()
    expect(cookies.__proto__).toBe("y")
  })

  it("no header, or an empty one, is no cookies", () => {
    expect(parseCookies(null)).toEqual({})
    expect(parseCookies("")).toEqual({})
    expect(cookieValue("", "a")).toBeUndefined()
  })
})
