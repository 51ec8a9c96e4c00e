/**
 * Issue 28, recovery: `resetTwoFactor` on `NextAuth()`'s result runs on the app's runtime
 * (the same configuration the route handlers serve), for an admin Server Action.
 */
import { describe, expect, it } from "vitest"
import NextAuth from "@portcullis/next"
import { confirmTwoFactor, getTwoFactorStatus, startTwoFactor } from "@portcullis/core/integration"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { credentialsConfig } from "../../core/test/helpers.js"
import { recordEvents } from "../../core/test/notifications/support.js"
import { steppedUp } from "../../core/test/step-up/support.js"

describe("resetTwoFactor of NextAuth's result", () => {
  it("removes the user's second factor and fires twoFactorReset with the reason", async () => {
    const recorded = recordEvents()
    const adapter = MemoryAdapter()
    // A database session needs its user stored: the settings page's session is a real one.
    await adapter.createUser!({ id: "user-ada", email: "ada@example.com", emailVerified: new Date(), name: "Ada", image: null })
    const config = credentialsConfig({ basePath: "/api/auth", adapter, session: { strategy: "database" }, twoFactor: {}, events: recorded.events })
    const { resetTwoFactor } = NextAuth(config)
    const settings = await steppedUp(config, "user-ada")
    const { secret } = await startTwoFactor({ ...settings, account: "ada@example.com" }, config)
    await confirmTwoFactor({ ...settings, code: totpCode(secret) }, config)

    expect(await resetTwoFactor({ userId: "user-ada", reason: "lost phone, identity checked", actor: "admin-1" })).toEqual({ wasEnabled: true, sessionsRevoked: 1 }) // the settings page's session that enrolled
    expect((await getTwoFactorStatus(await steppedUp(config, "user-ada"), config)).enabled).toBe(false)
    expect(recorded.resets).toEqual([expect.objectContaining({ userId: "user-ada", reason: "lost phone, identity checked", actor: "admin-1" })])
    await expect(resetTwoFactor({ userId: "user-ada", reason: "again" })).rejects.toMatchObject({ type: "TwoFactorStateError" })
  })
})
