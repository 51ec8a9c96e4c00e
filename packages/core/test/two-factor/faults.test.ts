/**
 * The two-factor store down: no answer about a user's 2FA means no session — never a
 * session issued on one factor because the second could not be checked — and a 503, with
 * the process fine and the next request served once the store is back.
 */
import { describe, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { captureLogger } from "../helpers.js"
import { enroll, firstFactor, secondFactor, twoFactorApp } from "./support.js"

/** A memory adapter whose two-factor methods fail while `down` is set. */
function flakyStore() {
  const inner = MemoryAdapter()
  const state = { down: false }
  const fail = () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432"))
  const adapter: Adapter = {
    ...inner,
    getTwoFactor: (userId) => (state.down ? fail() : inner.getTwoFactor!(userId)),
    useTwoFactorStep: (userId, step) => (state.down ? fail() : inner.useTwoFactorStep!(userId, step)),
    useTwoFactorBackupCode: (userId, hash) => (state.down ? fail() : inner.useTwoFactorBackupCode!(userId, hash)),
  }
  return { adapter, state }
}

describe("the two-factor store down", () => {
  it("issues no session after the first factor and answers 503 until the store is back", async () => {
    const { adapter, state } = flakyStore()
    const log = captureLogger()
    const { config, browser } = twoFactorApp({ logger: log.logger }, adapter)
    const { secret } = await enroll(config)
    const b = browser()
    state.down = true
    const response = await firstFactor(b)
    expect(log.lines.join("\n")).toContain("getTwoFactor")
    expect(log.lines.join("\n")).not.toContain(secret)
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/error?error=ServiceUnavailable")
    expect(b.sessionCookie()).toBeUndefined()
    expect(b.jar.has("portcullis.two-factor")).toBe(false)
    const page = await b.request("/auth/error?error=ServiceUnavailable")
    expect(page.status).toBe(503)
    // Back: the same browser goes through both steps.
    state.down = false
    expect((await firstFactor(b)).headers.get("location")).toBe("http://localhost:3000/auth/two-factor")
    expect((await secondFactor(b, totpCode(secret))).status).toBe(302)
    expect(b.sessionCookie()).toBeDefined()
  })

  it("issues no session when the store fails while the code is judged, and the challenge stays usable", async () => {
    const { adapter, state } = flakyStore()
    const log = captureLogger()
    const { config, browser } = twoFactorApp({ logger: log.logger }, adapter)
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    state.down = true
    const response = await secondFactor(b, totpCode(secret))
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/error?error=ServiceUnavailable")
    expect(b.sessionCookie()).toBeUndefined()
    state.down = false
    expect((await secondFactor(b, totpCode(secret))).status).toBe(302)
    expect(b.sessionCookie()).toBeDefined()
  })

  it("issues no session when the store hangs past adapterTimeout", async () => {
    const inner = MemoryAdapter()
    const hang = { on: false }
    const adapter: Adapter = { ...inner, getTwoFactor: (userId) => (hang.on ? new Promise(() => {}) : inner.getTwoFactor!(userId)) }
    const { config, browser } = twoFactorApp({ adapterTimeout: 50, logger: captureLogger().logger }, adapter)
    await enroll(config)
    hang.on = true
    const b = browser()
    const response = await firstFactor(b)
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/error?error=ServiceUnavailable")
    expect(b.sessionCookie()).toBeUndefined()
  })

  it("finishes the step on another instance, or after a restart: the challenge is in the cookie, the record in the store", async () => {
    const adapter = MemoryAdapter()
    const before = twoFactorApp({}, adapter)
    const { secret } = await enroll(before.config)
    const b = before.browser()
    await firstFactor(b)
    // A new runtime (a restarted process, another instance): same secret and store.
    const after = twoFactorApp({}, adapter)
    const moved = after.browser()
    for (const [name, cookie] of b.jar) moved.jar.set(name, cookie)
    expect((await secondFactor(moved, totpCode(secret))).status).toBe(302)
    expect(moved.sessionCookie()).toBeDefined()
  })

  it("refuses to start with twoFactor on and an adapter without the capability", async () => {
    const { getTwoFactor: _drop, ...withoutGet } = MemoryAdapter()
    const log = captureLogger()
    const { browser } = twoFactorApp({ logger: log.logger }, withoutGet)
    const response = await browser().request("/auth/session")
    expect(response.status).toBe(500)
    expect(log.lines.join("\n")).toContain("The adapter lacks methods twoFactor needs: getTwoFactor")
  })
})
