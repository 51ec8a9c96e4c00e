import { describe, expect, it } from "vitest"
import { InvalidConfig } from "@portcullis/core/errors"
import type { EmailConfig } from "@portcullis/core/providers/email"
import { generateToken, MAX_TOKEN_LENGTH, tokenExpiry } from "../../src/lib/email/token.js"

/**
 * The magic-link token's own rules (`lib/email/token.ts`): what a custom generator may
 * return, and how long a link lives. The flows through `Auth()` are in flow.test.ts; these
 * are the checks that stand between a misconfigured provider and a weak or endless link.
 */
function provider(extra: Partial<EmailConfig> = {}): EmailConfig {
  return { id: "email", type: "email", name: "Email", sendVerificationRequest: async () => {}, ...extra } as EmailConfig
}

describe("a link's lifetime", () => {
  const now = Date.UTC(2026, 10, 28, 12, 0, 0)

  it("is 24 hours when the provider sets no maxAge, as in Auth.js", () => {
    expect(tokenExpiry(provider(), now).getTime()).toBe(now + 24 * 60 * 60 * 1000)
  })

  it("is the provider's maxAge in seconds", () => {
    expect(tokenExpiry(provider({ maxAge: 600 }), now).getTime()).toBe(now + 600_000)
  })

  it.each([0, -60, Number.NaN, Number.POSITIVE_INFINITY, "600"])("is a configuration error for maxAge %j, naming the provider (never a link that never expires or is born expired)", (maxAge) => {
    expect(() => tokenExpiry(provider({ maxAge: maxAge as number }), now)).toThrow(InvalidConfig)
    expect(() => tokenExpiry(provider({ maxAge: maxAge as number }), now)).toThrow(/maxAge of provider "email"/)
  })
})

describe("a custom generateVerificationToken", () => {
  it("is used as it returns, up to the longest token a link may carry back", async () => {
    const longest = "t".repeat(MAX_TOKEN_LENGTH)
    expect(await generateToken(provider({ generateVerificationToken: () => longest }))).toBe(longest)
  })

  it.each([
    ["an empty string", ""],
    ["a number", 42],
    ["undefined", undefined],
    ["a token longer than a link may carry back", "t".repeat(MAX_TOKEN_LENGTH + 1)],
  ])("returning %s is a configuration error naming the provider (no link is made with it)", async (_label, token) => {
    const generating = generateToken(provider({ generateVerificationToken: (() => token) as () => string }))
    await expect(generating).rejects.toThrow(InvalidConfig)
    await expect(generateToken(provider({ generateVerificationToken: (() => token) as () => string }))).rejects.toThrow(/generateVerificationToken\(\) of provider "email"/)
  })

  it("is not needed: without it the token is 32 random bytes as hex, different each time", async () => {
    const [a, b] = [await generateToken(provider()), await generateToken(provider())]
    expect(a).toMatch(/^[0-9a-f]{64}$/)
    expect(a).not.toBe(b)
  })
})
