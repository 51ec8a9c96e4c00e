import { describe, expect, it } from "vitest"
import { InvalidConfig } from "@portcullis/core/errors"
import type { EmailConfig } from "@portcullis/core/providers/email"

/**
 * How long a magic link lives (`tokenExpiry` in `lib/email/token.ts`). The module is imported
 * inside each test, never at the top of this file: the default lifetime is a module constant,
 * and a mutation run counts a constant as covered only by the tests running when its module
 * loads.
 */
const load = async () => (await import("../../src/lib/email/token.js")).tokenExpiry

function provider(extra: Partial<EmailConfig> = {}): EmailConfig {
  return { id: "email", type: "email", name: "Email", sendVerificationRequest: async () => {}, ...extra } as EmailConfig
}

describe("a link's lifetime", () => {
  const now = Date.UTC(2026, 10, 28, 12, 0, 0)

  it("is 24 hours when the provider sets no maxAge, as in Auth.js", async () => {
    const tokenExpiry = await load()
    expect(tokenExpiry(provider(), now).getTime()).toBe(now + 24 * 60 * 60 * 1000)
  })

  it("is the provider's maxAge in seconds", async () => {
    const tokenExpiry = await load()
    expect(tokenExpiry(provider({ maxAge: 600 }), now).getTime()).toBe(now + 600_000)
  })

  it.each([0, -60, Number.NaN, Number.POSITIVE_INFINITY, "600"])("is a configuration error for maxAge %j, naming the provider (never a link that never expires or is born expired)", async (maxAge) => {
    const tokenExpiry = await load()
    expect(() => tokenExpiry(provider({ maxAge: maxAge as number }), now)).toThrow(InvalidConfig)
    expect(() => tokenExpiry(provider({ maxAge: maxAge as number }), now)).toThrow(/maxAge of provider "email"/)
  })
})

