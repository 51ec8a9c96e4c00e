/**
 * Issue 28, item 2, the address rule through the enrollment API: the app hands the client's
 * address (`clientAddress`) to `disableTwoFactor`, and guesses spread over many users'
 * stolen, stepped-up sessions from one address stop at `rateLimit.perAddress.twoFactor`
 * (30 per 15 minutes) — the per-user cap (10) alone would let 10 guesses per user through.
 */
import { describe, expect, it } from "vitest"
import { disableTwoFactor, getTwoFactorStatus } from "@portcullis/core/integration"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { enroll, twoFactorApp } from "./support.js"
import { steppedUp } from "../step-up/support.js"

const ATTACKER = "203.0.113.9"

/** A six-digit code that is not the secret's code at any step near now. */
function wrongCode(secret: string, n: number): string {
  const near = new Set([-2, -1, 0, 1, 2].map((step) => totpCode(secret, Date.now() + step * 30_000)))
  for (let i = n; ; i++) {
    const code = String(i * 7919 % 1_000_000).padStart(6, "0")
    if (!near.has(code)) return code
  }
}

describe("two-factor guesses through the enrollment API, counted per client address", () => {
  it("stops a 31st wrong code from one address across four users, each still under the per-user cap", async () => {
    const adapter = MemoryAdapter()
    const users = ["user-a", "user-b", "user-c", "user-d"]
    for (const id of users) await adapter.createUser!({ id, email: `${id}@example.com`, emailVerified: new Date(), name: null, image: null })
    const { config } = twoFactorApp({ rateLimit: {} }, adapter)
    const secrets = new Map<string, string>()
    for (const id of users) secrets.set(id, (await enroll(config, id)).secret)

    const answers: string[] = []
    for (let round = 0; round < 8; round++) {
      for (const id of users) {
        const request = { ...(await steppedUp(config, id)), clientAddress: ATTACKER }
        answers.push(await disableTwoFactor({ ...request, code: wrongCode(secrets.get(id)!, round * 10 + users.indexOf(id)) }, config).then(() => "ok", (error) => error.type))
      }
    }
    // Thirty judged (and refused as wrong), then the address rule: the rest refused unjudged.
    expect(answers.slice(0, 30).every((a) => a === "TwoFactorCodeInvalid")).toBe(true)
    expect(answers.slice(30)).toEqual(["RateLimited", "RateLimited"])
    // The right code from that address is refused too, and every user keeps 2FA.
    const last = users[0]!
    const request = { ...(await steppedUp(config, last)), clientAddress: ATTACKER }
    await expect(disableTwoFactor({ ...request, code: totpCode(secrets.get(last)!) }, config)).rejects.toMatchObject({ type: "RateLimited" })
    for (const id of users) expect((await getTwoFactorStatus(await steppedUp(config, id), config)).enabled).toBe(true)
  })

  it("leaves another address alone", async () => {
    const adapter = MemoryAdapter()
    await adapter.createUser!({ id: "user-e", email: "e@example.com", emailVerified: new Date(), name: null, image: null })
    const { config } = twoFactorApp({ rateLimit: {} }, adapter)
    const { secret } = await enroll(config, "user-e")
    const request = { ...(await steppedUp(config, "user-e")), clientAddress: "198.51.100.4" }
    await disableTwoFactor({ ...request, code: totpCode(secret) }, config)
    expect((await getTwoFactorStatus(await steppedUp(config, "user-e"), config)).enabled).toBe(false)
  })
})
