/**
 * Issue 28, security notifications: turning two-factor authentication on or off and
 * regenerating the backup codes each mail the account one notice and fire the event. These
 * are server functions without a request: the notice speaks the configuration's default
 * language and links to the configured origin, and without a trusted origin it is not
 * mailed (a warning) while the event still fires.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { confirmTwoFactor, disableTwoFactor, regenerateTwoFactorBackupCodes, startTwoFactor } from "@portcullis/core/integration"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { captureLogger } from "../helpers.js"
import { ADA_ID, enroll, twoFactorApp } from "../two-factor/support.js"
import { captureMailer, expectCleanNotice, recordEvents } from "./support.js"
import { steppedUp } from "../step-up/support.js"

const ADA = "ada@example.com"

async function seedAda(adapter: Adapter) {
  await adapter.createUser!({ id: ADA_ID, email: ADA, emailVerified: new Date(), name: "Ada", image: null })
}

async function setup(extra: Partial<AuthConfig> = {}) {
  const adapter = MemoryAdapter()
  await seedAda(adapter)
  const capture = captureMailer()
  const recorded = recordEvents()
  const log = captureLogger()
  const { config } = twoFactorApp(
    { trustedOrigins: ["https://app.example.com"], notifications: { mailer: capture.mailer }, events: recorded.events, logger: log.logger, ...extra },
    adapter,
  )
  return { adapter, capture, recorded, log, config }
}

describe("turning two-factor authentication on", () => {
  it("mails one twoFactorEnabled notice linking to the configured origin's sign-in page, in the default language, and fires the event", async () => {
    const { capture, recorded, config } = await setup()
    const { secret, backupCodes } = await enroll(config)

    const notices = capture.noticesTo(ADA)
    expect(notices).toHaveLength(1)
    expectCleanNotice(notices[0], "twoFactorEnabled", [secret, ...backupCodes])
    expect(notices[0]!.locale).toBe("en")
    expect(notices[0]!.url).toBe("https://app.example.com/auth/signin")
    expect(notices[0]!.rendered.subject).toBe("Two-factor authentication is on for app.example.com")
    // A server function has no browser to describe.
    expect(notices[0]!.rendered.text).not.toContain("Device:")
    expect(recorded.notices).toEqual([{ kind: "twoFactorEnabled", userId: ADA_ID, email: ADA, time: expect.any(Date), emailed: true }])
  })

  it("speaks the configuration's default language", async () => {
    const { capture, config } = await setup({ i18n: { defaultLocale: "fr" } })
    await enroll(config)
    const [notice] = capture.noticesTo(ADA)
    expect(notice!.locale).toBe("fr")
    expect(notice!.rendered.subject).toBe("La double authentification est activée pour app.example.com")
  })

  it("sends nothing for a wrong confirmation code (nothing changed)", async () => {
    const { capture, recorded, config } = await setup()
    const { secret } = await startTwoFactor({ ...(await steppedUp(config, ADA_ID)), account: ADA }, config)
    await expect(confirmTwoFactor({ ...(await steppedUp(config, ADA_ID)), code: totpCode(secret, Date.now() + 10 * 60_000) }, config)).rejects.toMatchObject({ type: "TwoFactorCodeInvalid" })
    expect(capture.noticesTo(ADA)).toEqual([])
    expect(recorded.notices).toEqual([])
  })
})

describe("turning two-factor authentication off", () => {
  it("mails one twoFactorDisabled notice and fires the event", async () => {
    const { capture, recorded, config } = await setup()
    const { backupCodes } = await enroll(config)
    await disableTwoFactor({ ...(await steppedUp(config, ADA_ID)), code: backupCodes[0]! }, config)
    expect(capture.noticesTo(ADA).map((m) => m.kind)).toEqual(["twoFactorEnabled", "twoFactorDisabled"])
    expectCleanNotice(capture.noticesTo(ADA)[1], "twoFactorDisabled", backupCodes)
    expect(recorded.notices.map((n) => n.kind)).toEqual(["twoFactorEnabled", "twoFactorDisabled"])
  })
})

describe("regenerating the backup codes", () => {
  it("mails one backupCodesRegenerated notice without any code, old or new, and fires the event", async () => {
    const { capture, recorded, config } = await setup()
    const { backupCodes } = await enroll(config)
    const { backupCodes: fresh } = await regenerateTwoFactorBackupCodes({ ...(await steppedUp(config, ADA_ID)), code: backupCodes[0]! }, config)
    const notices = capture.noticesTo(ADA)
    expect(notices.map((m) => m.kind)).toEqual(["twoFactorEnabled", "backupCodesRegenerated"])
    expectCleanNotice(notices[1], "backupCodesRegenerated", [...backupCodes, ...fresh])
    expect(recorded.notices.at(-1)).toMatchObject({ kind: "backupCodesRegenerated", userId: ADA_ID, emailed: true })
  })
})

describe("without a trusted origin to link to", () => {
  it("mails nothing, logs a bounded warning, and still fires the event (emailed: false)", async () => {
    // trustHost alone: the origin of a server function's notice would be anyone's guess.
    const { capture, recorded, log, config } = await setup({ trustedOrigins: [] })
    await enroll(config)
    expect(capture.noticesTo(ADA)).toEqual([])
    expect(recorded.notices).toEqual([expect.objectContaining({ kind: "twoFactorEnabled", emailed: false })])
    expect(log.lines.filter((l) => l.startsWith("security-notice-unsent"))).toHaveLength(1)
  })
})

describe("a user without an address", () => {
  it("gets no mail; the event fires with email: null", async () => {
    const adapter = MemoryAdapter()
    await adapter.createUser!({ id: ADA_ID, email: null as unknown as string, emailVerified: null, name: "Ada", image: null })
    const capture = captureMailer()
    const recorded = recordEvents()
    const { config } = twoFactorApp({ trustedOrigins: ["https://app.example.com"], notifications: { mailer: capture.mailer }, events: recorded.events }, adapter)
    await enroll(config)
    expect(capture.sent).toEqual([])
    expect(recorded.notices).toEqual([expect.objectContaining({ kind: "twoFactorEnabled", email: null, emailed: false })])
  })
})
