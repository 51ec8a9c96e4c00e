/**
 * The client-address parser at its edges (`lib/rate-limit/address.ts`): every string that is
 * an IPv4 or IPv6 address (with a port or zone a proxy or Node adds) is one canonical
 * address, and nothing else is an address. A string wrongly refused leaves a client with no
 * per-address counter; one wrongly accepted — or accepted as another address — gives a
 * client a counter of its choosing, or someone else's.
 */
import { describe, expect, it } from "vitest"
import { addressBucket, asAddress, clientAddress, isCanonicalIPv4 } from "../../src/lib/rate-limit/address.js"

describe("ports", () => {
  it("are dropped from 1 to 5 digits up to 65535, and refuse the address past it", () => {
    expect(asAddress("203.0.113.5:1")).toBe("203.0.113.5")
    expect(asAddress("203.0.113.5:65535")).toBe("203.0.113.5")
    expect(asAddress("203.0.113.5:65536")).toBeUndefined()
    expect(asAddress("203.0.113.5:000443")).toBeUndefined()
    expect(asAddress("[2001:db8::1]:9")).toBe("2001:db8::1")
    expect(asAddress("[2001:db8::1]:65535")).toBe("2001:db8::1")
    expect(asAddress("[2001:db8::1]:65536")).toBeUndefined()
    expect(asAddress("[2001:db8::1]:000443")).toBeUndefined()
    expect(asAddress("[2001:db8::1]:")).toBeUndefined()
  })

  it("are only a colon and digits after the whole address: anything before or after refuses it", () => {
    for (const value of ["x203.0.113.5:80", "203.0.113.5:80x", "203.0.113.5:8a", "x[2001:db8::1]", "[2001:db8::1]x", "[2001:db8::1]:443x", "[[2001:db8::1]]", "[2001:db8::1]]:443"]) {
      expect(asAddress(value), value).toBeUndefined()
    }
  })
})

describe("the length bound", () => {
  it("reads inputs of up to 128 characters (a long zone included), and none longer", () => {
    const zone = (length: number) => `fe80::1%${"e".repeat(length - "fe80::1%".length)}`
    expect(asAddress(zone(128))).toBe("fe80::1")
    expect(asAddress(zone(129))).toBeUndefined()
    // Surrounding spaces are not the address: trimmed first, then bounded.
    expect(asAddress(`  ${zone(128)}  `)).toBe("fe80::1")
  })

  it("takes the longest textual IPv6 address (45 characters, an IPv4 tail)", () => {
    expect(asAddress("0000:0000:0000:0000:0000:ffff:255.255.255.255")).toBe("255.255.255.255")
    expect(asAddress("ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255")).toBe("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")
  })
})

describe("IPv4", () => {
  it("is four decimal octets up to 255, in plain decimal", () => {
    expect(asAddress("255.255.255.255")).toBe("255.255.255.255")
    expect(asAddress("0.0.0.0")).toBe("0.0.0.0")
    expect(asAddress(" 192.0.2.1 ")).toBe("192.0.2.1")
    for (const value of ["256.0.0.1", "1.256.0.1", "1.0.256.1", "1.0.0.256", "1.2.3", "1.2.3.4.5", "1234.0.0.1", "1.2.3.4x", "x1.2.3.4", "", "   ", "0x7f.0.0.1"]) {
      expect(asAddress(value), value).toBeUndefined()
    }
  })

  it("answers every dotted string as the plain definition does (the fast path for addresses written canonically agrees)", () => {
    // The definition: four groups of one to three digits, each at most 255, read as decimal.
    const reference = (text: string) => {
      if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) return undefined
      const octets = text.split(".").map(Number)
      return octets.every((o) => o <= 255) ? octets.join(".") : undefined
    }
    const pieces = ["0", "00", "000", "01", "007", "1", "9", "10", "99", "100", "199", "200", "249", "250", "255", "256", "299", "300", "999", "1000", "", "a", "-1", " 1"]
    let seed = 7
    const pick = () => pieces[(seed = (seed * 1103515245 + 12345) % 2147483648) % pieces.length]!
    const inputs = ["127.0.0.1", "10.0.0.1", "010.0.0.1", "1.2.3.4.", ".1.2.3.4", "1..2.3", "1.2.3.4.5"]
    for (let i = 0; i < 5000; i++) {
      const n = 3 + (i % 3)
      inputs.push(Array.from({ length: n }, pick).join("."))
    }
    for (const input of inputs) {
      expect(asAddress(input), input).toBe(reference(input.trim()))
      // The fast path takes exactly the addresses already written as the answer would be.
      expect(isCanonicalIPv4(input), input).toBe(reference(input) === input)
    }
    expect(asAddress("010.0.0.1")).toBe("10.0.0.1")
    expect(asAddress("0.00.0.0")).toBe("0.0.0.0")
  })

  it("takes the fast path for an address written canonically, and only for one", () => {
    for (const yes of ["0.0.0.0", "127.0.0.1", "255.255.255.255", "9.99.199.250", "10.0.0.1", "1.2.3.4"]) expect(isCanonicalIPv4(yes), yes).toBe(true)
    for (const no of ["256.0.0.1", "1.2.3.256", "255.255.255.2555", "01.2.3.4", "1.02.3.4", "1.2.3.00", "1.2.3", "1.2.3.4.5", "1..3.4", ".1.2.3", "1.2.3.", "1.2.3.4 ", "1.2.3./", "1.2.3.:", "a.b.c.d", "", "1234.1.1.1", "1.2.3.4:80"]) {
      expect(isCanonicalIPv4(no), no).toBe(false)
    }
  })
})

describe("IPv6", () => {
  it("compresses the longest run of two or more zero groups, wherever it is", () => {
    expect(asAddress("::")).toBe("::")
    expect(asAddress("0:0:0:0:0:0:0:1")).toBe("::1")
    expect(asAddress("1:0:0:0:0:0:0:0")).toBe("1::")
    expect(asAddress("1:2:3:4:5:6:7::")).toBe("1:2:3:4:5:6:7:0")
    expect(asAddress("::2:3:4:5:6:7:8")).toBe("0:2:3:4:5:6:7:8")
    expect(asAddress("1:0:2:0:0:3:0:4")).toBe("1:0:2::3:0:4")
    expect(asAddress("2001:db8::100")).toBe("2001:db8::100")
    expect(asAddress("2001:db8::0100:0010")).toBe("2001:db8::100:10")
  })

  it("refuses what is not eight groups of one to four hexadecimal digits", () => {
    for (const value of ["1::2::3", "1:::2", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8::", "2001:db8::12345", "2001:db8::g", ":1:2:3:4:5:6:7", "1:2:3:4:5:6:7:"]) {
      expect(asAddress(value), value).toBeUndefined()
    }
  })

  it("takes a dotted IPv4 tail only as the last two groups, each octet up to 255", () => {
    expect(asAddress("64:ff9b::192.0.2.33")).toBe("64:ff9b::c000:221")
    for (const value of ["::ffff:256.0.0.1", "::ffff:1.256.0.1", "::ffff:1.0.256.1", "::ffff:1.0.0.256", "::a1.2.3.4", "::1.2.3.4:5", "1.2.3.4::", "::ffff:1.2.3"]) {
      expect(asAddress(value), value).toBeUndefined()
    }
  })

  it("is IPv4-mapped only under ::ffff:0:0/96", () => {
    expect(asAddress("::ffff:cb00:7105")).toBe("203.0.113.5")
    expect(asAddress("::ffff:ffff:ffff")).toBe("255.255.255.255")
    expect(asAddress("1::ffff:c000:201")).toBe("1::ffff:c000:201")
    expect(asAddress("0:0:0:0:1:ffff:c000:201")).toBe("::1:ffff:c000:201")
    expect(asAddress("::fffe:c000:201")).toBe("::fffe:c000:201")
  })
})

describe("the forwarded address with trustHost", () => {
  it("is the last of any number of X-Forwarded-For entries", () => {
    const headers = new Headers({ "x-forwarded-for": "198.51.100.1, 198.51.100.2, 198.51.100.3" })
    expect(clientAddress(headers, true, "10.0.0.1")).toBe("198.51.100.3")
  })

  it("without the header is the integration's address", () => {
    expect(clientAddress(new Headers(), true, "10.0.0.1")).toBe("10.0.0.1")
    expect(clientAddress(new Headers(), true, undefined)).toBeUndefined()
  })
})

describe("the counter of an address", () => {
  it("is an IPv4 address itself, an IPv6 address's /64, a mapped address's IPv4", () => {
    expect(addressBucket("203.0.113.5")).toBe("203.0.113.5")
    expect(addressBucket("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64")
    expect(addressBucket("::ffff:203.0.113.5")).toBe("203.0.113.5")
  })

  it("of something that is not an address is the text itself (never a shared counter)", () => {
    expect(addressBucket("not:an:address")).toBe("not:an:address")
  })
})
