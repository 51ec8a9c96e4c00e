/**
 * Step-up re-authentication attacked by someone who did not write it (issue 28, "sudo
 * mode"). Mallory holds a copy of Ada's session cookie, her own step-up long over, and looks
 * for a way to a fresh mark — or to the gated action's effect — that does not need Ada's
 * password, passkey or mailbox. Over a real HTTP server (the step-up suite's app), with a
 * programmable OpenID provider where an OAuth provider is part of the attack.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import Password from "@portcullis/core/providers/password"
import Passkey from "@portcullis/core/providers/passkey"
import { listSessions, revokeSession } from "@portcullis/core/integration"
import { FakeOP } from "../../oauth/fixtures/fake-op.js"
import { atProvider, deliver, location, startSignIn } from "../../oauth/flow.js"
import { LIGHT } from "../../password/support.js"
import { act, ada, copyOf, reauthenticate, signIn, stepUpApp, type StepUpApp } from "../../step-up/app.js"
import type { Browser } from "../../helpers.js"

const MINUTE = 60_000
let app: StepUpApp | undefined
let op: FakeOP

beforeAll(async () => {
  op = await FakeOP.start()
})
afterAll(() => op.close())
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

function oidc(): OAuthConfig<any> {
  return { id: "idp", name: "IdP", type: "oidc", issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>
}

/** Ada's account, signed in on her laptop, the step-up of that sign-in long over; Mallory has a copy of the cookie. */
async function stolenSession(extra: Parameters<typeof stepUpApp>[0] = {}) {
  app = await stepUpApp({ session: { strategy: "database" }, ...extra })
  const owner = app.browser()
  await signIn(owner)
  later(11 * MINUTE)
  const thief = copyOf(owner)
  return { owner, thief }
}

async function oauthSignIn(browser: Browser) {
  const start = await startSignIn(browser, "idp")
  return deliver(browser, await atProvider(location(start)))
}

describe("a stolen session signs in again with the thief's own OAuth account", () => {
  // Hole: an OAuth sign-in made while signed in links the provider account to the signed-in
  // user (lib/oauth/link.ts, `current` → link → finish) and ends in establishSession, whose
  // markSignIn marks the new session fresh (lib/login.ts:50). The "first factor" proven is
  // Mallory's own IdP account, not Ada's; and the link itself is a way back in for good.
  it("gets no step-up for Ada's session, and no IdP account linked to Ada", async () => {
    const { thief } = await stolenSession({ providers: [Password({ hashing: LIGHT }), Passkey, oidc()] })
    op.user = { sub: "mallory-at-idp", email: "mallory@evil.example", email_verified: true, name: "Mallory" }
    expect((await act(thief, "/account/delete")).status).toBe(403)

    await oauthSignIn(thief)

    // Still Ada's session (the link went to the signed-in user) …
    expect((await thief.session())?.user?.email).toBe(ada.email)
    // … which must not count as a proof of Ada's first factor.
    expect(await act(thief, "/account/delete")).toEqual({ status: 403, body: { error: "StepUpRequired" } })
    expect(await act(thief, "/account/2fa/start")).toEqual({ status: 403, body: { error: "StepUpRequired" } })
    // And Mallory's IdP account is not a way into Ada's account.
    expect(await app!.adapter.getUserByAccount!({ provider: "idp", providerAccountId: "mallory-at-idp" })).toBeNull()
  })

  it("what still works: the owner links her own IdP account after re-authenticating, and at once after signing in", async () => {
    const { owner } = await stolenSession({ providers: [Password({ hashing: LIGHT }), Passkey, oidc()] })
    op.user = { sub: "ada-at-idp", email: "ada@idp.example", email_verified: true, name: "Ada" }
    // Her step-up is long over: the link waits for her password, and nothing is linked yet.
    const refused = await oauthSignIn(owner)
    expect(new URL(refused.headers.get("location")!).pathname).toBe("/auth/reauthenticate")
    // The flow's check cookies are spent all the same: the link starts again from the button.
    expect([...owner.jar.keys()].filter((name) => /state|pkce|nonce/.test(name))).toEqual([])
    expect(await app!.adapter.getUserByAccount!({ provider: "idp", providerAccountId: "ada-at-idp" })).toBeNull()
    expect((await reauthenticate(owner, ada.password)).error).toBeNull()
    await oauthSignIn(owner)
    expect((await app!.adapter.getUserByAccount!({ provider: "idp", providerAccountId: "ada-at-idp" }))?.email).toBe(ada.email)
    // Signed in just now (fresh), a second provider account links straight away.
    vi.useRealTimers()
    const fresh = app!.browser()
    await signIn(fresh)
    op.user = { sub: "ada-second", email: "ada@second.example", email_verified: true, name: "Ada" }
    await oauthSignIn(fresh)
    expect((await app!.adapter.getUserByAccount!({ provider: "idp", providerAccountId: "ada-second" }))?.email).toBe(ada.email)
  })

  // The same hole, followed to its end: the link outlives everything the owner does about
  // the theft (a password change ends the other sessions, not the linked account).
  it("after Ada changes her password (every other session ends), Mallory cannot sign in as Ada with his IdP account", async () => {
    const { thief } = await stolenSession({ providers: [Password({ hashing: LIGHT }), Passkey, oidc()] })
    op.user = { sub: "mallory-at-idp", email: "mallory@evil.example", email_verified: true, name: "Mallory" }
    await oauthSignIn(thief)

    // Ada notices, signs in afresh and changes her password: the thief's session ends.
    const ada2 = app!.browser()
    await signIn(ada2)
    const csrfToken = await ada2.csrfToken()
    await ada2.request("/auth/password/change", { form: { csrfToken, currentPassword: ada.password, password: "ada's brand new passphrase here", callbackUrl: "/account" } })
    expect(await thief.session()).toBeNull()

    // A week later, from a fresh browser.
    const mallory = app!.browser()
    await oauthSignIn(mallory)
    expect((await mallory.session())?.user?.email).not.toBe(ada.email)
  })
})

describe("revoking the owner's other sessions one listed id at a time", () => {
  // Was a hole (design): `revokeOthers`/`signOutEverywhere` needed a step-up, but `revoke` of
  // one listed id was open and `list` shows every id: N single revokes were revokeOthers
  // without the step-up. Now revoking any session but the request's own needs one.
  it("a stolen session cannot end all of the owner's other sessions, one by one", async () => {
    const { owner, thief } = await stolenSession()
    const phone = app!.browser()
    await signIn(phone)
    const request = { origin: app!.origin, headers: new Headers({ cookie: thief.cookieHeader(), origin: app!.origin }) }
    expect(await act(thief, "/account/sessions/revoke-others")).toEqual({ status: 403, body: { error: "StepUpRequired" } })

    const sessions = await listSessions(request, app!.config)
    for (const session of sessions.filter((s) => !s.current)) {
      await expect(revokeSession({ ...request, skipCSRF: true, id: session.id }, app!.config)).rejects.toMatchObject({ type: "StepUpRequired" })
    }

    // The owner must still be signed in somewhere: her laptop and her phone.
    expect(await owner.session()).not.toBeNull()
    expect(await phone.session()).not.toBeNull()
  })
})

describe("the re-authentication form itself", () => {
  it("a cross-site post (no CSRF token, a foreign Origin) with the right password marks nothing", async () => {
    const { thief } = await stolenSession()
    // Even knowing the password, a page on another site cannot post it for the victim's browser.
    const response = await thief.request("/auth/reauthenticate", { form: { password: ada.password, callbackUrl: "/account" }, headers: { origin: "https://evil.example" } })
    expect(response.status).not.toBe(200)
    expect(response.headers.get("location") ?? "").not.toBe(`${app!.origin}/account`)
    expect((await act(thief, "/account/delete")).status).toBe(403)
  })

  it("callbackUrl to another site is not followed after a right password (no open redirect)", async () => {
    const { owner } = await stolenSession()
    const { location } = await reauthenticate(owner, ada.password, "https://evil.example/phish")
    expect(new URL(location!).origin).toBe(app!.origin)
    const wrong = await reauthenticate(owner, "wrong guess", "https://evil.example/phish")
    expect(new URL(wrong.location!).origin).toBe(app!.origin)
    expect(new URL(wrong.location!).searchParams.get("callbackUrl") ?? "").not.toContain("evil.example")
  })

  it("the page cannot be framed (clickjacking the password field)", async () => {
    const { owner } = await stolenSession()
    const page = await owner.request("/auth/reauthenticate?callbackUrl=/account")
    expect(page.status).toBe(200)
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
    expect(page.headers.get("x-frame-options")).toBe("DENY")
  })

  it("wrong guesses through the form never mark the stolen session", async () => {
    const { thief } = await stolenSession()
    for (let i = 0; i < 3; i++) expect((await reauthenticate(thief, `guess ${i}`)).error).toBe("PasswordMismatch")
    expect((await act(thief, "/account/delete")).status).toBe(403)
  })

  it("a signed-out browser posting the right password gets no mark it could carry into a later sign-in", async () => {
    app = await stepUpApp({ session: { strategy: "database" } })
    const stranger = app.browser()
    const answer = await reauthenticate(stranger, ada.password)
    expect(new URL(answer.location!).pathname).toBe("/auth/signin")
    expect((await act(stranger, "/account/delete")).status).toBe(401)
  })
})

describe("the password change, whose current password is its step-up", () => {
  it("a cross-site post (a foreign Origin, no CSRF pair) with the right current password changes nothing and marks nothing", async () => {
    const { thief } = await stolenSession()
    const response = await thief.request("/auth/password/change", {
      form: { currentPassword: ada.password, password: "mallory's chosen passphrase", callbackUrl: "/account" },
      headers: { origin: "https://evil.example" },
    })
    expect(response.headers.get("location") ?? "").not.toBe(`${app!.origin}/account`)
    expect((await signIn(app!.browser(), "mallory's chosen passphrase")).headers.get("location")).toContain("error=")
    expect((await act(thief, "/account/delete")).status).toBe(403)
  })

  it("wrong current passwords mark nothing, and count in the sign-in's lockout", async () => {
    const { thief } = await stolenSession()
    for (let i = 0; i < 5; i++) {
      const csrfToken = await thief.csrfToken()
      const answer = await thief.request("/auth/password/change", { form: { csrfToken, currentPassword: `guess ${i}`, password: "mallory's chosen passphrase", callbackUrl: "/account" } })
      expect(new URL(answer.headers.get("location")!).searchParams.get("error")).toBe("PasswordMismatch")
    }
    expect((await act(thief, "/account/delete")).status).toBe(403)
    // The owner's own password sign-in is locked now: the guesses were counted with hers.
    expect(new URL((await signIn(app!.browser("192.0.2.200"))).headers.get("location")!).searchParams.get("error")).toBe("RateLimited")
  })
})

describe("the mark does not outlive its session", () => {
  it("revoking the laptop's session from the phone ends the thief's fresh copy of it", async () => {
    app = await stepUpApp({ session: { strategy: "database" } })
    const laptop = app.browser()
    await signIn(laptop)
    const thief = copyOf(laptop) // copied while fresh: it shares the mark, as documented
    expect((await act(thief, "/account/delete")).status).toBe(200)
    const phone = app.browser()
    await signIn(phone)
    const request = { origin: app.origin, headers: new Headers({ cookie: phone.cookieHeader(), origin: app.origin }), skipCSRF: true }
    const laptopId = (await listSessions(request, app.config)).find((s) => !s.current)!.id
    expect(await revokeSession({ ...request, id: laptopId }, app.config)).toBe(true)
    expect((await act(thief, "/account/delete")).status).toBe(401)
  })

  it("a password change from another session ends the thief's copy, mark and all", async () => {
    app = await stepUpApp({ session: { strategy: "database" } })
    const laptop = app.browser()
    await signIn(laptop)
    const thief = copyOf(laptop)
    const phone = app.browser()
    await signIn(phone)
    const csrfToken = await phone.csrfToken()
    await phone.request("/auth/password/change", { form: { csrfToken, currentPassword: ada.password, password: "ada's brand new passphrase here", callbackUrl: "/account" } })
    expect((await act(thief, "/account/delete")).status).toBe(401)
    expect((await act(phone, "/account/delete")).status).toBe(200)
  })
})
