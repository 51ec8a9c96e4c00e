/**
 * Whether a user has two-factor authentication on, as the password-only step-up proofs ask
 * (issue 36): only an enabled record counts — a pending enrollment (which a stolen session
 * may have started) leaves the password a valid step-up — and without the twoFactor option
 * nobody has it. security/attacks-2026-11-28/step-up-two-factor.test.ts has the attack.
 */
import { describe, expect, it } from "vitest"
import { runtimeFor } from "@portcullis/core/integration"
import { twoFactorOn } from "../../src/lib/two-factor/enabled.js"
import { startEnrollment } from "../../src/lib/two-factor/enrollment.js"
import { ADA_ID, enroll, twoFactorApp } from "./support.js"

describe("twoFactorOn", () => {
  it("is true for an enabled record", async () => {
    const { config } = twoFactorApp()
    await enroll(config)
    expect(await twoFactorOn(runtimeFor(config).config, ADA_ID)).toBe(true)
  })

  it("is false for a pending enrollment, and for no record", async () => {
    const resolved = runtimeFor(twoFactorApp().config).config
    expect(await twoFactorOn(resolved, ADA_ID)).toBe(false)
    await startEnrollment(resolved, { userId: ADA_ID, account: "ada@example.com" })
    expect(await twoFactorOn(resolved, ADA_ID)).toBe(false)
  })

  it("is false without the twoFactor option", async () => {
    expect(await twoFactorOn({ twoFactor: undefined }, ADA_ID)).toBe(false)
  })
})
