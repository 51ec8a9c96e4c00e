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

describe("resetTwoFactor of NextAuth's result", () => {
  it("removes the user's second factor and fires twoFactorReset with the reason", async () => {
    const recorded = recordEvents()
    const config = credentialsConfig({ basePath: "/api/auth", adapter: MemoryAdapter(), session: { strategy: "database" }, twoFactor: {}, events: recorded.events })
    const { resetTwoFactor } = NextAuth(config)
    const { secret } = await startTwoFactor({ userId: "user-ada", account: "ada@example.com" }, config)
    await confirmTwoFactor({ userId: "user-ada", code: totpCode(secret) }, config)

    expect(await resetTwoFactor({ userId: "user-ada", reason: "lost phone, identity checked", actor: "admin-1" })).toEqual({ wasEnabled: true, sessionsRevoked: 0 })
    expect((await getTwoFactorStatus({ userId: "user-ada" }, config)).enabled).toBe(false)
    expect(recorded.resets).toEqual([expect.objectContaining({ userId: "user-ada", reason: "lost phone, identity checked", actor: "admin-1" })])
    await expect(resetTwoFactor({ userId: "user-ada", reason: "again" })).rejects.toMatchObject({ type: "TwoFactorStateError" })
  })
})
