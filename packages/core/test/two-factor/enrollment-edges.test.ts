/**
 * The enrollment engine at its edges (issue 36): what it refuses before touching anything
 * (a user id that is no non-empty string — the integration always passes the session's, so
 * these call the engine directly as any other caller could), the issuer apps show when none
 * is configured, a second confirmation of an enabled record, a code that is no string, and
 * 2FA turned off between the re-authentication and the regeneration it allows.
 * enrollment.test.ts has the ordinary flows.
 */
import { describe, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import { confirmTwoFactor, regenerateTwoFactorBackupCodes, runtimeFor } from "@portcullis/core/integration"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { confirmEnrollment, disable, startEnrollment, twoFactorStatus } from "../../src/lib/two-factor/enrollment.js"
import { steppedUp } from "../step-up/support.js"
import { ADA_ID, enroll, twoFactorApp } from "./support.js"

const resolved = (extra: Parameters<typeof twoFactorApp>[0] = {}, adapter?: Adapter) => runtimeFor(twoFactorApp(extra, adapter).config).config

describe("a user id that is no non-empty string", () => {
  for (const userId of ["", 42, undefined]) {
    it(`is refused by every call (${JSON.stringify(userId)}), before the store is asked`, async () => {
      const adapter = MemoryAdapter()
      const asked: unknown[] = []
      const getTwoFactor = adapter.getTwoFactor!
      adapter.getTwoFactor = (id) => (asked.push(id), getTwoFactor(id))
      const config = resolved({}, adapter)
      const id = userId as string
      await expect(twoFactorStatus(config, id)).rejects.toThrow(/userId must be a non-empty string/)
      await expect(startEnrollment(config, { userId: id, account: "ada@example.com" })).rejects.toThrow(/userId must be a non-empty string/)
      await expect(confirmEnrollment(config, { userId: id, code: "123456" })).rejects.toThrow(/userId must be a non-empty string/)
      await expect(disable(config, { userId: id, code: "123456" })).rejects.toThrow(/userId must be a non-empty string/)
      expect(asked).toEqual([])
    })
  }
})

describe("the issuer an authenticator app shows", () => {
  it("is the site's host name when none is configured", async () => {
    const config = resolved()
    const enrollment = await startEnrollment({ ...config, siteUrl: new URL("https://app.example.com/auth") }, { userId: ADA_ID, account: "ada@example.com" })
    expect(enrollment.uri).toContain("otpauth://totp/app.example.com:ada%40example.com")
  })

  it("is Portcullis without a configured issuer or site URL", async () => {
    const config = resolved()
    const enrollment = await startEnrollment({ ...config, siteUrl: undefined }, { userId: ADA_ID, account: "ada@example.com" })
    expect(enrollment.uri).toContain("otpauth://totp/Portcullis:ada%40example.com")
  })

  it("is the configured one before the host name", async () => {
    const config = resolved({ twoFactor: { issuer: "Example" } })
    const enrollment = await startEnrollment({ ...config, siteUrl: new URL("https://app.example.com") }, { userId: ADA_ID, account: "ada@example.com" })
    expect(enrollment.uri).toContain("otpauth://totp/Example:ada%40example.com")
  })
})

describe("confirming a record that is on already", () => {
  it("is refused, even with a current code: no new backup codes are minted that way", async () => {
    const { config, adapter } = twoFactorApp()
    const { secret } = await enroll(config)
    const before = (await adapter.getTwoFactor!(ADA_ID))!.backupCodes
    const request = await steppedUp(config, ADA_ID)
    await expect(confirmTwoFactor({ ...request, code: totpCode(secret) }, config)).rejects.toMatchObject({ type: "TwoFactorStateError" })
    expect((await adapter.getTwoFactor!(ADA_ID))!.backupCodes).toEqual(before)
  })
})

describe("a confirming code that is no string", () => {
  it("is refused as a wrong code, and the enrollment stays pending", async () => {
    const config = resolved()
    await startEnrollment(config, { userId: ADA_ID, account: "ada@example.com" })
    await expect(confirmEnrollment(config, { userId: ADA_ID, code: 123456 as unknown as string })).rejects.toMatchObject({ type: "TwoFactorCodeInvalid" })
    expect(await twoFactorStatus(config, ADA_ID)).toMatchObject({ enabled: false, pending: true })
  })
})

describe("2FA turned off while new backup codes are being made", () => {
  it("refuses the regeneration instead of writing codes for a record that is gone", async () => {
    const adapter = MemoryAdapter()
    // Once armed, the re-authenticating code passes and at that moment another request disables 2FA.
    let armed = false
    const useStep = adapter.useTwoFactorStep!
    adapter.useTwoFactorStep = async (userId, step) => {
      const used = await useStep(userId, step)
      if (armed) await adapter.deleteTwoFactor!(userId)
      return used
    }
    const { config } = twoFactorApp({}, adapter)
    const { secret } = await enroll(config)
    armed = true
    const request = await steppedUp(config, ADA_ID)
    await expect(regenerateTwoFactorBackupCodes({ ...request, code: totpCode(secret) }, config)).rejects.toMatchObject({ type: "TwoFactorStateError" })
    expect(await adapter.getTwoFactor!(ADA_ID)).toBeNull()
  })
})

describe("what each refusal tells the app's developer", () => {
  it("names the state or the reason, beside the error's type", async () => {
    const none = runtimeFor(twoFactorApp({ twoFactor: undefined }).config).config
    await expect(startEnrollment(none, { userId: ADA_ID, account: "ada" })).rejects.toThrow("Two-factor enrollment needs the twoFactor option and an adapter with the two-factor capability")

    const config = resolved()
    await expect(confirmEnrollment(config, { userId: ADA_ID, code: "123456" })).rejects.toThrow("No enrollment was started")
    await expect(disable(config, { userId: ADA_ID, code: "123456" })).rejects.toThrow("Two-factor authentication is off")
    const { secret } = await startEnrollment(config, { userId: ADA_ID, account: "ada" })
    await expect(confirmEnrollment(config, { userId: ADA_ID, code: "aaaaaa" })).rejects.toThrow("The code does not match the enrolled secret")
    const code = totpCode(secret)
    await confirmEnrollment(config, { userId: ADA_ID, code })
    await expect(startEnrollment(config, { userId: ADA_ID, account: "ada" })).rejects.toThrow("Two-factor authentication is already on; disable it first to enroll again")
    await expect(confirmEnrollment(config, { userId: ADA_ID, code })).rejects.toThrow("Two-factor authentication is already on")
    await expect(disable(config, { userId: ADA_ID, code: "aaaaa-aaaaa" })).rejects.toThrow("The code was refused (wrong)")
  })

  it("says a pending enrollment sealed under another secret must start again", async () => {
    const adapter = MemoryAdapter()
    await startEnrollment(resolved({}, adapter), { userId: ADA_ID, account: "ada" })
    const rotated = resolved({ secret: "another-secret-with-at-least-32-characters!" }, adapter)
    await expect(confirmEnrollment(rotated, { userId: ADA_ID, code: "123456" })).rejects.toThrow("The pending enrollment cannot be read (the secret changed); start again")
  })

  it("says a code lost the race when two confirmations use it at once", async () => {
    const adapter = MemoryAdapter()
    const config = resolved({}, adapter)
    const { secret } = await startEnrollment(config, { userId: ADA_ID, account: "ada" })
    const code = totpCode(secret)
    const results = await Promise.allSettled([confirmEnrollment(config, { userId: ADA_ID, code }), confirmEnrollment(config, { userId: ADA_ID, code })])
    expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: { message: "The code was used already" } })
  })
})
