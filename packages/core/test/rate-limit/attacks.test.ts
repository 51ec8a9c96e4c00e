/**
 * The attacker's side of T53: the client address comes only from what the client cannot
 * write, and no address games get around the per-identifier lockout.
 */
import { describe, expect, it } from "vitest"
import { attempt, controllableStore, lockoutApp, wrong } from "./support.js"
import { addressBucket, clientAddress } from "../../src/lib/rate-limit/address.js"
import { httpServer } from "../http-server.js"
import { Browser, SECRET } from "../helpers.js"
import Credentials from "@portcullis/core/providers/credentials"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { createAuth } from "@portcullis/core"
import { sendResponse, toWebRequest } from "../http-server.js"

const tightAddress = { perAddress: { credentials: { max: 3, window: 900 } }, perIdentifier: { credentials: false as const } }

describe("the client address", () => {
  const headers = (xff?: string) => new Headers(xff === undefined ? {} : { "x-forwarded-for": xff })

  it("is the integration's socket address when trustHost is off, whatever X-Forwarded-For says", () => {
    expect(clientAddress(headers("1.2.3.4"), false, "198.51.100.7")).toBe("198.51.100.7")
    expect(clientAddress(headers(), false, "::ffff:198.51.100.7")).toBe("198.51.100.7")
  })

  it("is the last X-Forwarded-For entry (the one the proxy added) with trustHost", () => {
    expect(clientAddress(headers("6.6.6.6, 203.0.113.9"), true, "10.0.0.1")).toBe("203.0.113.9")
    expect(clientAddress(headers("2001:DB8::1"), true, undefined)).toBe("2001:db8::1")
  })

  it("falls back to the socket address when the forwarded value is missing or not an address", () => {
    expect(clientAddress(headers(), true, "10.0.0.1")).toBe("10.0.0.1")
    expect(clientAddress(headers("evil, <script>"), true, "10.0.0.1")).toBe("10.0.0.1")
    expect(clientAddress(headers("1.2.3.4"), false, undefined)).toBeUndefined()
    expect(clientAddress(headers(), false, "not an address")).toBeUndefined()
  })
})

describe("IPv6 clients", () => {
  it("count by /64 network, whatever the spelling", () => {
    expect(addressBucket("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64")
    expect(addressBucket("2001:0db8:0001:0002::1")).toBe("2001:db8:1:2::/64")
    expect(addressBucket("::1")).toBe("0:0:0:0::/64")
    expect(addressBucket("::ffff:c000:201")).toBe("192.0.2.1") // an IPv4-mapped address counts as its IPv4 client (was one bucket for all of IPv4)
    expect(addressBucket("64:ff9b::192.0.2.1")).toBe("64:ff9b:0:0::/64")
    expect(addressBucket("192.0.2.1")).toBe("192.0.2.1")
  })

  it("cannot escape the per-address limit by rotating addresses within their /64", async () => {
    const { browser } = lockoutApp(tightAddress)
    const errors = []
    for (let i = 1; i <= 5; i++) errors.push((await attempt(browser(`2001:db8:1:2::${i.toString(16)}`), { username: `u${i}`, password: "x" })).error)
    expect(errors).toEqual(["CredentialsSignin", "CredentialsSignin", "CredentialsSignin", "RateLimited", "RateLimited"])
    expect((await attempt(browser("2001:db8:1:3::1"), { username: "other", password: "x" })).error).toBe("CredentialsSignin")
  })
})

describe("a forged X-Forwarded-For without trustHost", () => {
  it("does not reset the per-address counter: a new forged address on every attempt is still one client", async () => {
    const { browser, calls } = lockoutApp(tightAddress)
    const b = browser("198.51.100.7")
    const answers = []
    for (let i = 0; i < 6; i++) {
      const forged = { "x-forwarded-for": `203.0.113.${i + 1}`, "x-real-ip": `203.0.113.${i + 1}` }
      answers.push((await attempt(b, { username: `user${i}`, password: "x" }, { headers: forged })).error)
    }
    expect(answers).toEqual(["CredentialsSignin", "CredentialsSignin", "CredentialsSignin", "RateLimited", "RateLimited", "RateLimited"])
    expect(calls.authorize).toBe(3)
  })

  it("holds on a real socket too: the test server passes its socket's address, the header is ignored", async () => {
    let auth: ReturnType<typeof createAuth> | undefined
    // What an integration does: the peer address from the socket, as a call option.
    const server = createServer((req, res) => {
      void auth!.handle(toWebRequest(req), { clientAddress: req.socket.remoteAddress }).then((r) => sendResponse(res, r))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    auth = createAuth({
      secret: SECRET,
      trustHost: false,
      trustedOrigins: [origin],
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      rateLimit: tightAddress,
      providers: [Credentials({ credentials: { username: {}, password: { type: "password" } }, authorize: async () => null })],
    })
    try {
      const b = new Browser((request) => fetch(request, { redirect: "manual" }), origin)
      const errors = []
      for (let i = 0; i < 5; i++) errors.push((await attempt(b, { username: `u${i}`, password: "x" }, { headers: { "x-forwarded-for": `192.0.2.${i}` } })).error)
      expect(errors.slice(3)).toEqual(["RateLimited", "RateLimited"])
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe("rotating addresses", () => {
  it("does not escape the per-identifier lockout", async () => {
    const { browser, calls } = lockoutApp()
    const errors = []
    for (let i = 0; i < 8; i++) errors.push((await attempt(browser(`198.51.100.${i + 1}`), wrong)).error)
    expect(errors).toEqual([...Array(5).fill("CredentialsSignin"), "RateLimited", "RateLimited", "RateLimited"])
    expect(calls.authorize).toBe(5)
  })

  it("does not escape it through trusted forwarded addresses either", async () => {
    const { browser, calls } = lockoutApp({}, { trustHost: true })
    const b = browser(null)
    const errors = []
    for (let i = 0; i < 7; i++) errors.push((await attempt(b, wrong, { headers: { "x-forwarded-for": `203.0.113.${i}` } })).error)
    expect(errors.slice(5)).toEqual(["RateLimited", "RateLimited"])
    expect(calls.authorize).toBe(5)
  })
})

describe("with no client address", () => {
  it("skips the per-address limit (a shared bucket would let one client lock everyone out) and keeps the lockout", async () => {
    const { browser } = lockoutApp({ perAddress: { credentials: { max: 1, window: 900 } } })
    const b = browser(null)
    const errors = []
    for (let i = 0; i < 3; i++) errors.push((await attempt(b, { username: `someone${i}`, password: "x" })).error)
    expect(errors).toEqual(["CredentialsSignin", "CredentialsSignin", "CredentialsSignin"])
    for (let i = 0; i < 5; i++) await attempt(b, wrong)
    expect((await attempt(b, wrong)).error).toBe("RateLimited")
  })
})

describe("the allow-list", () => {
  it("exempts listed addresses and identifiers", async () => {
    const { browser } = lockoutApp({ ...tightAddress, perIdentifier: { credentials: { max: 1, window: 900 } }, allowList: ["198.51.100.50", "ADA"] })
    const listed = browser("198.51.100.50")
    for (let i = 0; i < 5; i++) expect((await attempt(listed, { username: `u${i}`, password: "x" })).error).toBe("CredentialsSignin")
    const other = browser("198.51.100.51")
    for (let i = 0; i < 3; i++) expect((await attempt(other, wrong)).error).toBe("CredentialsSignin")
  })
})

describe("the default on a real server without an address", () => {
  it("still locks the identifier through Auth() (no integration address)", async () => {
    const { credentialsConfig } = await import("../helpers.js")
    const server = await httpServer({ ...credentialsConfig(), rateLimit: {}, logger: { error: () => {}, warn: () => {}, debug: () => {} } })
    try {
      const b = new Browser(server.transport, server.origin)
      for (let i = 0; i < 5; i++) await attempt(b, wrong)
      expect((await attempt(b, wrong)).error).toBe("RateLimited")
    } finally {
      await server.close()
    }
  })
})

describe("what the store holds", () => {
  it("never an identifier: identifiers are keyed by an HMAC under the secret, so the same name differs per secret", async () => {
    const keysUnder = async (secret: string) => {
      const control = controllableStore()
      const { browser } = lockoutApp({ store: control.store }, { secret })
      await attempt(browser(), { username: "Ada.Lovelace@example.com", password: "x" })
      return [...control.keys].filter((k) => k.startsWith("credentials:i:"))
    }
    const [one, two] = [await keysUnder(SECRET), await keysUnder(`${SECRET}-rotated`)]
    expect(one).toHaveLength(1)
    expect(one[0]).not.toMatch(/ada|lovelace|example/i)
    expect(one[0]).toMatch(/^credentials:i:[0-9a-f]{32}$/)
    expect(two[0]).not.toBe(one[0])
  })
})
