/**
 * Issue 28, item 4 (Low/Medium): older reset links survived a reset or a password change —
 * only the used token was deleted. Whoever got hold of an earlier link (a forwarded mail, a
 * shared mailbox, a mail archive) could still set the password after the owner had reset it.
 *
 * Now a password link is bound to the account's state (`linkState` in
 * `lib/password-flows/tokens.ts`): a reset link to the user and a digest of its password hash,
 * a verification link to the user and its unverified state. Anything that changes the state
 * kills every link issued before, on every instance sharing the store.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { startSmtp, type TestSmtp } from "../../email/support.js"
import { confirmVerification, LIGHT, passwordApp, passwordSignIn, postStep, seedUser, STRONG } from "../../password/support.js"

let smtp: TestSmtp
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(() => smtp.close())

const OLD = "the old and well worn passphrase"
const unique = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}@example.com`

function app(adapter: Adapter) {
  const mailer = Nodemailer({ server: smtp.url, from: "auth@example.com" })
  return passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { session: { strategy: "jwt", registry: new MemorySessionRegistry() } } })
}

/** Asks for a reset link for `email` and returns its token. */
async function resetToken(browser: ReturnType<ReturnType<typeof app>["browser"]>, email: string): Promise<string> {
  expect((await postStep(browser, "forgot", { email })).path).toBe("/auth/password/sent")
  return new URL(smtp.linkFor(email)).searchParams.get("token")!
}

describe("two reset links; one is used", () => {
  it("the other no longer resets the password, whichever was asked for first", async () => {
    for (const useFirst of [true, false]) {
      const adapter = MemoryAdapter()
      const email = unique("grace")
      await seedUser(adapter, { email, password: OLD })
      const { browser } = app(adapter)
      const first = await resetToken(browser(), email)
      const second = await resetToken(browser(), email)
      const [used, stale] = useFirst ? [first, second] : [second, first]
      expect((await postStep(browser(), "reset", { token: used, email, password: "grace's new passphrase, one" })).path).toBe("/auth/password/done")
      // The attacker holds the other link.
      const attempt = await postStep(browser(), "reset", { token: stale, email, password: "mallory sets this passphrase" })
      expect(attempt.error).toBe("Verification")
      expect((await passwordSignIn(browser(), { email, password: "mallory sets this passphrase" })).error).toBe("CredentialsSignin")
      expect((await passwordSignIn(browser(), { email, password: "grace's new passphrase, one" })).error).toBeNull()
    }
  })

  it("holds across instances on one store: a link mailed by one, used on another, kills the rest on the first", async () => {
    const adapter = MemoryAdapter()
    const email = unique("roaming")
    await seedUser(adapter, { email, password: OLD })
    const [one, two] = [app(adapter), app(adapter)]
    const early = await resetToken(one.browser(), email)
    const late = await resetToken(one.browser(), email)
    expect((await postStep(two.browser(), "reset", { token: late, email, password: "the new passphrase from two" })).path).toBe("/auth/password/done")
    expect((await postStep(one.browser(), "reset", { token: early, email, password: "mallory on instance one" })).error).toBe("Verification")
  })
})

describe("a password change signed in", () => {
  it("kills every reset link mailed before it", async () => {
    const adapter = MemoryAdapter()
    const email = unique("changer")
    await seedUser(adapter, { email, password: OLD })
    const { browser } = app(adapter)
    const earlier = await resetToken(browser(), email)
    const here = browser()
    expect((await passwordSignIn(here, { email, password: OLD })).error).toBeNull()
    const csrfToken = await here.csrfToken()
    await here.request("/auth/password/change", { form: { csrfToken, currentPassword: OLD, password: "the changed passphrase now", callbackUrl: "http://localhost:3000/account" } })
    expect((await passwordSignIn(browser(), { email, password: "the changed passphrase now" })).error).toBeNull()
    // The mail from before the change, in the wrong hands.
    expect((await postStep(browser(), "reset", { token: earlier, email, password: "mallory sets this passphrase" })).error).toBe("Verification")
    expect((await passwordSignIn(browser(), { email, password: "the changed passphrase now" })).error).toBeNull()
  })

  it("a link asked for after the change works", async () => {
    const adapter = MemoryAdapter()
    const email = unique("after")
    await seedUser(adapter, { email, password: OLD })
    const { browser } = app(adapter)
    const here = browser()
    await passwordSignIn(here, { email, password: OLD })
    await here.request("/auth/password/change", { form: { csrfToken: await here.csrfToken(), currentPassword: OLD, password: "the changed passphrase now" } })
    const fresh = await resetToken(browser(), email)
    expect((await postStep(browser(), "reset", { token: fresh, email, password: STRONG })).path).toBe("/auth/password/done")
  })
})

describe("verification links", () => {
  it("a link made for an earlier user of the address does not verify the one there now", async () => {
    const adapter = MemoryAdapter()
    const email = unique("again")
    const { browser } = app(adapter)
    const first = browser()
    await postStep(first, "signup", { email, password: STRONG })
    const early = smtp.linkFor(email)
    // The account is deleted (by the app) and the address signed up again.
    await adapter.deleteUser!((await adapter.getUserByEmail!(email))!.id)
    await postStep(first, "signup", { email, password: STRONG })
    expect((await confirmVerification(first, early)).error).toBe("Verification")
    expect((await adapter.getUserByEmail!(email))?.emailVerified).toBeNull()
    expect((await confirmVerification(first, smtp.linkFor(email))).path).toBe("/auth/password/verified")
  })

  it("once the address is verified, a reset link mailed to the unverified sign-up is dead too (the user was replaced)", async () => {
    const adapter = MemoryAdapter()
    const email = unique("owner")
    const { browser } = app(adapter)
    // Mallory signs up first; the owner's sign-up then mails her "you already have an account".
    await postStep(browser(), "signup", { email, password: "mallory's own long passphrase" })
    const verify = smtp.linkFor(email)
    await postStep(browser(), "signup", { email, password: STRONG })
    const reset = new URL(smtp.linkFor(email)).searchParams.get("token")!
    // Mallory saw that mail too (a shared mailbox): the owner confirms from her browser first.
    await confirmVerification(browser(), verify)
    expect((await postStep(browser(), "reset", { token: reset, email, password: "mallory sets this passphrase" })).error).toBe("Verification")
  })
})
