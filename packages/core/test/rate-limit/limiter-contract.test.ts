/**
 * What the rate limiter (`lib/rate-limit/limiter.ts`) writes and says, beyond refusing:
 *
 * - the counters' keys in the store, which every instance sharing a Redis or SQL store —
 *   and every version during a rolling deploy — must spell alike, or each would count apart
 *   and an attacker would get each one's allowance; identifiers only as an HMAC under the
 *   secret, never in clear;
 * - the warnings an operator reads (a request with no address, a refusal, a store failure);
 * - the refund of a right password, only for a count that still exists;
 * - the store timeout: off at 0, and a timer that never outlives the call.
 */
import { createHmac } from "node:crypto"
import { afterEach, describe, expect, it, vi } from "vitest"
import { memoryRateLimitStore, type RateLimitStore } from "@portcullis/core/rate-limit"
import { resolve } from "../../src/lib/config/resolve.js"
import { ada, SECRET } from "../helpers.js"
import { attempt, controllableStore, lockoutApp, wrong } from "./support.js"

/** The HMAC the limiter keys an identifier by (the first 128 bits, hex). */
const digest = (identifier: string, secret = SECRET) => createHmac("sha256", `portcullis rate limit\u0000${secret}`).update(identifier).digest("hex").slice(0, 32)

afterEach(() => vi.useRealTimers())

describe("the store's keys", () => {
  it("per address: `<action>:a:<address>`, an IPv6 address by its /64", async () => {
    const control = controllableStore()
    const { browser } = lockoutApp({ store: control.store })
    await attempt(browser("198.51.100.7"), wrong)
    await attempt(browser("2001:db8:1:2::99"), wrong)
    expect([...control.keys].filter((k) => k.includes(":a:")).sort()).toEqual(["credentials:a:198.51.100.7", "credentials:a:2001:db8:1:2::/64"])
  })

  it("per identifier: `credentials:i:`, then `credentials:strikes:` and `credentials:lock:`, each with the identifier's HMAC under the secret", async () => {
    const control = controllableStore()
    const { browser } = lockoutApp({ store: control.store, perAddress: { credentials: false } })
    const b = browser()
    const id = digest("ada")
    expect(id).toMatch(/^[0-9a-f]{32}$/)
    for (let i = 0; i < 6; i++) await attempt(b, wrong)
    expect([...control.keys].sort()).toEqual([`credentials:i:${id}`, `credentials:strikes:${id}`])
    // A second lockout within the day locks for longer, under its own key.
    await control.expire("credentials:i:")
    for (let i = 0; i < 6; i++) await attempt(b, wrong)
    expect([...control.keys].sort()).toEqual([`credentials:i:${id}`, `credentials:lock:${id}`, `credentials:strikes:${id}`])
    expect([...control.keys].join(" ")).not.toContain("ada")
  })

  it("differ per secret, so whoever reads the store cannot test guesses without it", async () => {
    const keysUnder = async (secret: string) => {
      const control = controllableStore()
      const { browser } = lockoutApp({ store: control.store, perAddress: { credentials: false } }, { secret })
      await attempt(browser(), wrong)
      return [...control.keys]
    }
    expect(await keysUnder(SECRET)).toEqual([`credentials:i:${digest("ada")}`])
    expect(await keysUnder("another secret, at least 32 characters long")).toEqual([`credentials:i:${digest("ada", "another secret, at least 32 characters long")}`])
  })

  it("keep each action's address counter apart", async () => {
    const { browser } = lockoutApp({ perAddress: { credentials: { max: 2, window: 900 } }, perIdentifier: { credentials: false } })
    const b = browser()
    for (let i = 0; i < 2; i++) expect((await attempt(b, wrong)).error).toBe("CredentialsSignin")
    expect((await attempt(b, wrong)).error).toBe("RateLimited")
    // The session update from the same address has its own counter, still empty.
    const csrfToken = await b.csrfToken()
    expect((await b.request("/auth/session", { json: { csrfToken } })).status).toBe(200)
  })
})

describe("the two-factor counters", () => {
  it("are the address's `twoFactor:a:` and the user's `twoFactor:i:`, the user id keyed by HMAC", async () => {
    const control = controllableStore()
    const limiter = resolve({ secret: SECRET, providers: [], rateLimit: { store: control.store } }, {}).rateLimit!
    await limiter.checkTwoFactor("user-ada", "198.51.100.7")
    expect([...control.keys].sort()).toEqual(["twoFactor:a:198.51.100.7", `twoFactor:i:${digest("user:user-ada")}`])
  })
})

describe("the two-factor cap per user", () => {
  it("lets 10 codes through in a window and refuses the 11th, from any address", async () => {
    const limiter = resolve({ secret: SECRET, providers: [], rateLimit: { perAddress: { twoFactor: false } } }, {}).rateLimit!
    for (let i = 0; i < 10; i++) await limiter.checkTwoFactor("user-ada", `198.51.100.${i}`)
    await expect(limiter.checkTwoFactor("user-ada", "198.51.100.99")).rejects.toMatchObject({ type: "RateLimited" })
  })
})

describe("the warnings", () => {
  function warned() {
    const warnings: [string, Record<string, unknown>][] = []
    const logger = { error() {}, debug() {}, warn: (code: string, details: Record<string, unknown>) => void warnings.push([code, details]) }
    return { warnings, logger }
  }

  it("name a request with no client address, a refusal by its action and limit, and a store failure with its message", async () => {
    const { warnings, logger } = warned()
    const control = controllableStore()
    const { browser } = lockoutApp({ store: control.store, failClosed: [], perIdentifier: { credentials: { max: 1, window: 900, maxLockout: 3600 } } }, { logger })
    await attempt(browser(null), wrong)
    await attempt(browser(), wrong)
    control.mode = "fail"
    await attempt(browser(), { username: "bob", password: "x" })
    const limiter = warnings.filter(([code]) => code.startsWith("rate-limit"))
    expect(limiter.map(([code]) => code)).toEqual(["rate-limit-no-address", "rate-limited", "rate-limit-store-failed"])
    expect(limiter[0]![1]).toMatchObject({ kind: "credentials" })
    expect(limiter[1]![1]).toMatchObject({ kind: "credentials:lockout", action: "credentials", limit: "lockout" })
    expect(limiter[2]![1]).toMatchObject({ kind: "credentials", error: "store down" })
  })

  it("give a store's non-Error rejection as its text", async () => {
    const { warnings, logger } = warned()
    const store: RateLimitStore = { hit: () => Promise.reject("ECONNRESET"), peek: () => Promise.reject("ECONNRESET"), reset: () => Promise.reject("ECONNRESET") }
    const { browser } = lockoutApp({ store, failClosed: [] }, { logger })
    await attempt(browser(), wrong)
    expect(warnings.find(([code]) => code === "rate-limit-store-failed")?.[1]).toMatchObject({ error: "ECONNRESET" })
  })
})

describe("the messages an app's logs show", () => {
  it("a refusal names the action, the limit and the wait; a fail-closed store and a slow one say what happened", async () => {
    const control = controllableStore()
    const warnings: [string, Record<string, unknown>][] = []
    const logger = { error() {}, debug() {}, warn: (code: string, details: Record<string, unknown>) => void warnings.push([code, details]) }
    const limiter = resolve({ secret: SECRET, providers: [], logger, rateLimit: { store: control.store, timeout: 20 } }, {}).rateLimit!
    for (let i = 0; i < 5; i++) await limiter.checkCredentials("ada", undefined)
    await expect(limiter.checkCredentials("ada", undefined)).rejects.toThrow(/^Too many credentials requests \(lockout limit\); retry in \d+ s$/)
    control.mode = "fail"
    await expect(limiter.checkCredentials("bob", undefined)).rejects.toThrow("The rate-limit store failed; credentials requests are refused until it answers")
    control.mode = "hang"
    await limiter.checkAddress("oauth", "198.51.100.7")
    expect(warnings.at(-1)).toEqual(["rate-limit-store-failed", expect.objectContaining({ kind: "oauth", error: "The rate-limit store did not answer within 20 ms" })])
  })
})

describe("a right password's refund", () => {
  it("gives back its attempt only while the count exists: a window ended meanwhile is no free attempt", async () => {
    const control = controllableStore()
    const { browser } = lockoutApp({ store: control.store, perAddress: { credentials: false } })
    const b = browser()
    const csrfToken = await b.csrfToken()
    const hit = control.store.hit
    control.store.hit = async (key, window, points) => {
      const counter = await hit(key, window, points)
      // The count was taken; the window ends before the refund looks for it.
      if (points === undefined && key.startsWith("credentials:i:")) await control.expire("credentials:i:")
      return counter
    }
    // Her right password; the window ends while it is checked (a slow authorize, say).
    await b.request("/auth/callback/credentials", { form: { ...ada, csrfToken } })
    control.store.hit = hit
    const errors = []
    for (let i = 0; i < 6; i++) errors.push((await attempt(b, wrong)).error)
    // Five wrong guesses, not six: the refund did not leave a count of -1 behind.
    expect(errors).toEqual(["CredentialsSignin", "CredentialsSignin", "CredentialsSignin", "CredentialsSignin", "CredentialsSignin", "RateLimited"])
  })

  it("is best effort: a store failing at the refund does not fail her sign-in", async () => {
    const inner = memoryRateLimitStore()
    let failPeek = false
    const store: RateLimitStore = { hit: (...a) => inner.hit(...a), peek: (key) => (failPeek && key.startsWith("credentials:i:") ? Promise.reject(new Error("down")) : inner.peek(key)), reset: (key) => inner.reset(key) }
    const warnings: string[] = []
    const { browser } = lockoutApp({ store, perAddress: { credentials: false } }, { logger: { error() {}, debug() {}, warn: (code: string) => void warnings.push(code) } })
    const b = browser()
    failPeek = true
    const { error, status } = await attempt(b, ada)
    expect([status, error]).toEqual([302, null])
    // Not silently: the operator is told the store failed.
    expect(warnings).toContain("rate-limit-store-failed")
  })
})

describe("the store timeout", () => {
  it("at 0 bounds nothing: a store slower than a timer tick is still waited for", async () => {
    const inner = memoryRateLimitStore()
    const later = <T>(value: Promise<T>) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 5))
    const store: RateLimitStore = { hit: (...a) => later(inner.hit(...a)), peek: (key) => later(inner.peek(key)), reset: (key) => later(inner.reset(key)) }
    const { browser } = lockoutApp({ store, timeout: 0, perAddress: { credentials: false } })
    const b = browser()
    const errors = []
    for (let i = 0; i < 6; i++) errors.push((await attempt(b, wrong)).error)
    expect(errors.at(-1)).toBe("RateLimited")
  })

  it("leaves no timer behind once the store answered", async () => {
    /** Timers still pending after one wrong attempt, under `timeout`. */
    const pendingAfterAttempt = async (timeout: number) => {
      const { browser } = lockoutApp({ timeout, perAddress: { credentials: false } })
      const b = browser()
      const csrfToken = await b.csrfToken()
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] })
      await b.request("/auth/callback/credentials", { form: { ...wrong, csrfToken } })
      const pending = vi.getTimerCount()
      vi.useRealTimers()
      return pending
    }
    // With the bound on, as many timers are left as with no bound at all (the app's own).
    expect(await pendingAfterAttempt(60_000)).toBe(await pendingAfterAttempt(0))
  })
})
