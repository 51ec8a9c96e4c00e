import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { InvalidConfig } from "@portcullis/core/errors"
import type { EmailConfig } from "@portcullis/core/providers/email"
import { generateToken, hashToken, MAX_TOKEN_LENGTH } from "../../src/lib/email/token.js"

/**
 * The magic-link token's own rules (`lib/email/token.ts`): what a custom generator may
 * return, and what the store keeps (how long a link lives: token-lifetime.test.ts). The
 * flows through `Auth()` are in flow.test.ts; these are the checks that stand between a
 * misconfigured provider and a weak link.
 */
function provider(extra: Partial<EmailConfig> = {}): EmailConfig {
  return { id: "email", type: "email", name: "Email", sendVerificationRequest: async () => {}, ...extra } as EmailConfig
}

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

describe("what the store keeps for a link", () => {
  it("is Auth.js's sha256(token + secret), with a rotated secret list joined by commas as Auth.js joins it (its links in flight still open)", async () => {
    const hex = (text: string) => createHash("sha256").update(text).digest("hex")
    expect(await hashToken("t0ken", provider(), ["new-secret"])).toBe(hex("t0kennew-secret"))
    expect(await hashToken("t0ken", provider(), ["new-secret", "old-secret"])).toBe(hex("t0kennew-secret,old-secret"))
    expect(await hashToken("t0ken", provider({ secret: "the provider's own" }), ["new-secret"])).toBe(hex("t0kenthe provider's own"))
  })
})
