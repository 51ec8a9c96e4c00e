/**
 * What `resetTwoFactor` takes (issue 36): the reason is the audit record, so it is required,
 * trimmed and bounded to the character; the actor is optional and bounded; a bad input
 * changes nothing. notifications/recovery.test.ts has the reset itself.
 */
import { describe, expect, it } from "vitest"
import type { AuditEvent } from "@portcullis/core"
import { resetTwoFactor, type TwoFactorResetInput } from "@portcullis/core/integration"
import { recordEvents } from "../notifications/support.js"
import { ADA_ID, enroll, twoFactorApp } from "./support.js"

async function enrolled() {
  const recorded = recordEvents()
  const audited: AuditEvent[] = []
  const app = twoFactorApp({ events: { ...recorded.events, audit: (event) => void audited.push(event) } })
  await enroll(app.config)
  return { ...app, recorded, audited }
}

/** Whether `input` is refused with a TypeError matching `message`, leaving 2FA on and no event. */
async function expectRefused(input: unknown, message: RegExp) {
  const { config, adapter, recorded } = await enrolled()
  await expect(resetTwoFactor(input as TwoFactorResetInput, config)).rejects.toThrow(message)
  await expect(resetTwoFactor(input as TwoFactorResetInput, config)).rejects.toBeInstanceOf(TypeError)
  expect((await adapter.getTwoFactor!(ADA_ID))?.enabled).toBe(true)
  expect(recorded.resets).toEqual([])
}

describe("the reason", () => {
  it("is recorded trimmed", async () => {
    const { config, recorded } = await enrolled()
    await resetTwoFactor({ userId: ADA_ID, reason: "  ticket 4711\n" }, config)
    expect(recorded.resets[0]).toMatchObject({ reason: "ticket 4711" })
  })

  it("may be 500 characters long, not 501", async () => {
    const { config } = await enrolled()
    expect(await resetTwoFactor({ userId: ADA_ID, reason: "r".repeat(500) }, config)).toMatchObject({ wasEnabled: true })
    await expectRefused({ userId: ADA_ID, reason: "r".repeat(501) }, /reason/)
  })

  it("must be a string", async () => {
    await expectRefused({ userId: ADA_ID, reason: 4711 }, /reason/)
  })
})

describe("the audit record", () => {
  it("names the user, the actor and the trimmed reason, and what the reset found and did", async () => {
    const { config, audited } = await enrolled()
    await resetTwoFactor({ userId: ADA_ID, reason: " lost phone, ticket 4711 ", actor: "support-agent-7" }, config)
    expect(audited.filter((event) => event.type === "twoFactorReset")).toEqual([
      expect.objectContaining({ type: "twoFactorReset", outcome: "success", userId: ADA_ID, actor: "support-agent-7", reason: "lost phone, ticket 4711", details: { wasEnabled: true, sessionsRevoked: 0 } }),
    ])
  })
})

describe("the actor", () => {
  it("is optional, and recorded as given", async () => {
    const { config, recorded } = await enrolled()
    await resetTwoFactor({ userId: ADA_ID, reason: "ticket 4711" }, config)
    expect(recorded.resets[0]).toMatchObject({ actor: undefined })
  })

  it("may be 200 characters long, not 201", async () => {
    const { config, recorded } = await enrolled()
    await resetTwoFactor({ userId: ADA_ID, reason: "ticket 4711", actor: "a".repeat(200) }, config)
    expect(recorded.resets[0]).toMatchObject({ actor: "a".repeat(200) })
    await expectRefused({ userId: ADA_ID, reason: "ticket 4711", actor: "a".repeat(201) }, /actor/)
  })

  it("must be a string when given", async () => {
    await expectRefused({ userId: ADA_ID, reason: "ticket 4711", actor: 7 }, /actor/)
  })
})

describe("the user id", () => {
  it("must be a string", async () => {
    await expectRefused({ userId: 42, reason: "ticket 4711" }, /userId/)
  })

  it("is asked for when no input is given at all", async () => {
    await expectRefused(undefined, /userId/)
  })
})

describe("what each refusal tells the app's developer", () => {
  it("names the missing option, or that the user has nothing to reset", async () => {
    const without = twoFactorApp({ twoFactor: undefined })
    await expect(resetTwoFactor({ userId: ADA_ID, reason: "ticket 4711" }, without.config)).rejects.toThrow(
      "Resetting two-factor authentication needs the twoFactor option and an adapter with the two-factor capability",
    )
    const { config } = twoFactorApp()
    await expect(resetTwoFactor({ userId: ADA_ID, reason: "ticket 4711" }, config)).rejects.toThrow("This user has no two-factor authentication to reset")
  })
})
