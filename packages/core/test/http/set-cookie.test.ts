import { describe, expect, it } from "vitest"
import { setCookieHeader } from "@portcullis/core/integration"
import type { CookieSerializeOptions } from "@portcullis/core/types"

/**
 * How a cookie core sets is written as a `Set-Cookie` value (`serializeCookie` in
 * `lib/cookies.ts`, public through `setCookieHeader`). The rules the cookie prefixes promise
 * are refused loudly when an override breaks them, since a browser would otherwise drop the
 * cookie without a word; no value or attribute may smuggle in another attribute.
 */
const header = (name: string, value: string, options: CookieSerializeOptions = {}) => setCookieHeader({ name, value, options })

describe("the __Host- prefix needs Secure, Path=/ and no Domain", () => {
  it("a cookie that keeps the rules is written", () => {
    expect(header("__Host-authjs.csrf-token", "t", { secure: true, path: "/" })).toBe("__Host-authjs.csrf-token=t; Path=/; Secure")
  })

  it.each([
    ["without Secure", { path: "/" }],
    ["with another path", { secure: true, path: "/auth" }],
    ["without a path", { secure: true }],
    ["with a Domain", { secure: true, path: "/", domain: "app.example" }],
  ] as [string, CookieSerializeOptions][])("one %s is refused", (_case, options) => {
    expect(() => header("__Host-authjs.csrf-token", "t", options)).toThrow(/__Host- prefix/)
  })
})

describe("the __Secure- prefix needs Secure", () => {
  it("without Secure it is refused, with it it is written", () => {
    expect(() => header("__Secure-authjs.session-token", "t", { path: "/" })).toThrow(/__Secure- prefix/)
    expect(header("__Secure-authjs.session-token", "t", { secure: true, path: "/", domain: "app.example" })).toBe("__Secure-authjs.session-token=t; Domain=app.example; Path=/; Secure")
  })
})

describe("names are RFC 7230 tokens", () => {
  it.each(["a b", "a;b", "a=b", "a\r\nb", "", "é"])("the name %j is refused", (name) => {
    expect(() => header(name, "t")).toThrow(/Invalid cookie name/)
  })
})

describe("nothing smuggles an attribute in", () => {
  it("the value is percent-encoded, so a ; or a line break stays inside it", () => {
    expect(header("c", "a; Domain=evil.example\r\nX: y")).toBe("c=a%3B%20Domain%3Devil.example%0D%0AX%3A%20y")
  })

  it.each(["app.example; Secure", "app.example\r\nSet-Cookie: x=1", "app.example\nx"])("the Domain %j is refused", (domain) => {
    expect(() => header("c", "t", { domain })).toThrow(/Invalid cookie domain/)
  })

  it.each(["/; Domain=evil.example", "/\r\nx", "/\rx"])("the Path %j is refused", (path) => {
    expect(() => header("c", "t", { path })).toThrow(/Invalid cookie path/)
  })
})

describe("Max-Age is a whole number of seconds, at most 400 days (RFC 6265bis)", () => {
  it.each([
    [0, 0],
    [900, 900],
    [899.9, 899],
    [400 * 86400, 400 * 86400],
    [400 * 86400 + 1, 400 * 86400],
    [10 * 365 * 86400, 400 * 86400],
  ])("maxAge %d is written as Max-Age=%d", (maxAge, written) => {
    expect(header("c", "t", { maxAge })).toBe(`c=t; Max-Age=${written}`)
  })
})

describe("every other attribute, in order", () => {
  it("Expires, HttpOnly, Secure, Partitioned, Priority and SameSite are written as browsers read them", () => {
    const expires = new Date(Date.UTC(2030, 0, 2, 3, 4, 5))
    expect(header("c", "t", { path: "/", expires, httpOnly: true, secure: true, partitioned: true, priority: "high", sameSite: "none" })).toBe(
      "c=t; Path=/; Expires=Wed, 02 Jan 2030 03:04:05 GMT; HttpOnly; Secure; Partitioned; Priority=High; SameSite=None",
    )
  })

  it.each([
    [true, "Strict"],
    ["strict", "Strict"],
    ["lax", "Lax"],
  ] as const)("sameSite %j is SameSite=%s", (sameSite, written) => {
    expect(header("c", "t", { sameSite })).toBe(`c=t; SameSite=${written}`)
  })

  it("options left off (or false) write no attribute", () => {
    expect(header("c", "t", { httpOnly: false, secure: false, partitioned: false, sameSite: false })).toBe("c=t")
  })
})
