/**
 * The enrollment server API (`@portcullis/core/integration`): start (secret and QR code,
 * pending), confirm with a first code (on, ten backup codes shown once), disable and
 * regenerate — both only with a current code. The secret is stored sealed.
 */
import { describe, expect, it } from "vitest"
import { confirmTwoFactor, disableTwoFactor, getTwoFactorStatus, regenerateTwoFactorBackupCodes, startTwoFactor } from "@portcullis/core/integration"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import type { AuthConfig } from "@portcullis/core"
import { steppedUp } from "../step-up/support.js"
import { ADA_ID, enroll, firstFactor, secondFactor, twoFactorApp } from "./support.js"

/** Ada's settings page: her session, stepped up a moment ago (docs/step-up.md). */
const ada = async (config: AuthConfig) => ({ ...(await steppedUp(config, ADA_ID)), account: "ada@example.com" })

describe("starting enrollment", () => {
  it("answers a secret, its otpauth URI and a QR code, and stores the secret sealed and pending", async () => {
    const adapter = MemoryAdapter()
    const { config } = twoFactorApp({ twoFactor: { issuer: "Example" } }, adapter)
    const enrollment = await startTwoFactor(await ada(config), config)
    expect(enrollment.secret).toMatch(/^[A-Z2-7]{32}$/)
    expect(enrollment.uri).toContain("otpauth://totp/Example:ada%40example.com")
    expect(enrollment.qrSvg).toMatch(/^<svg/)
    const stored = await adapter.getTwoFactor!(ADA_ID)
    expect(stored).toMatchObject({ enabled: false, lastUsedStep: null, backupCodes: [] })
    // At rest: a JWE, not the secret.
    expect(stored!.secret.split(".")).toHaveLength(5)
    expect(stored!.secret).not.toContain(enrollment.secret)
    expect(await getTwoFactorStatus(await ada(config), config)).toEqual({ enabled: false, pending: true, backupCodesLeft: 0 })
  })

  it("does not turn the step on while pending: the user signs in with one factor", async () => {
    const { config, browser } = twoFactorApp()
    await startTwoFactor(await ada(config), config)
    expect((await firstFactor(browser())).headers.get("location")).toBe("http://localhost:3000")
  })

  it("is refused while 2FA is on", async () => {
    const { config } = twoFactorApp()
    await enroll(config)
    await expect(startTwoFactor(await ada(config), config)).rejects.toMatchObject({ type: "TwoFactorStateError" })
  })

  it("is refused without the twoFactor option", async () => {
    const { config } = twoFactorApp({ twoFactor: undefined })
    await expect(startTwoFactor(await ada(config), config)).rejects.toMatchObject({ type: "InvalidConfig" })
  })
})

describe("confirming enrollment", () => {
  it("turns 2FA on for the current code and answers ten distinct backup codes, stored only as hashes", async () => {
    const adapter = MemoryAdapter()
    const { config } = twoFactorApp({}, adapter)
    const { secret } = await startTwoFactor(await ada(config), config)
    const { backupCodes } = await confirmTwoFactor({ ...(await ada(config)), code: totpCode(secret) }, config)
    expect(new Set(backupCodes).size).toBe(10)
    const stored = await adapter.getTwoFactor!(ADA_ID)
    expect(stored!.enabled).toBe(true)
    expect(stored!.backupCodes).toHaveLength(10)
    for (const code of backupCodes) expect(stored!.backupCodes).not.toContain(code)
    expect(await getTwoFactorStatus(await ada(config), config)).toEqual({ enabled: true, pending: false, backupCodesLeft: 10 })
  })

  it("refuses a wrong code and stays pending", async () => {
    const { config } = twoFactorApp()
    const { secret } = await startTwoFactor(await ada(config), config)
    const wrong = totpCode(secret) === "123456" ? "654321" : "123456"
    await expect(confirmTwoFactor({ ...(await ada(config)), code: wrong }, config)).rejects.toMatchObject({ type: "TwoFactorCodeInvalid" })
    expect((await getTwoFactorStatus(await ada(config), config)).pending).toBe(true)
  })

  it("answers backup codes to one of two confirmations sent at once (a double submit); the other is refused", async () => {
    const adapter = MemoryAdapter()
    const { config } = twoFactorApp({}, adapter)
    const { secret } = await startTwoFactor(await ada(config), config)
    const code = totpCode(secret)
    const settings = await ada(config)
    const results = await Promise.allSettled([0, 1].map(() => confirmTwoFactor({ ...settings, code }, config)))
    const won = results.filter((r) => r.status === "fulfilled") as PromiseFulfilledResult<{ backupCodes: string[] }>[]
    expect(won).toHaveLength(1)
    expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: { type: "TwoFactorCodeInvalid" } })
    // The codes answered are the ones stored.
    const b = twoFactorApp({}, adapter).browser()
    await firstFactor(b)
    expect((await secondFactor(b, won[0]!.value.backupCodes[0]!)).status).toBe(302)
  })

  it("refuses a confirmation with nothing started", async () => {
    const { config } = twoFactorApp()
    await expect(confirmTwoFactor({ ...(await ada(config)), code: "123456" }, config)).rejects.toMatchObject({ type: "TwoFactorStateError" })
  })

  it("marks the confirming code used: it cannot also pass the sign-in step", async () => {
    const { config, browser } = twoFactorApp()
    const { secret } = await startTwoFactor(await ada(config), config)
    const code = totpCode(secret)
    await confirmTwoFactor({ ...(await ada(config)), code }, config)
    const b = browser()
    await firstFactor(b)
    expect((await secondFactor(b, code)).status).toBe(401)
  })
})

describe("disabling and regenerating (re-authentication)", () => {
  it("disables with a current code; the next sign-in has one step", async () => {
    const { config, browser } = twoFactorApp()
    const { secret } = await enroll(config)
    await disableTwoFactor({ ...(await ada(config)), code: totpCode(secret) }, config)
    expect(await getTwoFactorStatus(await ada(config), config)).toEqual({ enabled: false, pending: false, backupCodesLeft: 0 })
    expect((await firstFactor(browser())).headers.get("location")).toBe("http://localhost:3000")
  })

  it("refuses to disable without a valid code, or with a code already used", async () => {
    const { config } = twoFactorApp()
    const { secret, backupCodes } = await enroll(config)
    await expect(disableTwoFactor({ ...(await ada(config)), code: "" }, config)).rejects.toMatchObject({ type: "TwoFactorCodeInvalid" })
    await expect(disableTwoFactor({ ...(await ada(config)), code: "aaaaa-aaaaa" }, config)).rejects.toMatchObject({ type: "TwoFactorCodeInvalid" })
    await regenerateTwoFactorBackupCodes({ ...(await ada(config)), code: backupCodes[0]! }, config)
    await expect(disableTwoFactor({ ...(await ada(config)), code: backupCodes[1]! }, config)).rejects.toMatchObject({ type: "TwoFactorCodeInvalid" })
    expect((await getTwoFactorStatus(await ada(config), config)).enabled).toBe(true)
    const code = totpCode(secret)
    await disableTwoFactor({ ...(await ada(config)), code }, config)
    await expect(disableTwoFactor({ ...(await ada(config)), code }, config)).rejects.toMatchObject({ type: "TwoFactorStateError" })
  })

  it("regenerates ten new backup codes with a current code; the old ones stop working", async () => {
    const { config, browser } = twoFactorApp()
    const { secret, backupCodes: old } = await enroll(config)
    const { backupCodes } = await regenerateTwoFactorBackupCodes({ ...(await ada(config)), code: totpCode(secret) }, config)
    expect(backupCodes).toHaveLength(10)
    expect(backupCodes.some((code) => old.includes(code))).toBe(false)
    const b = browser()
    await firstFactor(b)
    expect((await secondFactor(b, old[5]!)).status).toBe(401)
    expect((await secondFactor(b, backupCodes[5]!)).status).toBe(302)
    expect((await getTwoFactorStatus(await ada(config), config)).backupCodesLeft).toBe(9)
  })
})
