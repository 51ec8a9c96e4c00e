/**
 * Step-up for an account with two-factor authentication, attacked with what an infostealer
 * takes from a browser: the session cookie (long past its step-up) **and the saved
 * password** — but not the authenticator. A sign-in with that password stops at the code;
 * the step-up must not be weaker than the sign-in, or the thief turns the password into a
 * fresh session and plants a passkey, which (passkeySkips, the default) signs in without the
 * code for good — past a password reset and every session revoked.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { confirmTwoFactor, startTwoFactor } from "@portcullis/core/integration"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { direct } from "../../helpers.js"
import { authenticators, ORIGIN, PasskeyBrowser } from "../../webauthn/support.js"
import { SoftCredential } from "../../webauthn/soft-authenticator.js"
import { seedUser } from "../../password/support.js"
import { ada, reauthenticate, stepUpConfig } from "../../step-up/app.js"
import { signedInOnly, steppedUp } from "../../step-up/support.js"
import { previousStepCode } from "../../two-factor/previous-step.js"

afterEach(() => {
  vi.useRealTimers()
})

/** Ada with a password and 2FA on; a thief's browser holding a session of hers that is not stepped up. */
async function stolen() {
  const adapter = MemoryAdapter()
  const user = await seedUser(adapter, ada)
  const config = stepUpConfig(adapter, { session: { strategy: "database" } })
  const enrolment = await startTwoFactor(await steppedUp(config, user.id, ORIGIN), config)
  await confirmTwoFactor({ ...(await steppedUp(config, user.id, ORIGIN)), code: await previousStepCode(enrolment.secret) }, config)
  const thief = new PasskeyBrowser(direct(config), ORIGIN)
  const cookie = (await signedInOnly(config, user.id, ORIGIN)).headers.get("cookie")!
  const [name, value] = cookie.split("=") as [string, string]
  thief.jar.set(name, { value, attributes: {} })
  return { adapter, config, thief, user }
}

async function addPasskey(browser: PasskeyBrowser, credential: SoftCredential) {
  const { body } = await browser.options()
  return browser.callback("register", credential.register(body.options))
}

describe("the saved password at /reauthenticate, without the second factor", () => {
  it("does not step the stolen session up: the thief's passkey is not added", async () => {
    const { adapter, thief } = await stolen()
    expect((await thief.session())?.user?.email).toBe(ada.email)

    await reauthenticate(thief, ada.password)
    const his = new SoftCredential(ORIGIN, "localhost")
    const answer = await addPasskey(thief, his)

    expect(new URL(answer.headers.get("location")!).pathname).not.toBe("/")
    expect(await authenticators(adapter, ada.email)).toEqual([])
  })

  it("is not offered on the page: a user with 2FA steps up by signing in again, code included", async () => {
    const { thief } = await stolen()
    const page = await thief.request("/auth/reauthenticate?callbackUrl=/account")
    const html = page.status === 200 ? await page.text() : ""
    expect(html).not.toContain('name="password"')
  })
})

describe("the saved password at /password/change, without the second factor", () => {
  it("changes the password but does not mark the session: the thief's passkey is still refused", async () => {
    const { adapter, thief } = await stolen()
    const csrfToken = await thief.csrfToken()
    await thief.request("/auth/password/change", { form: { csrfToken, currentPassword: ada.password, password: "mallory's chosen passphrase here", callbackUrl: "/account" } })
    const answer = await addPasskey(thief, new SoftCredential(ORIGIN, "localhost"))
    expect(new URL(answer.headers.get("location")!).pathname).not.toBe("/")
    expect(await authenticators(adapter, ada.email)).toEqual([])
  })
})

describe("what still works", () => {
  it("a user without 2FA steps up with her password, as before", async () => {
    const adapter = MemoryAdapter()
    const user = await seedUser(adapter, ada)
    const config = stepUpConfig(adapter, { session: { strategy: "database" } })
    const owner = new PasskeyBrowser(direct(config), ORIGIN)
    const cookie = (await signedInOnly(config, user.id, ORIGIN)).headers.get("cookie")!
    const [name, value] = cookie.split("=") as [string, string]
    owner.jar.set(name, { value, attributes: {} })
    const page = await (await owner.request("/auth/reauthenticate?callbackUrl=/account")).text()
    expect(page).toContain('name="password"')
    expect((await reauthenticate(owner, ada.password)).error).toBeNull()
    expect((await addPasskey(owner, new SoftCredential(ORIGIN, "localhost"))).status).toBe(302)
    expect(await authenticators(adapter, ada.email)).toHaveLength(1)
  })
})
