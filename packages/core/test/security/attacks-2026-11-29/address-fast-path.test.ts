/**
 * Attack on the rate limiter's IPv4 fast path (`isCanonicalIPv4` / `ipv4` in
 * `lib/rate-limit/address.ts`, 2026-11-29): an address already written canonically is
 * answered as it is, without the split and join. If the fast path took one string the
 * definition (four dotted decimal octets ≤ 255, answered in plain decimal) would refuse or
 * rewrite, a client could mint counters of its choosing (`1.2.3.04`, `１.2.3.4`, `1.2.3.4\0`)
 * or land on someone else's. Tried: leading zeros, non-ASCII digits, control characters,
 * long inputs, ports, IPv4-mapped IPv6, and X-Forwarded-For lists with spaces.
 */
import { describe, expect, it } from "vitest"
import { addressBucket, asAddress, clientAddress, isCanonicalIPv4 } from "../../../src/lib/rate-limit/address.js"

/** The definition, without any fast path: the answer for a (trimmed) IPv4 string. */
function definition(text: string): string | undefined {
  if (!/^[0-9]{1,3}(\.[0-9]{1,3}){3}$/.test(text)) return undefined
  const octets = text.split(".").map(Number)
  return octets.every((o) => o <= 255) ? octets.join(".") : undefined
}

describe("the fast path agrees with the definition", () => {
  it("on leading zeros: every zero-padded spelling is refused by the fast path and folds to the plain address", () => {
    for (const spelled of ["01.2.3.4", "1.02.3.4", "1.2.03.4", "1.2.3.04", "001.002.003.004", "0.0.0.00", "00.0.0.0", "1.2.3.000"]) {
      expect(isCanonicalIPv4(spelled), spelled).toBe(false)
      expect(asAddress(spelled), spelled).toBe(definition(spelled))
    }
    expect(asAddress("001.002.003.004")).toBe("1.2.3.4")
    expect(asAddress("1.2.3.000")).toBe("1.2.3.0")
  })

  it("on non-ASCII digits (Arabic-Indic, full-width, superscript, mathematical): never an address", () => {
    const digitSets = ["\u0660\u0661\u0662", "\uff10\uff11\uff12", "\u2070\u00b9\u00b2", "\u{1d7ce}\u{1d7cf}", "\u0966\u0967", "\u09e6\u09e7"]
    for (const digits of digitSets) {
      for (const at of [0, 1, 2, 3]) {
        const octets = ["1", "2", "3", "4"]
        octets[at] = digits[1] ?? digits
        const text = octets.join(".")
        expect(isCanonicalIPv4(text), text).toBe(false)
        expect(asAddress(text), text).toBeUndefined()
      }
    }
    // Full-width dots too (IDNA would read them as dots; the address parser must not).
    for (const dot of ["\uff0e", "\u3002", "\uff61", "\u2024"]) expect(asAddress(`1${dot}2${dot}3${dot}4`), dot).toBeUndefined()
  })

  it("on control characters anywhere: NUL, DEL, line breaks inside are refused; surrounding blanks are trimmed", () => {
    for (const c of ["\u0000", "\u007f", "\n", "\r", "\t", "\u000b", "\u0085", "\u200b", "\u00ad", "\ufeff"]) {
      const inside = `1.2.${c}3.4`
      expect(isCanonicalIPv4(inside), JSON.stringify(inside)).toBe(false)
      expect(asAddress(inside), JSON.stringify(inside)).toBeUndefined()
      expect(isCanonicalIPv4(`1.2.3.4${c}`), JSON.stringify(c)).toBe(false)
    }
    expect(asAddress("1.2.3.4\u0000")).toBeUndefined()
    expect(asAddress("\u00001.2.3.4")).toBeUndefined()
    // What String#trim removes is not part of the address, with or without the fast path.
    for (const blank of [" ", "\t", "\n", "\u00a0", "\ufeff", "\u2028", "\u3000"]) expect(asAddress(`${blank}1.2.3.4${blank}`), JSON.stringify(blank)).toBe("1.2.3.4")
  })

  it("on very long inputs: many octets, huge octets and padding are refused without a long scan", () => {
    const inputs = ["1.".repeat(5000) + "1", "9".repeat(10_000) + ".1.1.1", "1.1.1." + "0".repeat(10_000), "0".repeat(200) + "1.2.3.4", ".".repeat(10_000)]
    const started = performance.now()
    for (const input of inputs) {
      expect(isCanonicalIPv4(input)).toBe(false)
      expect(asAddress(input)).toBeUndefined()
    }
    expect(performance.now() - started).toBeLessThan(200)
  })

  it("on octet boundaries: 255 is the last, 256 and 999 are refused, on every position", () => {
    for (let at = 0; at < 4; at++) {
      for (const [octet, ok] of [["0", true], ["9", true], ["10", true], ["99", true], ["100", true], ["199", true], ["200", true], ["249", true], ["250", true], ["255", true], ["256", false], ["260", false], ["300", false], ["999", false]] as const) {
        const parts = ["7", "7", "7", "7"]
        parts[at] = octet
        const text = parts.join(".")
        expect(isCanonicalIPv4(text), text).toBe(ok)
        expect(asAddress(text), text).toBe(ok ? text : undefined)
      }
    }
  })

  it("on random strings over digits, dots and near-miss characters", () => {
    const alphabet = ["0", "1", "2", "5", "9", ".", ".", ".", "/", ":", "\u0000", " ", "\uff11", "\u0661", "a", "x", "-", "+", "e"]
    let seed = 20261129
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648)
    for (let i = 0; i < 20_000; i++) {
      const length = 1 + (next() % 16)
      const input = Array.from({ length }, () => alphabet[next() % alphabet.length]!).join("")
      const expected = input.includes(":") ? undefined : definition(input.trim())
      if (!input.includes(":")) expect(asAddress(input), JSON.stringify(input)).toBe(expected)
      expect(isCanonicalIPv4(input), JSON.stringify(input)).toBe(definition(input) === input)
    }
  })
})

describe("one client, one counter", () => {
  it("every spelling of one IPv4 client is one address and one bucket: padded, ported, mapped, bracketed-mapped", () => {
    const spellings = ["192.0.2.1", " 192.0.2.1", "192.000.002.001", "192.0.2.1:443", "192.0.2.01:65535", "::ffff:192.0.2.1", "::FFFF:c000:201", "[::ffff:192.0.2.1]:80", "0:0:0:0:0:ffff:192.0.2.1", "::ffff:192.0.2.1%eth0"]
    for (const s of spellings) {
      expect(asAddress(s), s).toBe("192.0.2.1")
      expect(addressBucket(asAddress(s)!), s).toBe("192.0.2.1")
    }
  })

  it("a port or bracket cannot smuggle a non-canonical octet past the fast path", () => {
    for (const value of ["192.0.2.256:80", "1.2.3.4:80:80", "[192.0.2.1]:80", "[192.0.2.1]", "1.2.3.4.:80", "1.2.3:80", "01.2.3.4:99999"]) {
      expect(asAddress(value), value).toBeUndefined()
    }
    expect(asAddress("01.2.3.4:80")).toBe("1.2.3.4")
  })

  it("an IPv4-compatible or NAT64 address is not folded onto the IPv4 client", () => {
    expect(asAddress("::192.0.2.1")).not.toBe("192.0.2.1")
    expect(asAddress("64:ff9b::192.0.2.1")).not.toBe("192.0.2.1")
    expect(asAddress("::ffff:0:192.0.2.1")).not.toBe("192.0.2.1")
  })
})

describe("X-Forwarded-For with trustHost", () => {
  const headers = (xff: string) => new Headers({ "x-forwarded-for": xff })

  it("counts the last entry, spaces around it trimmed, whatever the client prepends", () => {
    expect(clientAddress(headers("10.0.0.1, 203.0.113.5"), true, "127.0.0.1")).toBe("203.0.113.5")
    expect(clientAddress(headers("10.0.0.1,203.0.113.5   "), true, "127.0.0.1")).toBe("203.0.113.5")
    expect(clientAddress(headers("1.1.1.1,    203.000.113.005"), true, "127.0.0.1")).toBe("203.0.113.5")
    expect(clientAddress(headers("203.0.113.5:1234"), true, "127.0.0.1")).toBe("203.0.113.5")
  })

  // (NUL and characters past U+00FF cannot reach here: `Headers` refuses them in a value; Latin-1 ones can.)
  it("a last entry that is no address falls back to the socket's address, never to an earlier entry", () => {
    for (const xff of ["9.9.9.9, ", "9.9.9.9,", "9.9.9.9, \u00b9.2.3.4", "9.9.9.9, 1.2.3.\u00bd", "9.9.9.9, 1.2.3.4 5.6.7.8", "9.9.9.9, unknown", "9.9.9.9, 256.1.1.1"]) {
      expect(clientAddress(headers(xff), true, "127.0.0.1"), JSON.stringify(xff)).toBe("127.0.0.1")
    }
  })

  it("without trustHost, the header is not read at all", () => {
    expect(clientAddress(headers("203.0.113.5"), false, "198.51.100.7")).toBe("198.51.100.7")
    expect(clientAddress(headers("203.0.113.5"), false, undefined)).toBeUndefined()
  })

  it("a socket address with a leading zero or a port is canonicalised like a header's", () => {
    expect(clientAddress(new Headers(), false, "198.051.100.007")).toBe("198.51.100.7")
    expect(clientAddress(new Headers(), false, "::ffff:198.51.100.7")).toBe("198.51.100.7")
  })
})
