import { describe, expect, it } from "vitest"
import { clearChunked, expireCookie, hasChunked, readChunked, writeChunked } from "../../src/lib/cookies.js"

/**
 * A value too long for one cookie is split over `name.0`, `name.1`, … (`lib/cookies.ts`).
 * Only the cookie's own pieces are read, written over or deleted — never another cookie
 * whose name merely looks like one — and pieces left from a longer value are deleted. The
 * session-level cases (gaps, forged pieces) are in `../security/chunk-gap.test.ts`.
 */
const CHUNK = 4096 - 160
const names = (cookies: { name: string }[]) => cookies.map((c) => c.name)

describe("only the cookie's own pieces count", () => {
  it("a cookie of another name that ends like a piece is not one: not read, not deleted", () => {
    const jar = { sess: "plain", "sesx.0": "other", "sessx.0": "other", "ses.0": "other" }
    expect(readChunked(jar, "sess")).toBe("plain")
    expect(hasChunked({ "sesx.0": "other", "sessx.0": "other" }, "sess")).toBe(false)
    expect(names(clearChunked(jar, "sess", {}))).toEqual(["sess"])
    expect(names(writeChunked(jar, "sess", "new", {}))).toEqual(["sess"])
  })

  it("pieces are read in numeric order, whatever order they arrive in", () => {
    const jar: Record<string, string> = {}
    for (let i = 11; i >= 0; i--) jar[`sess.${i}`] = String.fromCharCode(97 + i)
    expect(readChunked(jar, "sess")).toBe("abcdefghijkl")
    expect(names(clearChunked(jar, "sess", {}))).toEqual(["sess", ...Array.from({ length: 12 }, (_, i) => `sess.${i}`)])
  })

  it("a piece number of more than three digits is no piece", () => {
    expect(hasChunked({ "sess.1000": "x" }, "sess")).toBe(false)
  })

  it("pieces that do not start at 0 or have a gap are no value; the plain cookie still is", () => {
    expect(readChunked({ "sess.1": "b" }, "sess")).toBeUndefined()
    expect(readChunked({ "sess.0": "a", "sess.2": "c" }, "sess")).toBeUndefined()
    expect(readChunked({ sess: "plain", "sess.0": "a", "sess.2": "c" }, "sess")).toBe("plain")
    expect(readChunked({ sess: "", "sess.1": "b" }, "sess")).toBeUndefined()
  })

  it("empty pieces, or an empty plain cookie, are no value, though something was sent", () => {
    expect(readChunked({ "sess.0": "", "sess.1": "" }, "sess")).toBeUndefined()
    expect(readChunked({ sess: "" }, "sess")).toBeUndefined()
    expect(hasChunked({ sess: "" }, "sess")).toBe(true)
    expect(hasChunked({ "sess.0": "" }, "sess")).toBe(true)
    expect(hasChunked({}, "sess")).toBe(false)
  })
})

describe("writing a value", () => {
  it(`up to ${CHUNK} characters is one cookie; one more is two pieces`, () => {
    expect(writeChunked({}, "sess", "x".repeat(CHUNK), {}).map((c) => [c.name, c.value.length])).toEqual([["sess", CHUNK]])
    expect(writeChunked({}, "sess", "x".repeat(CHUNK + 1), {}).map((c) => [c.name, c.value.length])).toEqual([
      ["sess.0", CHUNK],
      ["sess.1", 1],
    ])
  })

  it(`exactly twice ${CHUNK} characters is two full pieces, and no empty third`, () => {
    expect(writeChunked({}, "sess", "x".repeat(2 * CHUNK), {}).map((c) => [c.name, c.value.length])).toEqual([
      ["sess.0", CHUNK],
      ["sess.1", CHUNK],
    ])
  })

  it("the pieces put back together are the value", () => {
    const value = Array.from({ length: 3 * CHUNK + 7 }, (_, i) => String.fromCharCode(97 + (i % 26))).join("")
    const written = writeChunked({}, "sess", value, { path: "/" })
    expect(names(written)).toEqual(["sess.0", "sess.1", "sess.2", "sess.3"])
    expect(readChunked(Object.fromEntries(written.map((c) => [c.name, c.value])), "sess")).toBe(value)
    for (const c of written) expect(c.options).toEqual({ path: "/" })
  })

  it("deletes what the browser holds that the new value does not use, and nothing it does", () => {
    const expired = (cookies: ReturnType<typeof writeChunked>) => cookies.filter((c) => c.options.maxAge === 0).map((c) => c.name)
    // Three pieces, now one short value: every piece goes, the plain cookie is written.
    expect(expired(writeChunked({ "sess.0": "a", "sess.1": "b", "sess.2": "c" }, "sess", "short", {}))).toEqual(["sess.0", "sess.1", "sess.2"])
    // A plain cookie, now two pieces: the plain one goes.
    expect(expired(writeChunked({ sess: "old" }, "sess", "x".repeat(CHUNK + 1), {}))).toEqual(["sess"])
    // Three pieces, now two: only the third goes.
    expect(expired(writeChunked({ "sess.0": "a", "sess.1": "b", "sess.2": "c" }, "sess", "x".repeat(CHUNK + 1), {}))).toEqual(["sess.2"])
    // The same shape again: nothing goes.
    expect(expired(writeChunked({ sess: "old" }, "sess", "new", {}))).toEqual([])
  })
})

describe("deleting", () => {
  it("an expired cookie keeps its attributes, with Max-Age=0 and no Expires", () => {
    const cookie = expireCookie("sess", { path: "/", secure: true, httpOnly: true, sameSite: "lax", maxAge: 3600, expires: new Date(Date.now() + 3600_000) })
    expect(cookie).toEqual({ name: "sess", value: "", options: { path: "/", secure: true, httpOnly: true, sameSite: "lax", maxAge: 0 } })
  })

  it("clearChunked deletes the plain cookie and every piece sent, with the given attributes", () => {
    const cleared = clearChunked({ "sess.0": "a", "sess.1": "b", other: "x" }, "sess", { path: "/" })
    expect(cleared).toEqual(["sess", "sess.0", "sess.1"].map((name) => ({ name, value: "", options: { path: "/", maxAge: 0 } })))
  })
})
