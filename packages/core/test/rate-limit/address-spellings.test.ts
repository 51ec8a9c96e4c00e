/**
 * Issue 28 item 8: a client address counts once, however it is spelled. A link-local IPv6
 * peer arrives with a zone (`fe80::1%eth0`: Node's `remoteAddress`, Express's `req.ip`), which
 * the parser refused — so such a client had no address, and every per-address limit skipped it.
 */
import { describe, expect, it } from "vitest"
import { attempt, lockoutApp } from "./support.js"
import { addressBucket, clientAddress } from "../../src/lib/rate-limit/address.js"

const tightAddress = { perAddress: { credentials: { max: 3, window: 900 } }, perIdentifier: { credentials: false as const } }

describe("a link-local client with a zone (fe80::1%eth0)", () => {
  it("is limited per address like any other client", async () => {
    const { browser, calls, events } = lockoutApp(tightAddress)
    // The attacker on the server's link guesses from its link-local address; the integration
    // passes the socket's address as Node reports it, zone included.
    const attacker = browser("fe80::1%eth0")
    const errors = []
    for (let i = 0; i < 6; i++) errors.push((await attempt(attacker, { username: `user${i}`, password: "guess" })).error)
    expect(errors).toEqual(["CredentialsSignin", "CredentialsSignin", "CredentialsSignin", "RateLimited", "RateLimited", "RateLimited"])
    expect(calls.authorize).toBe(3)
    expect(events[0]).toMatchObject({ action: "credentials", limit: "address", address: "fe80::1" })
  })

  it("gets no fresh counter from another spelling: another zone, upper case, leading zeros, brackets and a port", async () => {
    const { browser, calls } = lockoutApp(tightAddress)
    const spellings = ["fe80::1%eth0", "FE80::0001%eth1", "[fe80:0:0:0:0:0:0:1%25eth0]:51234", "fe80::1%2", "fe80::1"]
    const errors = []
    for (const [i, address] of spellings.entries()) errors.push((await attempt(browser(address), { username: `user${i}`, password: "guess" })).error)
    expect(errors).toEqual(["CredentialsSignin", "CredentialsSignin", "CredentialsSignin", "RateLimited", "RateLimited"])
    expect(calls.authorize).toBe(3)
  })
})

describe("every spelling of one address", () => {
  const headers = (xff: string) => new Headers({ "x-forwarded-for": xff })
  const canonical = (value: string) => clientAddress(new Headers(), false, value)

  it("is one canonical address (RFC 5952 for IPv6, plain decimal for IPv4)", () => {
    for (const spelling of ["2001:db8::1", "2001:DB8::1", "2001:0db8:0000:0000:0000:0000:0000:0001", "[2001:db8::1]", "[2001:db8::1]:443", "2001:db8::1%eth0", "2001:db8:0:0::0:1"]) {
      expect(canonical(spelling), spelling).toBe("2001:db8::1")
    }
    for (const spelling of ["192.0.2.1", "192.000.002.001", "192.0.2.1:8080", "::ffff:192.0.2.1", "::FFFF:C000:0201", "[::ffff:192.0.2.1]:443", "::ffff:192.0.2.1%lo", "0:0:0:0:0:ffff:c000:201"]) {
      expect(canonical(spelling), spelling).toBe("192.0.2.1")
    }
    // RFC 5952: the longest run of zeros is the one compressed, the first of equal runs.
    expect(canonical("2001:0:0:1:0:0:0:1")).toBe("2001:0:0:1::1")
    expect(canonical("2001:db8:0:0:1:0:0:1")).toBe("2001:db8::1:0:0:1")
    expect(canonical("2001:db8:0:1:1:1:1:1")).toBe("2001:db8:0:1:1:1:1:1")
    expect(clientAddress(headers("203.0.113.1, FE80::A%en0"), true, undefined)).toBe("fe80::a")
  })

  it("still refuses what is not an address, zone or not (an empty zone is still the address: more counted, never less)", () => {
    expect(canonical("fe80::1%")).toBe("fe80::1")
    for (const value of ["%eth0", "192.0.2.1%eth0", "fe80::g%eth0", "[192.0.2.1]", "x".repeat(200)]) {
      expect(canonical(value), value).toBeUndefined()
    }
  })

  it("counts an IPv6 client, zone or not, by its /64", () => {
    expect(addressBucket(canonical("fe80::1%eth0")!)).toBe("fe80:0:0:0::/64")
    expect(addressBucket(canonical("FE80::ABCD:1%eth1")!)).toBe("fe80:0:0:0::/64")
  })
})

describe("the allow-list", () => {
  it("matches an address listed in another spelling", async () => {
    const { browser } = lockoutApp({ ...tightAddress, allowList: ["2001:DB8::0001"] })
    const listed = browser("2001:db8:0:0:0:0:0:1")
    for (let i = 0; i < 5; i++) expect((await attempt(listed, { username: `u${i}`, password: "x" })).error).toBe("CredentialsSignin")
  })
})
