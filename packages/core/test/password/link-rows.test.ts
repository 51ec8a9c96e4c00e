import { createHash, createHmac } from "node:crypto"
import { afterEach, describe, expect, it, vi } from "vitest"
import type { Adapter, VerificationToken } from "@portcullis/core/adapters"
import type { EmailConfig } from "@portcullis/core/providers/email"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { SECRET } from "../helpers.js"
import { MAX_TOKEN_LENGTH } from "../../src/lib/email/token.js"
import { passwordApp, postStep, seedUser, STRONG } from "./support.js"

/**
 * The rows behind a password reset link (`lib/password-flows/tokens.ts`), planted or
 * inspected in the store: the forms a link mailed before an upgrade was stored in (still
 * accepted for the link's lifetime, under a rotated secret list too), the bounds on what a
 * link may carry, how long an issued row lives, and the checks on the row a store hands
 * back (stores differ: some return expired rows, some compare identifiers without case).
 */
afterEach(() => vi.restoreAllMocks())

const OLD_SECRET = "an-earlier-secret-with-at-least-32-characters"

/** The two earlier row forms, under the secret list as the app joins it. */
const hmacForm = (key: string, token: string) => createHmac("sha256", key).update(`portcullis-password-reset:${token}`).digest("hex")
const sha256Form = (key: string, token: string) => createHash("sha256").update(`portcullis-password-reset:${token}:${key}`).digest("hex")

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

async function reset(app: ReturnType<typeof passwordApp>, token: string, email: string) {
  return postStep(app.browser(), "reset", { token, email, password: `${STRONG} renewed` })
}

const inAnHour = () => new Date(Date.now() + 3_600_000)

describe("a reset link mailed before the account state was bound into its row", () => {
  it.each([
    ["the HMAC of purpose and token (November 27)", hmacForm],
    ["sha256 of purpose, token and secret (before it)", sha256Form],
  ])("stored as %s, still resets — under a rotated secret list too", async (_label, form) => {
    for (const secret of [SECRET, [SECRET, OLD_SECRET]]) {
      const adapter = MemoryAdapter()
      const app = passwordApp(adapter, { extra: { secret } })
      await seedUser(adapter, { email: "grace@example.com", password: "the password before the reset" })
      const token = "1c".repeat(32)
      await adapter.createVerificationToken!({ identifier: "password-reset:grace@example.com", token: form([secret].flat().join(","), token), expires: inAnHour() })
      expect((await reset(app, token, "grace@example.com")).path).toBe("/auth/password/done")
    }
  })
})

describe("what a reset link may carry", () => {
  it("a token of the longest accepted length resets; one character more is refused and consumes nothing", async () => {
    const adapter = MemoryAdapter()
    const app = passwordApp(adapter)
    await seedUser(adapter, { email: "grace@example.com", password: "the password before the reset" })
    const longest = "a".repeat(MAX_TOKEN_LENGTH)
    await adapter.createVerificationToken!({ identifier: "password-reset:grace@example.com", token: sha256Form(SECRET, longest), expires: inAnHour() })
    expect((await reset(app, longest, "grace@example.com")).path).toBe("/auth/password/done")

    const tooLong = "a".repeat(MAX_TOKEN_LENGTH + 1)
    const row = { identifier: "password-reset:grace@example.com", token: sha256Form(SECRET, tooLong), expires: inAnHour() }
    await adapter.createVerificationToken!(row)
    const refused = await reset(app, tooLong, "grace@example.com")
    expect(refused.path).not.toBe("/auth/password/done")
    expect(await adapter.useVerificationToken!({ identifier: row.identifier, token: row.token })).not.toBeNull()
  })

  it("an address of 320 characters resets; 321 is refused and consumes nothing", async () => {
    const adapter = MemoryAdapter()
    const app = passwordApp(adapter)
    const address = (length: number) => `${"a".repeat(64)}@${"d".repeat(length - 64 - 1 - 4)}.com`
    const token = "2d".repeat(32)
    for (const length of [320, 321]) {
      await seedUser(adapter, { email: address(length), password: "the password before the reset" })
      await adapter.createVerificationToken!({ identifier: `password-reset:${address(length)}`, token: sha256Form(SECRET, token), expires: inAnHour() })
    }
    expect((await reset(app, token, address(320))).path).toBe("/auth/password/done")
    expect((await reset(app, token, address(321))).path).not.toBe("/auth/password/done")
    expect(await adapter.useVerificationToken!({ identifier: `password-reset:${address(321)}`, token: sha256Form(SECRET, token) })).not.toBeNull()
  })
})

describe("an issued reset link's row", () => {
  it("lives resetMaxAge seconds", async () => {
    const adapter = MemoryAdapter()
    const rows: VerificationToken[] = []
    const spied: Adapter = { ...adapter, createVerificationToken: (row) => (rows.push(row), adapter.createVerificationToken!(row)) }
    const mailer = { id: "kept", type: "email", name: "Kept", sendVerificationRequest: async () => {} } as EmailConfig
    const app = passwordApp(spied, { provider: { resetMaxAge: 900, mailer } })
    await seedUser(adapter, { email: "grace@example.com", password: "the password before the reset" })
    const before = Date.now()
    await postStep(app.browser(), "forgot", { email: "grace@example.com" })
    await app.mail.settled()
    const row = rows.find((r) => r.identifier === "password-reset:grace@example.com")
    expect(row).toBeDefined()
    expect(row!.expires.getTime()).toBeGreaterThanOrEqual(before + 900_000)
    expect(row!.expires.getTime()).toBeLessThanOrEqual(Date.now() + 900_000)
  })
})

describe("the row a store hands back", () => {
  it("from a store that returns expired rows, is refused once its expiry is reached (at that very millisecond)", async () => {
    const adapter = plainTokens(MemoryAdapter())
    const app = passwordApp(adapter)
    await seedUser(adapter, { email: "grace@example.com", password: "the password before the reset" })
    const now = Date.now()
    const token = "3e".repeat(32)
    await adapter.createVerificationToken!({ identifier: "password-reset:grace@example.com", token: sha256Form(SECRET, token), expires: new Date(now) })
    const csrf = app.browser()
    const csrfToken = await csrf.csrfToken()
    vi.spyOn(Date, "now").mockReturnValue(now)
    const response = await csrf.request("/auth/password/reset", { form: { token, email: "grace@example.com", password: `${STRONG} renewed`, csrfToken } })
    vi.restoreAllMocks()
    expect(new URL(response.headers.get("location")!).pathname).not.toBe("/auth/password/done")
  })

  it("from a store comparing identifiers without case, is refused for a link naming the address in other case", async () => {
    const adapter = plainTokens(MemoryAdapter(), { caseInsensitive: true })
    const app = passwordApp(adapter)
    await seedUser(adapter, { email: "grace@example.com", password: "the password before the reset" })
    // The app's own users are found by the exact address; this one's row is under lower case.
    await seedUser(adapter, { email: "GRACE@example.com", password: "another account's password" })
    const token = "4f".repeat(32)
    await adapter.createVerificationToken!({ identifier: "password-reset:grace@example.com", token: sha256Form(SECRET, token), expires: inAnHour() })
    expect((await reset(app, token, "GRACE@example.com")).path).not.toBe("/auth/password/done")
  })
})
