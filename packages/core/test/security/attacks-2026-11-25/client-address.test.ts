/**
 * Attacks on the client address rate limits count against (docs/rate-limiting.md, "Where
 * the client address comes from"): spellings of one client's address that gave it a fresh
 * counter, or none at all.
 */
import { describe, expect, it } from "vitest"
import { addressBucket, clientAddress } from "../../../src/lib/rate-limit/address.js"
import { attempt, lockoutApp } from "../../rate-limit/support.js"

const tightAddress = { perAddress: { credentials: { max: 3, window: 900 } }, perIdentifier: { credentials: false as const } }
const xff = (value: string) => new Headers({ "x-forwarded-for": value })

describe("a proxy that appends the client's port (Azure App Service, some load balancers)", () => {
  // `X-Forwarded-For: 203.0.113.5:54321`: the last entry was "not an address", so a Next.js
  // app (no socket address) skipped every per-address limit, and every other integration
  // counted all clients as the proxy — one client could then lock everybody out.
  it("counts the address without its port, IPv4 and bracketed IPv6 alike", () => {
    expect(clientAddress(xff("203.0.113.5:54321"), true, "10.0.0.1")).toBe("203.0.113.5")
    expect(clientAddress(xff("6.6.6.6, 203.0.113.5:443"), true, undefined)).toBe("203.0.113.5")
    expect(clientAddress(xff("[2001:db8::1]:8443"), true, undefined)).toBe("2001:db8::1")
    expect(clientAddress(xff("[2001:db8::1]"), true, undefined)).toBe("2001:db8::1")
  })

  it("a client whose every request arrives from a new port is still one client (no socket address, as Next.js)", async () => {
    const { browser } = lockoutApp(tightAddress, { trustHost: true })
    const b = browser(null)
    const errors = []
    for (let i = 0; i < 5; i++) errors.push((await attempt(b, { username: `u${i}`, password: "x" }, { headers: { "x-forwarded-for": `203.0.113.5:${40000 + i}` } })).error)
    expect(errors).toEqual(["CredentialsSignin", "CredentialsSignin", "CredentialsSignin", "RateLimited", "RateLimited"])
  })

  it("two clients behind that proxy have two counters, not the proxy's one", async () => {
    const { browser } = lockoutApp(tightAddress, { trustHost: true })
    const b = browser("10.0.0.1")
    for (let i = 0; i < 4; i++) await attempt(b, { username: `u${i}`, password: "x" }, { headers: { "x-forwarded-for": `203.0.113.5:${40000 + i}` } })
    expect((await attempt(b, { username: "v", password: "x" }, { headers: { "x-forwarded-for": "198.51.100.9:1234" } })).error).toBe("CredentialsSignin")
  })
})

describe("IPv4-mapped IPv6 addresses in hexadecimal", () => {
  // `::ffff:c000:201` is 192.0.2.1. Counted by its /64 it was `0:0:0:0::/64`: one counter
  // for the whole IPv4 internet, so one client could lock out every IPv4 client.
  it("count as the IPv4 address they carry", () => {
    expect(clientAddress(new Headers(), false, "::ffff:c000:201")).toBe("192.0.2.1")
    expect(addressBucket("::ffff:c000:201")).toBe("192.0.2.1")
    expect(addressBucket("0:0:0:0:0:ffff:cb00:7105")).toBe("203.0.113.5")
  })

  it("two IPv4 clients written in hex have separate counters", async () => {
    const { browser } = lockoutApp(tightAddress)
    for (let i = 0; i < 4; i++) await attempt(browser("::ffff:c000:201"), { username: `u${i}`, password: "x" })
    expect((await attempt(browser("::ffff:cb00:7105"), { username: "v", password: "x" })).error).toBe("CredentialsSignin")
    expect((await attempt(browser("192.0.2.1"), { username: "w", password: "x" })).error).toBe("RateLimited")
  })
})

describe("what held", () => {
  it("a port-like suffix on something that is not an address is still no address", () => {
    expect(clientAddress(xff("evil.example:80"), true, undefined)).toBeUndefined()
    expect(clientAddress(xff("[not-v6]:80"), true, undefined)).toBeUndefined()
    expect(clientAddress(xff("203.0.113.5:99999999"), true, undefined)).toBeUndefined()
    // A zone names the server's interface, not the client: the address counts without it
    // (issue 28 item 8; refusing it left link-local clients with no counter at all).
    expect(clientAddress(xff("fe80::1%eth0"), true, "10.0.0.1")).toBe("fe80::1")
  })

  it("an IPv6 address is never taken for an IPv4 address with a port", () => {
    // Read as IPv6, in its one canonical spelling (RFC 5952): the dotted tail is two groups.
    expect(clientAddress(xff("2001:db8::203.0.113.5"), true, undefined)).toBe("2001:db8::cb00:7105")
    expect(addressBucket("2001:db8::203.0.113.5")).toBe("2001:db8:0:0::/64")
  })
})
