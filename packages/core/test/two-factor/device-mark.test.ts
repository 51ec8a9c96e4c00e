/**
 * The "remember this device" mark (issue 36): it skips the step only while `rememberDevice`
 * is on, only for as long as it was issued for — the sealed mark expires with it even when a
 * browser keeps sending the cookie — and it cannot be posted into being when the option is
 * off. flow.test.ts has the mark's ordinary use; password-two-factor.test.ts another user's.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { createHash } from "node:crypto"
import { decode } from "@portcullis/core/jwt"
import { totpCode } from "@portcullis/core/two-factor"
import { SECRET } from "../helpers.js"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { ADA_ID, enroll, firstFactor, secondFactor, twoFactorApp } from "./support.js"

const HOME = "http://localhost:3000"
const STEP = "http://localhost:3000/auth/two-factor"
const DEVICE = "portcullis.two-factor-device"

afterEach(() => {
  vi.useRealTimers()
})

describe("a device mark", () => {
  it("is ignored once rememberDevice is turned off, though the browser still sends it", async () => {
    const adapter = MemoryAdapter()
    const on = twoFactorApp({ twoFactor: { rememberDevice: 3600 } }, adapter)
    const { secret } = await enroll(on.config)
    const b = on.browser()
    await firstFactor(b)
    await secondFactor(b, totpCode(secret), { remember: "1" })
    const mark = b.jar.get(DEVICE)!

    const off = twoFactorApp({ twoFactor: { rememberDevice: 0 } }, adapter)
    const later = off.browser()
    later.jar.set(DEVICE, mark)
    expect((await firstFactor(later)).headers.get("location")).toBe(STEP)
  })

  it("is not issued when rememberDevice is off, even if the form asks for it", async () => {
    const { config, browser } = twoFactorApp()
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    expect((await secondFactor(b, totpCode(secret), { remember: "1" })).status).toBe(302)
    expect(b.jar.has(DEVICE)).toBe(false)
  })

  it("expires with rememberDevice even when the browser keeps the cookie", async () => {
    const { config, browser } = twoFactorApp({ twoFactor: { rememberDevice: 3600 } })
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    await secondFactor(b, totpCode(secret), { remember: "1" })
    await b.signOut()
    expect((await firstFactor(b)).headers.get("location")).toBe(HOME)
    await b.signOut()
    // An hour and a minute later (past the sealed expiry and its 15 s of tolerance).
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 3660_000 })
    expect((await firstFactor(b)).headers.get("location")).toBe(STEP)
  })

  it("is set to expire when the mark does", async () => {
    const { config, browser } = twoFactorApp({ twoFactor: { rememberDevice: 3600 } })
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    const before = Date.now()
    await secondFactor(b, totpCode(secret), { remember: "1" })
    const expires = Date.parse(b.jar.get(DEVICE)!.attributes.expires!)
    // Expires has whole seconds.
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 3600_000)
    expect(expires).toBeLessThanOrEqual(Date.now() + 3600_000)
  })

  it("is one the step can read: a cookie that opens as nothing leads to the step, not an error", async () => {
    const { config, browser } = twoFactorApp({ twoFactor: { rememberDevice: 3600 } })
    await enroll(config)
    const b = browser()
    b.jar.set(DEVICE, { value: "not-a-mark", attributes: {} })
    expect((await firstFactor(b)).headers.get("location")).toBe(STEP)
  })

  it("carries the user and a 32-character digest of the sealed secret, the same in every version", async () => {
    const { config, browser, adapter } = twoFactorApp({ twoFactor: { rememberDevice: 3600 } })
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    await secondFactor(b, totpCode(secret), { remember: "1" })
    const payload = await decode<{ uid: string; mark: string }>({ token: b.jar.get(DEVICE)!.value, secret: SECRET, salt: DEVICE })
    const sealed = (await adapter.getTwoFactor!(ADA_ID))!.secret
    expect(payload).toMatchObject({ uid: ADA_ID, mark: createHash("sha256").update(`portcullis-two-factor-device:${sealed}`).digest("hex").slice(0, 32) })
  })
})
