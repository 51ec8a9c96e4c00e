/**
 * Issue 28, recovery: a user who lost their authenticator and their backup codes is helped
 * by support through `resetTwoFactor` — the two-factor record is removed, every session of
 * the user ends, the `twoFactorReset` event records who did it and why, and the user is
 * mailed a notice. Then the first factor alone signs in, and the user can enrol again.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { getTwoFactorStatus, resetTwoFactor } from "@portcullis/core/integration"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { ADA_ID, enroll, firstFactor, secondFactor, twoFactorApp } from "../two-factor/support.js"
import { captureMailer, expectCleanNotice, recordEvents } from "./support.js"
import { steppedUp } from "../step-up/support.js"

const ADA = "ada@example.com"
const reason = "identity checked by video call, ticket 4711"

async function setup(extra: Partial<AuthConfig> = {}) {
  const adapter = MemoryAdapter()
  await adapter.createUser!({ id: ADA_ID, email: ADA, emailVerified: new Date(), name: "Ada", image: null })
  const capture = captureMailer()
  const recorded = recordEvents()
  const app = twoFactorApp(
    {
      trustedOrigins: ["https://app.example.com"],
      session: { strategy: "jwt", registry: new MemorySessionRegistry() },
      notifications: { mailer: capture.mailer },
      events: recorded.events,
      ...extra,
    },
    adapter,
  )
  return { ...app, capture, recorded }
}

describe("resetTwoFactor, for a user who lost the second factor", () => {
  it("removes the record, ends every session, records the reason and actor, mails the user; the first factor then signs in alone", async () => {
    const { config, adapter, browser, capture, recorded } = await setup()
    const { secret, backupCodes } = await enroll(config)
    // Signed in on two devices, each through the second step.
    const laptop = browser()
    const phone = browser()
    expect((await firstFactor(laptop)).headers.get("location")).toBe("http://localhost:3000/auth/two-factor")
    expect((await secondFactor(laptop, totpCode(secret))).status).toBe(302)
    await firstFactor(phone)
    expect((await secondFactor(phone, backupCodes[0]!)).status).toBe(302)
    expect((await laptop.session())?.user?.email).toBe(ADA)
    expect((await phone.session())?.user?.email).toBe(ADA)

    const result = await resetTwoFactor({ userId: ADA_ID, reason, actor: "support-agent-7" }, config)

    // The laptop, the phone and the settings page's session that enrolled (enroll() steps up in one).
    expect(result).toEqual({ wasEnabled: true, sessionsRevoked: 3 })
    expect(await adapter.getTwoFactor!(ADA_ID)).toBeNull()
    expect(await getTwoFactorStatus(await steppedUp(config, ADA_ID), config)).toEqual({ enabled: false, pending: false, backupCodesLeft: 0 })
    expect(await laptop.session()).toBeNull()
    expect(await phone.session()).toBeNull()
    expect(recorded.resets).toEqual([{ userId: ADA_ID, reason, actor: "support-agent-7", wasEnabled: true, sessionsRevoked: 3, time: expect.any(Date) }])
    const notice = capture.noticesTo(ADA).at(-1)
    expectCleanNotice(notice, "twoFactorReset", [secret, ...backupCodes, reason])
    expect(notice!.rendered.subject).toBe("Two-factor authentication was reset for app.example.com")
    expect(recorded.notices.at(-1)).toMatchObject({ kind: "twoFactorReset", userId: ADA_ID, emailed: true })

    // The first factor alone signs in now, and the user may enrol a new authenticator.
    const again = browser()
    expect((await firstFactor(again)).headers.get("location")).toBe("http://localhost:3000")
    expect((await again.session())?.user?.email).toBe(ADA)
    await enroll(config)
    expect((await getTwoFactorStatus(await steppedUp(config, ADA_ID), config)).enabled).toBe(true)
  })

  it("removes a pending enrollment too (one a stolen session may have started)", async () => {
    const { config, adapter } = await setup()
    const { startTwoFactor } = await import("@portcullis/core/integration")
    await startTwoFactor({ ...(await steppedUp(config, ADA_ID)), account: ADA }, config)
    // The one session is the stepped-up one that started the enrollment.
    expect(await resetTwoFactor({ userId: ADA_ID, reason }, config)).toEqual({ wasEnabled: false, sessionsRevoked: 1 })
    expect(await adapter.getTwoFactor!(ADA_ID)).toBeNull()
  })

  it("is refused for a user without two-factor authentication, and changes nothing", async () => {
    const { config, recorded, capture } = await setup()
    await expect(resetTwoFactor({ userId: ADA_ID, reason }, config)).rejects.toMatchObject({ type: "TwoFactorStateError" })
    expect(recorded.resets).toEqual([])
    expect(capture.sent).toEqual([])
  })

  it("needs a reason (the audit record) and a user id", async () => {
    const { config, adapter } = await setup()
    await enroll(config)
    await expect(resetTwoFactor({ userId: ADA_ID, reason: "  " }, config)).rejects.toThrow(/reason/)
    await expect(resetTwoFactor({ userId: ADA_ID } as never, config)).rejects.toThrow(/reason/)
    await expect(resetTwoFactor({ userId: "", reason }, config)).rejects.toThrow(/userId/)
    expect((await adapter.getTwoFactor!(ADA_ID))?.enabled).toBe(true)
  })

  it("is a configuration error without the twoFactor option", async () => {
    const { config } = await setup({ twoFactor: undefined })
    await expect(resetTwoFactor({ userId: ADA_ID, reason }, config)).rejects.toMatchObject({ type: "InvalidConfig" })
  })

  it("ends database sessions too", async () => {
    const adapter = MemoryAdapter()
    await adapter.createUser!({ id: ADA_ID, email: ADA, emailVerified: new Date(), name: "Ada", image: null })
    const { config, browser } = twoFactorApp({ session: { strategy: "database" } }, adapter)
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    await secondFactor(b, totpCode(secret))
    expect((await b.session())?.user?.email).toBe(ADA)
    // The browser's session and the settings page's session that enrolled.
    expect(await resetTwoFactor({ userId: ADA_ID, reason }, config)).toEqual({ wasEnabled: true, sessionsRevoked: 2 })
    expect(await b.session()).toBeNull()
  })
})
