/**
 * 50 attempts at once count exactly and only `max` of them reach `authorize`; a store that
 * fails or hangs costs requests (fail open for most actions, closed for the credentials
 * lockout), never the process; and the option is checked like every other.
 */
import { describe, expect, it } from "vitest"
import { Auth, AuthRuntime } from "@portcullis/core"
import { ada, credentialsConfig } from "../helpers.js"
import { attempt, controllableStore, lockoutApp, wrong } from "./support.js"

describe("50 concurrent wrong attempts for one account", () => {
  it("count exactly: 5 reach authorize, 45 are refused, the counter holds 50", async () => {
    const control = controllableStore()
    const { browser, calls } = lockoutApp({ store: control.store })
    const results = await Promise.all(Array.from({ length: 50 }, () => attempt(browser(), wrong)))
    const errors = results.map((r) => r.error)
    expect(errors.filter((e) => e === "CredentialsSignin")).toHaveLength(5)
    expect(errors.filter((e) => e === "RateLimited")).toHaveLength(45)
    expect(calls.authorize).toBe(5)
    const counterKey = [...control.keys].find((k) => k.startsWith("credentials:i:"))!
    expect((await control.store.peek(counterKey))?.count).toBe(50)
  })

  it("50 concurrent requests from one address count exactly against the per-address limit", async () => {
    const { browser, calls } = lockoutApp({ perAddress: { credentials: { max: 20, window: 900 } }, perIdentifier: { credentials: false } })
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => attempt(browser(), { username: `user${i}`, password: "x" })))
    expect(results.filter((r) => r.error === "RateLimited")).toHaveLength(30)
    expect(calls.authorize).toBe(20)
  })
})

describe("a store that fails", () => {
  it("refuses credentials sign-ins with 503 (fail closed): a lockout must not vanish with the store", async () => {
    const control = controllableStore()
    const { browser, calls } = lockoutApp({ store: control.store })
    control.mode = "fail"
    const b = browser()
    const form = await attempt(b, ada)
    expect(new URL(form.location!).searchParams.get("error")).toBe("ServiceUnavailable")
    const json = await attempt(b, ada, { json: true })
    expect(json.status).toBe(503)
    expect(json.retryAfter).not.toBeNull()
    expect(calls.authorize).toBe(0)
    // Back up: the owner signs in.
    control.mode = "ok"
    expect((await attempt(b, ada)).error).toBeNull()
  })

  it("lets other actions through uncounted (fail open) with one warning, when they are not in failClosed", async () => {
    const control = controllableStore()
    const warnings: unknown[] = []
    const { browser, calls } = lockoutApp({ store: control.store, failClosed: [] }, { logger: { error: () => {}, debug: () => {}, warn: (code, details) => void warnings.push([code, details]) } })
    control.mode = "fail"
    const b = browser()
    for (let i = 0; i < 8; i++) expect((await attempt(b, wrong)).error).toBe("CredentialsSignin")
    expect((await attempt(b, ada)).error).toBeNull()
    expect(calls.authorize).toBe(9)
    const storeWarnings = warnings.filter((w) => (w as [string])[0] === "rate-limit-store-failed")
    expect(storeWarnings).toHaveLength(1)
  })

  it("treats a store slower than timeout as failed: the request is answered, not held", async () => {
    const control = controllableStore()
    const { browser } = lockoutApp({ store: control.store, timeout: 50 })
    control.mode = "hang"
    const b = browser()
    const json = await attempt(b, ada, { json: true })
    expect(json.status).toBe(503)
  })

  it("lets a session update through when the store is down (not in failClosed by default)", async () => {
    const control = controllableStore()
    const { browser } = lockoutApp({ store: control.store })
    const b = browser()
    expect((await attempt(b, ada)).error).toBeNull()
    control.mode = "fail"
    const update = await b.request("/auth/session", { json: { csrfToken: await b.csrfToken(), data: {} } })
    expect(update.status).toBe(200)
  })
})

describe("the rateLimit option", () => {
  const configError = async (rateLimit: unknown) => {
    const response = await Auth(new Request("http://localhost:3000/auth/session"), { ...credentialsConfig(), rateLimit, logger: { error: () => {}, warn: () => {}, debug: () => {} } } as never)
    return response.status
  }

  it("refuses wrong shapes as a configuration error", async () => {
    for (const bad of [true, "on", [], { perAddress: { nope: { max: 1, window: 1 } } }, { perAddress: { email: { max: 0, window: 60 } } }, { perIdentifier: { credentials: { max: 5, window: 1.5 } } }, { allowList: "1.2.3.4" }, { failClosed: ["everything"] }, { timeout: -1 }, { store: {} }]) {
      expect(await configError(bad), JSON.stringify(bad)).toBe(500)
    }
    expect(await configError({})).toBe(200)
  })

  it("is off by default under NODE_ENV=test and on in production and development", () => {
    const config = credentialsConfig()
    const under = (NODE_ENV: string | undefined) => new AuthRuntime(config, { NODE_ENV }).config.rateLimit
    expect(under("test")).toBeUndefined()
    expect(under("production")).toBeDefined()
    expect(under("development")).toBeDefined()
    expect(under(undefined)).toBeDefined()
    expect(new AuthRuntime({ ...config, rateLimit: {} }, { NODE_ENV: "test" }).config.rateLimit).toBeDefined()
    expect(new AuthRuntime({ ...config, rateLimit: false }, { NODE_ENV: "production" }).config.rateLimit).toBeUndefined()
  })

  it("gives each configuration its own counters", async () => {
    const one = lockoutApp()
    const two = lockoutApp()
    for (let i = 0; i < 6; i++) await attempt(one.browser(), wrong)
    expect((await attempt(one.browser(), wrong)).error).toBe("RateLimited")
    expect((await attempt(two.browser(), wrong)).error).toBe("CredentialsSignin")
  })
})
