/**
 * Step-up re-authentication attacked (issue 28, item 3 and "sudo mode"): Mallory holds a copy
 * of Ada's session cookie — from a shared computer, malware, a leaked log — but not her
 * password. Every sensitive action stops at the step-up; her own recent sign-in or password
 * opens it for her session only, for `stepUp.maxAge`; guesses at the password through the
 * re-authentication endpoint land in the sign-in's lockout. Over a real HTTP server.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { requireStepUp } from "@portcullis/core/integration"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, credentialsConfig, direct } from "../helpers.js"
import { httpServer } from "../http-server.js"
import { SoftCredential } from "../webauthn/soft-authenticator.js"
import { authenticators, ORIGIN, PasskeyBrowser } from "../webauthn/support.js"
import { seedUser } from "../password/support.js"
import { act, ada, copyOf, reauthenticate, signIn, stepUpApp, stepUpConfig, type StepUpApp } from "./app.js"
import { previousStepCode } from "../two-factor/previous-step.js"

const MINUTE = 60_000
let app: StepUpApp | undefined

afterEach(async () => {
  vi.useRealTimers()
  await app?.close()
  app = undefined
})

/** Moves the clock (Date only: sockets and timers run as usual). */
function later(ms: number) {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })
  vi.setSystemTime(Date.now() + ms)
}

const refused = { status: 403, body: { error: "StepUpRequired" } }

describe("a stolen session cookie, its owner's step-up long over", () => {
  it("cannot enrol the thief's authenticator (start or confirm)", async () => {
    app = await stepUpApp()
    const owner = app.browser()
    await signIn(owner)
    later(11 * MINUTE)
    const thief = copyOf(owner)
    expect(await act(thief, "/account/2fa/start")).toEqual(refused)
    expect(await act(thief, "/account/2fa/confirm", { code: "123456" })).toEqual(refused)
    expect(await app.adapter.getTwoFactor!(app.userId)).toBeNull()
  })

  it("cannot disable 2FA or regenerate the backup codes, even with a current code", async () => {
    app = await stepUpApp()
    const owner = app.browser()
    await signIn(owner)
    const { secret } = (await act(owner, "/account/2fa/start")).body
    expect((await act(owner, "/account/2fa/confirm", { code: await previousStepCode(secret) })).status).toBe(200)
    later(11 * MINUTE)
    const thief = copyOf(owner)
    expect(await act(thief, "/account/2fa/disable", { code: totpCode(secret) })).toEqual(refused)
    expect(await act(thief, "/account/2fa/regenerate", { code: totpCode(secret) })).toEqual(refused)
    const record = await app.adapter.getTwoFactor!(app.userId)
    expect(record).toMatchObject({ enabled: true })
    expect(record!.backupCodes).toHaveLength(10)
  })

  it("cannot sign Ada out everywhere or end her other sessions", async () => {
    app = await stepUpApp()
    const laptop = app.browser()
    const phone = app.browser()
    await signIn(laptop)
    await signIn(phone)
    later(11 * MINUTE)
    const thief = copyOf(laptop)
    expect(await act(thief, "/account/sessions/revoke-others")).toEqual(refused)
    expect(await act(thief, "/account/sessions/everywhere")).toEqual(refused)
    expect((await phone.session())?.user?.email).toBe(ada.email)
    expect((await laptop.session())?.user?.email).toBe(ada.email)
  })

  it("cannot pass the app's own gate (requireStepUp), which Ada passes after her password", async () => {
    app = await stepUpApp()
    const owner = app.browser()
    await signIn(owner)
    later(11 * MINUTE)
    expect(await act(copyOf(owner), "/account/delete")).toEqual(refused)
    expect((await reauthenticate(owner, ada.password)).location).toBe(`${app.origin}/account`)
    expect(await act(owner, "/account/delete")).toEqual({ status: 200, body: { userId: app.userId } })
  })

  it("cannot change the password without the current one (the current password is that action's step-up)", async () => {
    app = await stepUpApp()
    const owner = app.browser()
    await signIn(owner)
    later(11 * MINUTE)
    const thief = copyOf(owner)
    const csrfToken = await thief.csrfToken()
    const response = await thief.request("/auth/password/change", { form: { currentPassword: "a guess", password: "mallory's own new passphrase", csrfToken } })
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("PasswordMismatch")
    expect((await signIn(app.browser("198.51.100.9"))).headers.get("location")).toBe(app.origin)
  })

  it("cannot add the thief's passkey to the account: sent to re-authenticate, nothing stored", async () => {
    const adapter = MemoryAdapter()
    await seedUser(adapter, ada)
    const config = stepUpConfig(adapter)
    const owner = new PasskeyBrowser(direct(config), ORIGIN)
    await signIn(owner)
    later(11 * MINUTE)
    const thief = new PasskeyBrowser(direct(config), ORIGIN)
    for (const [name, cookie] of owner.jar) thief.jar.set(name, { ...cookie })
    const { body } = await thief.options()
    expect(body.action).toBe("register")
    const response = await thief.callback("register", new SoftCredential(ORIGIN, "localhost").register(body.options))
    const location = new URL(response.headers.get("location")!)
    expect(location.pathname).toBe("/auth/reauthenticate")
    expect(await authenticators(adapter, ada.email)).toEqual([])

    // Ada, after her password, adds her own.
    expect((await reauthenticate(owner, ada.password)).error).toBeNull()
    const options = (await owner.options()).body
    expect((await owner.callback("register", new SoftCredential(ORIGIN, "localhost").register(options.options))).status).toBe(302)
    expect(await authenticators(adapter, ada.email)).toHaveLength(1)
  })
})

describe("the step-up mark", () => {
  it("is fresh for stepUp.maxAge after a sign-in, then refused", async () => {
    app = await stepUpApp({ stepUp: { maxAge: 300 } })
    const owner = app.browser()
    await signIn(owner)
    later(299_000)
    expect((await act(owner, "/account/delete")).status).toBe(200)
    later(2_000)
    expect(await act(owner, "/account/delete")).toEqual(refused)
  })

  it("of session A does not serve session B of the same user", async () => {
    app = await stepUpApp()
    const laptop = app.browser()
    const phone = app.browser()
    await signIn(laptop)
    await signIn(phone)
    later(11 * MINUTE)
    await reauthenticate(laptop, ada.password)
    expect((await act(laptop, "/account/delete")).status).toBe(200)
    expect(await act(phone, "/account/delete")).toEqual(refused)
  })

  it("ends with the sign-out: a copy of a JWT cookie that outlives it has none", async () => {
    // JWT sessions without a registry: the copy still opens (the JWT's known limit), the mark is gone.
    const config = credentialsConfig({ session: { strategy: "jwt" } })
    const server = await httpServer(config)
    try {
      const owner = new Browser(server.transport, server.origin)
      await owner.signIn()
      const thief = copyOf(owner)
      const request = { origin: server.origin, headers: new Headers({ cookie: thief.cookieHeader() }) }
      expect(await requireStepUp(request, config)).toEqual({ userId: "user-ada" })
      await owner.signOut()
      expect((await thief.session())?.user?.name).toBe("Ada Lovelace")
      await expect(requireStepUp(request, config)).rejects.toMatchObject({ type: "StepUpRequired" })
    } finally {
      await server.close()
    }
  })

  it("is the one the configuration gives a fresh sign-in by any first factor", async () => {
    const config = credentialsConfig({ session: { strategy: "jwt" } })
    const browser = new Browser(direct(config))
    await browser.signIn()
    const request = { origin: "http://localhost:3000", headers: new Headers({ cookie: browser.cookieHeader() }) }
    expect(await requireStepUp(request, config)).toEqual({ userId: "user-ada" })
  })
})

describe("a password change as the step-up", () => {
  it("needs no separate re-authentication, and its right current password marks the session", async () => {
    app = await stepUpApp()
    const owner = app.browser()
    await signIn(owner)
    later(11 * MINUTE)
    const csrfToken = await owner.csrfToken()
    const changed = await owner.request("/auth/password/change", { form: { currentPassword: ada.password, password: "ada's brand new passphrase", csrfToken, callbackUrl: "/account" } })
    expect(changed.headers.get("location")).toBe(`${app.origin}/account`)
    expect((await act(owner, "/account/delete")).status).toBe(200)
  })
})

describe("a passkey as the step-up", () => {
  it("of the session's own user marks the session it signs in; another user's passkey is refused and marks nothing", async () => {
    const adapter = MemoryAdapter()
    await seedUser(adapter, ada)
    const config = stepUpConfig(adapter)
    const owner = new PasskeyBrowser(direct(config), ORIGIN)
    const own = new SoftCredential(ORIGIN, "localhost")
    await signIn(owner)
    expect((await owner.register(own)).status).toBe(302)
    const mallory = new PasskeyBrowser(direct(config), ORIGIN)
    const his = new SoftCredential(ORIGIN, "localhost")
    expect((await mallory.register(his, { email: "mallory@example.com" })).status).toBe(302)
    later(11 * MINUTE)
    const request = () => ({ origin: ORIGIN, headers: new Headers({ cookie: owner.cookieHeader() }) })
    await expect(requireStepUp(request(), config)).rejects.toMatchObject({ type: "StepUpRequired" })

    // Mallory's passkey in Ada's browser (signed in as Ada): the challenge names Ada, so it is
    // an unknown credential — refused, still not stepped up.
    const foreign = await owner.authenticate(his)
    expect(new URL(foreign.headers.get("location")!).searchParams.get("error")).toBe("WebAuthnVerificationError")
    await expect(requireStepUp(request(), config)).rejects.toMatchObject({ type: "StepUpRequired" })

    expect((await owner.authenticate(own)).status).toBe(302)
    expect(await requireStepUp(request(), config)).toEqual({ userId: (await adapter.getUserByEmail!(ada.email))!.id })
  })
})

describe("POST /reauthenticate", () => {
  it("marks the session for the right password and returns to callbackUrl", async () => {
    app = await stepUpApp()
    const owner = app.browser()
    await signIn(owner)
    later(11 * MINUTE)
    expect(await act(owner, "/account/2fa/start")).toEqual(refused)
    const { location } = await reauthenticate(owner, ada.password, "/account/2fa")
    expect(location).toBe(`${app.origin}/account/2fa`)
    expect((await act(owner, "/account/2fa/start")).status).toBe(200)
  })

  it("sends a wrong password back to the page and marks nothing", async () => {
    app = await stepUpApp()
    const owner = app.browser()
    await signIn(owner)
    later(11 * MINUTE)
    const { location, error } = await reauthenticate(owner, "not it", "/account/2fa")
    expect(new URL(location!).pathname).toBe("/auth/reauthenticate")
    expect(new URL(location!).searchParams.get("callbackUrl")).toBe(`${app.origin}/account/2fa`)
    expect(error).toBe("PasswordMismatch")
    expect(await act(owner, "/account/2fa/start")).toEqual(refused)
  })

  it("counts wrong passwords in the sign-in's lockout: guessing here locks the password sign-in too", async () => {
    app = await stepUpApp()
    const thief = copyOf(await (async () => {
      const owner = app!.browser()
      await signIn(owner)
      return owner
    })())
    later(11 * MINUTE)
    for (let i = 0; i < 5; i++) expect((await reauthenticate(thief, `guess ${i}`)).error).toBe("PasswordMismatch")
    // The sixth attempt is refused before it is judged, the right password too.
    expect((await reauthenticate(thief, ada.password)).error).toBe("RateLimited")
    expect(await act(thief, "/account/2fa/start")).toEqual(refused)
    // The same lockout stops the sign-in from anywhere.
    const elsewhere = app.browser("203.0.113.50")
    const signInAnswer = await signIn(elsewhere)
    expect(new URL(signInAnswer.headers.get("location")!).searchParams.get("error")).toBe("RateLimited")
    expect(await elsewhere.session()).toBeNull()
  })

  it("counts every one of 50 wrong passwords sent at once: five are judged, the rest refused", async () => {
    app = await stepUpApp()
    const owner = app.browser()
    await signIn(owner)
    later(11 * MINUTE)
    const thieves = Array.from({ length: 50 }, () => copyOf(owner))
    const tokens = await Promise.all(thieves.map((t) => t.csrfToken()))
    const answers = await Promise.all(
      thieves.map((t, i) => t.request("/auth/reauthenticate", { form: { password: `guess ${i}`, csrfToken: tokens[i]!, callbackUrl: "/account" } })),
    )
    const errors = answers.map((r) => new URL(r.headers.get("location")!).searchParams.get("error"))
    expect(errors.filter((e) => e === "PasswordMismatch")).toHaveLength(5)
    expect(errors.filter((e) => e === "RateLimited")).toHaveLength(45)
    expect((await reauthenticate(owner, ada.password)).error).toBe("RateLimited")
  })

  it("refuses a post without the CSRF token, or with another browser's", async () => {
    app = await stepUpApp()
    const owner = app.browser()
    await signIn(owner)
    later(11 * MINUTE)
    const bare = await owner.request("/auth/reauthenticate", { form: { password: ada.password, callbackUrl: "/account" } })
    expect(new URL(bare.headers.get("location")!).searchParams.get("error")).toBe("MissingCSRF")
    const mallory = app.browser()
    const foreign = await owner.request("/auth/reauthenticate", { form: { password: ada.password, callbackUrl: "/account", csrfToken: await mallory.csrfToken() } })
    expect(new URL(foreign.headers.get("location")!).searchParams.get("error")).toBe("MissingCSRF")
    expect(await act(owner, "/account/delete")).toEqual(refused)
  })

  it("sends a signed-out browser to the sign-in page, which marks the new session", async () => {
    app = await stepUpApp()
    const stranger = app.browser()
    const { location } = await reauthenticate(stranger, ada.password, "/account/2fa")
    const url = new URL(location!)
    expect(url.pathname).toBe("/auth/signin")
    expect(url.searchParams.get("callbackUrl")).toBe(`${app.origin}/account/2fa`)
  })
})

describe("GET /reauthenticate", () => {
  it("offers the password and a fresh sign-in, localized, and keeps callbackUrl", async () => {
    app = await stepUpApp()
    const owner = app.browser()
    await signIn(owner)
    const page = await owner.request("/auth/reauthenticate?callbackUrl=%2Faccount%2F2fa", { headers: { "accept-language": "de" } })
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('lang="de"')
    expect(html).toContain("Bestätigen Sie, dass Sie es sind")
    expect(html).toMatch(/<input id="reauthenticate-password" name="password" type="password" autocomplete="current-password" required autofocus>/)
    expect(html).toContain(`value="${app.origin}/account/2fa"`)
    expect(html).toContain(`/auth/signin?callbackUrl=${encodeURIComponent(`${app.origin}/account/2fa`)}`)
    const ar = await (await owner.request("/auth/reauthenticate", { headers: { "accept-language": "ar" } })).text()
    expect(ar).toContain('<html lang="ar" dir="rtl"')
    expect(ar).toContain("أكّد هويتك")
  })

  it("after a wrong password says so, and offers only the sign-in to a user without a password", async () => {
    app = await stepUpApp()
    const owner = app.browser()
    await signIn(owner)
    const wrong = await (await owner.request("/auth/reauthenticate?error=PasswordMismatch")).text()
    expect(wrong).toContain('role="alert"')
    expect(wrong).toContain("That password is not correct.")
    const config = credentialsConfig({ session: { strategy: "jwt" } })
    const browser = new Browser(direct(config))
    await browser.signIn()
    const page = await (await browser.request("/auth/reauthenticate")).text()
    expect(page).not.toContain('name="password"')
    expect(page).toContain("Sign in again")
  })
})
