import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import type { Adapter, VerificationToken } from "@portcullis/core/adapters"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { captureLogger, SECRET } from "../helpers.js"
import { LIGHT, passwordApp, postStep, seedUser, STRONG } from "./support.js"

/**
 * Why a password link was refused (`consumeToken`/`readLink` in
 * `lib/password-flows/tokens.ts`). The client is told only `Verification` — which of the
 * reasons it was is none of its business — so the log is where an operator reads it: each
 * refusal logs its own sentence.
 */

/** A reset link's row in the form used before November 27 (still accepted): sha256 of purpose, token and secret. */
const sha256Form = (token: string) => createHash("sha256").update(`portcullis-password-reset:${token}:${SECRET}`).digest("hex")

/** Verification tokens returned as stored, expired or not; identifiers compared without case when asked (MySQL's default collation). */
function plainTokens(adapter: Adapter, { caseInsensitive = false } = {}): Adapter {
  const rows = new Map<string, VerificationToken>()
  const key = (identifier: string, token: string) => `${caseInsensitive ? identifier.toLowerCase() : identifier}\n${token}`
  return {
    ...adapter,
    async createVerificationToken(row) {
      rows.set(key(row.identifier, row.token), { ...row })
      return row
    },
    async useVerificationToken({ identifier, token }) {
      const found = rows.get(key(identifier, token)) ?? null
      rows.delete(key(identifier, token))
      return found
    },
  }
}

function app(adapter: Adapter) {
  const capture = captureLogger()
  const built = passwordApp(adapter, { provider: { hashing: LIGHT }, extra: { logger: capture.logger } })
  return { ...built, log: () => capture.lines.join("\n") }
}

const inAnHour = () => new Date(Date.now() + 3_600_000)
const reset = (a: ReturnType<typeof app>, fields: Record<string, string>) => postStep(a.browser(), "reset", { password: `${STRONG} renewed`, ...fields })

describe("a reset link refused", () => {
  it("without its token: the log says the link is missing its token or address", async () => {
    const a = app(MemoryAdapter())
    expect((await reset(a, { email: "grace@example.com" })).error).toBe("Verification")
    expect(a.log()).toContain("The link is missing its token or address")
  })

  it("for an address with no account: the log says the account no longer exists", async () => {
    const a = app(MemoryAdapter())
    expect((await reset(a, { token: "5a".repeat(32), email: "nobody@example.com" })).error).toBe("Verification")
    expect(a.log()).toContain("The account this link was made for no longer exists")
  })

  it("with a token no row has: the log says unknown, used, or made before the account changed", async () => {
    const adapter = MemoryAdapter()
    const a = app(adapter)
    await seedUser(adapter, { email: "grace@example.com", password: "the password before the reset" })
    expect((await reset(a, { token: "6b".repeat(32), email: "grace@example.com" })).error).toBe("Verification")
    expect(a.log()).toContain("The link is unknown, was already used, or was made before the account changed")
  })

  it("whose row a store hands back expired: the log says it has expired", async () => {
    const adapter = plainTokens(MemoryAdapter())
    const a = app(adapter)
    await seedUser(adapter, { email: "grace@example.com", password: "the password before the reset" })
    const token = "7c".repeat(32)
    await adapter.createVerificationToken!({ identifier: "password-reset:grace@example.com", token: sha256Form(token), expires: new Date(Date.now() - 1000) })
    expect((await reset(a, { token, email: "grace@example.com" })).error).toBe("Verification")
    expect(a.log()).toContain("The link has expired")
  })

  it("whose row a store hands back under another address's identifier: the log says it does not match its address", async () => {
    const adapter = plainTokens(MemoryAdapter(), { caseInsensitive: true })
    const a = app(adapter)
    await seedUser(adapter, { email: "grace@example.com", password: "the password before the reset" })
    await seedUser(adapter, { email: "GRACE@example.com", password: "another account's password" })
    const token = "8d".repeat(32)
    await adapter.createVerificationToken!({ identifier: "password-reset:grace@example.com", token: sha256Form(token), expires: inAnHour() })
    expect((await reset(a, { token, email: "GRACE@example.com" })).error).toBe("Verification")
    expect(a.log()).toContain("The link does not match its address")
  })
})
