/**
 * Issue 28, recovery through a real Express server: support resets the second factor of a
 * user who lost it (`resetTwoFactor(config, input)`) — the user's sessions end, the event
 * records the reason and the actor, the user is mailed, and the password alone signs in.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import express from "express"
import { resetTwoFactor, type ExpressAuthConfig } from "@portcullis/express"
import { confirmTwoFactor, startTwoFactor } from "@portcullis/core/integration"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { Browser, credentialsConfig } from "../../core/test/helpers.js"
import { captureMailer, recordEvents } from "../../core/test/notifications/support.js"
import { expressServer } from "./support.js"
import { steppedUp } from "../../core/test/step-up/support.js"
import { previousStepCode } from "../../core/test/two-factor/previous-step.js"

describe("resetTwoFactor on Express", () => {
  const adapter = MemoryAdapter()
  const capture = captureMailer()
  const recorded = recordEvents()
  const config: ExpressAuthConfig = credentialsConfig({
    adapter,
    session: { strategy: "jwt", registry: new MemorySessionRegistry() },
    twoFactor: {},
    trustedOrigins: ["https://app.example.com"],
    notifications: { mailer: capture.mailer },
    events: recorded.events,
  })
  let server: Awaited<ReturnType<typeof expressServer>>
  beforeAll(async () => {
    await adapter.createUser!({ id: "user-ada", email: "ada@example.com", emailVerified: new Date(), name: "Ada", image: null })
    server = await expressServer(config, (app) => {
      app.use(express.json())
      // An admin route: in a real app behind the app's own check that the caller is support staff.
      app.post("/admin/reset-2fa", async (req, res) => {
        try {
          res.json(await resetTwoFactor(config, { userId: String(req.body.userId), reason: String(req.body.reason), actor: "support-agent-7" }))
        } catch (error) {
          res.status(409).json({ error: (error as { type?: string }).type })
        }
      })
    })
  })
  afterAll(() => server.close())

  it("ends the user's sessions, records the reason, mails the user; the password alone signs in again", async () => {
    // Enrolled earlier (core's functions: the set-up needs no signed-in request).
    const settings = await steppedUp(config, "user-ada")
    const enrollment = await startTwoFactor({ ...settings, account: "ada@example.com" }, config)
    await confirmTwoFactor({ ...settings, code: await previousStepCode(enrollment.secret) }, config)

    const ada = new Browser(server.transport, server.origin)
    expect((await ada.signIn()).headers.get("location")).toBe(`${server.origin}/auth/two-factor`)
    const csrfToken = await ada.csrfToken()
    expect((await ada.request("/auth/two-factor", { form: { code: totpCode(enrollment.secret), csrfToken } })).status).toBe(302)
    expect((await ada.session())?.user?.email).toBe("ada@example.com")

    const support = new Browser(server.transport, server.origin)
    const reset = await support.request("/admin/reset-2fa", { json: { userId: "user-ada", reason: "identity checked by phone, ticket 4711" } })
    expect(await reset.json()).toEqual({ wasEnabled: true, sessionsRevoked: 2 }) // the browser's and the settings page's (enrolled in one stepped-up session)
    expect(await ada.session()).toBeNull()
    expect(recorded.resets).toEqual([expect.objectContaining({ userId: "user-ada", reason: "identity checked by phone, ticket 4711", actor: "support-agent-7" })])
    expect(capture.noticesTo("ada@example.com").map((m) => m.kind)).toEqual(["twoFactorEnabled", "twoFactorReset"])

    expect((await ada.signIn()).headers.get("location")).toBe(server.origin)
    expect((await ada.session())?.user?.email).toBe("ada@example.com")

    // Nothing left to reset.
    const again = await support.request("/admin/reset-2fa", { json: { userId: "user-ada", reason: "again" } })
    expect(again.status).toBe(409)
    expect(await again.json()).toEqual({ error: "TwoFactorStateError" })
  })
})
