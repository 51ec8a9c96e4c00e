/**
 * Issue 28 item 10: a password app whose sessions cannot be ended early. With JWT sessions and
 * no `session.registry`, a password change stored the new password, then answered
 * `error=Configuration`, and the session of whoever had the old password went on. Such a
 * configuration is now refused when it is resolved, naming what is missing; and a change
 * ends the other sessions before it stores anything, so an outage there changes nothing.
 */
import { describe, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import { verifyPassword } from "@portcullis/core/password"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { captureLogger } from "../helpers.js"
import { LIGHT, passwordApp, passwordSignIn, postStep, seedUser, STRONG } from "./support.js"

const OLD = "the old and well worn passphrase"
const email = "grace@example.com"
const mailer = { id: "mail", type: "email", name: "Mail", from: "auth@example.com", maxAge: 600, sendVerificationRequest: async () => {} } as never

async function storedPasswordIs(adapter: Adapter, userId: string, password: string) {
  return verifyPassword(password, await adapter.getUserPassword!(userId), LIGHT)
}

const sessionSet = (response: Response) => response.headers.getSetCookie().some((c) => /^authjs\.session-token=[^;]/.test(c) && !/Max-Age=0/i.test(c))

describe("a password provider with JWT sessions and no session registry", () => {
  it("is a configuration error before any sign-in, naming session.registry, and no change is stored", async () => {
    const adapter = MemoryAdapter()
    const user = await seedUser(adapter, { email, password: OLD })
    const log = captureLogger()
    const { browser } = passwordApp(adapter, { provider: { hashing: LIGHT, mailer }, extra: { session: { strategy: "jwt" }, logger: log.logger } })
    // The attacker signs in with the stolen password; the owner signs in to change it.
    const attacker = browser("203.0.113.66")
    const owner = browser("198.51.100.1")
    const stolen = await passwordSignIn(attacker, { email, password: OLD })
    expect(sessionSet(stolen.response)).toBe(false)
    expect(stolen.status).toBe(500)
    await passwordSignIn(owner, { email, password: OLD })
    await postStep(owner, "change", { currentPassword: OLD, password: STRONG })
    // Nothing was stored, and the log says what to fix.
    expect(await storedPasswordIs(adapter, user.id, OLD)).toBe(true)
    expect(log.lines.join("\n")).toMatch(/InvalidConfig: The password provider "password" needs session\.registry with JWT sessions/)
  })

  it("is refused as well with database sessions on an adapter without listSessions", async () => {
    const { listSessions: _, ...withoutList } = MemoryAdapter()
    const log = captureLogger()
    const { browser } = passwordApp(withoutList as Adapter, { provider: { hashing: LIGHT, mailer }, extra: { session: { strategy: "database" }, logger: log.logger } })
    expect((await passwordSignIn(browser(), { email, password: OLD })).status).toBe(500)
    expect(log.lines.join("\n")).toMatch(/needs an adapter with listSessions with database sessions/)
  })

  it("works with a registry, and with database sessions on an adapter that lists them", async () => {
    for (const session of [{ strategy: "jwt" as const, registry: new MemorySessionRegistry() }, { strategy: "database" as const }]) {
      const adapter = MemoryAdapter()
      await seedUser(adapter, { email, password: OLD })
      const { browser } = passwordApp(adapter, { provider: { hashing: LIGHT, mailer }, extra: { session } })
      const signedIn = await passwordSignIn(browser(), { email, password: OLD })
      expect(signedIn.error, session.strategy).toBeNull()
      expect(sessionSet(signedIn.response), session.strategy).toBe(true)
    }
  })
})

/** A registry whose removals fail while `down`. */
class FlakyRegistry extends MemorySessionRegistry {
  down = false
  override async remove(userId: string, ids: string[]) {
    if (this.down) throw new Error("registry unreachable")
    return super.remove(userId, ids)
  }
}

describe("a password change while the sessions cannot be ended", () => {
  it("stores nothing: the attacker's session and the old password both stay, and the owner may try again", async () => {
    const adapter = MemoryAdapter()
    const user = await seedUser(adapter, { email, password: OLD })
    const registry = new FlakyRegistry()
    const { browser } = passwordApp(adapter, { provider: { hashing: LIGHT, mailer }, extra: { session: { strategy: "jwt", registry } } })
    const attacker = browser("203.0.113.66")
    const owner = browser("198.51.100.1")
    await passwordSignIn(attacker, { email, password: OLD })
    await passwordSignIn(owner, { email, password: OLD })
    // The registry's store fails just as the owner changes her password.
    registry.down = true
    const failed = await owner.request("/auth/password/change", { form: { currentPassword: OLD, password: STRONG, csrfToken: await owner.csrfToken() } })
    expect(failed.status).toBeGreaterThanOrEqual(300)
    expect(await storedPasswordIs(adapter, user.id, OLD)).toBe(true)
    // Back up: the same change goes through, and the attacker's session ends with it.
    registry.down = false
    expect((await postStep(owner, "change", { currentPassword: OLD, password: STRONG })).error).toBeNull()
    expect(await storedPasswordIs(adapter, user.id, STRONG)).toBe(true)
    expect(await attacker.session()).toBeNull()
    expect((await owner.session())?.user?.email).toBe(email)
  })
})
