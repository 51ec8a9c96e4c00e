/**
 * Attacks on passkeys (2026-11-27): a registration challenge carried from one session to
 * another (or to no session), a sign-up challenge finished while signed in, a
 * registration options response reused after success, another user's passkey presented
 * in a signed-in browser, counters rolled back, and challenge cookies from another
 * deployment. The authenticator is the software one from the WebAuthn tests; the app
 * answers through `Auth()` with the memory adapter.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { captureLogger, direct, SECRET } from "../../helpers.js"
import { SoftCredential } from "../../webauthn/soft-authenticator.js"
import { authenticators, expectRefused, ORIGIN, PasskeyBrowser } from "../../webauthn/support.js"

const log = captureLogger()

function setup(extra: Partial<AuthConfig> = {}) {
  const adapter = MemoryAdapter()
  const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, experimental: { enableWebAuthn: true }, providers: [Passkey], logger: log.logger, ...extra }
  return { adapter, config, browser: () => new PasskeyBrowser(direct(config), ORIGIN) }
}

/** Ada and Mallory, each signed up with a passkey and signed in, in their own browsers. */
async function twoUsers(extra: Partial<AuthConfig> = {}) {
  const env = setup(extra)
  const ada = { browser: env.browser(), key: new SoftCredential(ORIGIN, "localhost", { counting: true }) }
  const mallory = { browser: env.browser(), key: new SoftCredential(ORIGIN, "localhost") }
  expect((await ada.browser.register(ada.key, { email: "ada@example.com" })).status).toBe(302)
  expect((await mallory.browser.register(mallory.key, { email: "mallory@example.com" })).status).toBe(302)
  expect((await ada.browser.session()).user.email).toBe("ada@example.com")
  expect((await mallory.browser.session()).user.email).toBe("mallory@example.com")
  return { ...env, ada, mallory }
}

const challengeCookie = (b: PasskeyBrowser) => b.jar.get("authjs.challenge")!

describe("a registration challenge carried to another session", () => {
  it("Mallory's add-a-passkey challenge planted in Ada's signed-in browser: refused, Ada gets no passkey of Mallory's", async () => {
    const env = await twoUsers()
    const { body } = await env.mallory.browser.options()
    expect(body.action).toBe("register")
    const planted = new SoftCredential(ORIGIN, "localhost")
    const data = planted.register(body.options)
    env.ada.browser.jar.set("authjs.challenge", challengeCookie(env.mallory.browser))
    expectRefusedKeepingSession(await env.ada.browser.callback("register", data), env.ada.browser, "AccountNotLinked")
    expect((await authenticators(env.adapter, "ada@example.com")).map((a) => a.credentialID)).toEqual([env.ada.key.id.toString("base64")])
    expect(await env.adapter.getAuthenticator!(planted.id.toString("base64"))).toBeNull()
    expect((await env.ada.browser.session()).user.email).toBe("ada@example.com")
  })

  it("Ada's add-a-passkey challenge used in Mallory's browser with Mallory's new key: refused, no passkey added to Ada", async () => {
    const env = await twoUsers()
    const { body } = await env.ada.browser.options()
    expect(body.action).toBe("register")
    env.mallory.browser.jar.set("authjs.challenge", challengeCookie(env.ada.browser))
    const malloryKey = new SoftCredential(ORIGIN, "localhost")
    expectRefusedKeepingSession(await env.mallory.browser.callback("register", malloryKey.register(body.options)), env.mallory.browser, "AccountNotLinked")
    expect(await authenticators(env.adapter, "ada@example.com")).toHaveLength(1)
    expect(await env.adapter.getAuthenticator!(malloryKey.id.toString("base64"))).toBeNull()
  })

  it("Ada's add-a-passkey challenge finished in a signed-out browser: refused, nothing stored", async () => {
    const env = await twoUsers()
    const { body } = await env.ada.browser.options()
    const stranger = env.browser()
    stranger.jar.set("authjs.challenge", challengeCookie(env.ada.browser))
    const key = new SoftCredential(ORIGIN, "localhost")
    expectRefused(await stranger.callback("register", key.register(body.options)), stranger, "AccountNotLinked")
    expect(await authenticators(env.adapter, "ada@example.com")).toHaveLength(1)
    expect(await env.adapter.getAuthenticator!(key.id.toString("base64"))).toBeNull()
  })

  it("Ada's challenge, finished after her browser switched to Mallory's session: refused", async () => {
    const env = await twoUsers()
    const b = env.ada.browser
    const { body } = await b.options()
    const saved = challengeCookie(b)
    // The shared computer: Ada signs out, Mallory signs in with her passkey here.
    await b.signOut()
    expect((await b.authenticate(env.mallory.key)).status).toBe(302)
    expect((await b.session()).user.email).toBe("mallory@example.com")
    b.jar.set("authjs.challenge", saved)
    const key = new SoftCredential(ORIGIN, "localhost")
    expectRefusedKeepingSession(await b.callback("register", key.register(body.options)), b, "AccountNotLinked")
    expect(await authenticators(env.adapter, "ada@example.com")).toHaveLength(1)
    expect(await authenticators(env.adapter, "mallory@example.com")).toHaveLength(1)
  })
})

describe("a sign-up challenge finished while signed in", () => {
  it("is refused: no new user for the address, no passkey on the signed-in user", async () => {
    const env = await twoUsers()
    const fresh = env.browser()
    const { body } = await fresh.options({ action: "register", email: "newcomer@example.com" })
    expect(body.action).toBe("register")
    env.ada.browser.jar.set("authjs.challenge", challengeCookie(fresh))
    const key = new SoftCredential(ORIGIN, "localhost")
    expectRefusedKeepingSession(await env.ada.browser.callback("register", key.register(body.options)), env.ada.browser, "AccountNotLinked")
    expect(await env.adapter.getUserByEmail!("newcomer@example.com")).toBeNull()
    expect(await authenticators(env.adapter, "ada@example.com")).toHaveLength(1)
  })

  it("a signed-in user naming another address in the options adds the passkey to herself, never creates that user", async () => {
    const env = await twoUsers()
    const { body } = await env.ada.browser.options({ email: "someone-else@example.com" })
    expect(body.action).toBe("register")
    const key = new SoftCredential(ORIGIN, "localhost")
    expect((await env.ada.browser.callback("register", key.register(body.options))).status).toBe(302)
    expect(await env.adapter.getUserByEmail!("someone-else@example.com")).toBeNull()
    expect(await authenticators(env.adapter, "ada@example.com")).toHaveLength(2)
    expect((await env.ada.browser.session()).user.email).toBe("ada@example.com")
  })
})

describe("registration options reused after success (T57)", () => {
  it("a second credential on the same options and cookie is refused, and not stored", async () => {
    const env = setup()
    const b = env.browser()
    const { body } = await b.options({ action: "register", email: "grace@example.com" })
    const cookie = challengeCookie(b)
    const first = new SoftCredential(ORIGIN, "localhost")
    expect((await b.callback("register", first.register(body.options))).status).toBe(302)
    const replayer = env.browser()
    replayer.jar.set("authjs.challenge", cookie)
    const second = new SoftCredential(ORIGIN, "localhost")
    expectRefused(await replayer.callback("register", second.register(body.options)), replayer)
    expect(await env.adapter.getAuthenticator!(second.id.toString("base64"))).toBeNull()
    expect(await authenticators(env.adapter, "grace@example.com")).toHaveLength(1)
  })

  it("the same sign-up options finished by two keys at once: exactly one registers", async () => {
    const env = setup()
    const b = env.browser()
    const { body } = await b.options({ action: "register", email: "race@example.com" })
    const cookie = challengeCookie(b)
    const keys = Array.from({ length: 10 }, () => new SoftCredential(ORIGIN, "localhost"))
    const responses = await Promise.all(
      keys.map(async (key) => {
        const c = env.browser()
        c.jar.set("authjs.challenge", cookie)
        await c.callback("register", key.register(body.options))
        return c.sessionCookie()
      }),
    )
    expect(responses.filter(Boolean)).toHaveLength(1)
    expect(await authenticators(env.adapter, "race@example.com")).toHaveLength(1)
  })
})

describe("another user's passkey in a signed-in browser", () => {
  it("Ada signed in, Mallory's passkey presented: refused as an unknown credential, Ada's session stays Ada's", async () => {
    const env = await twoUsers()
    const response = await env.ada.browser.authenticate(env.mallory.key)
    // The options of a signed-in user list only her credentials: Mallory's is "unknown".
    expectRefusedKeepingSession(response, env.ada.browser, "WebAuthnVerificationError")
    expect((await env.ada.browser.session()).user.email).toBe("ada@example.com")
  })
  it("a signed-in user without passkeys presenting Mallory's: AccountNotLinked, her session stays hers", async () => {
    const env = await twoUsers()
    const grace = await env.adapter.createUser!({ id: "user-grace", email: "grace@example.com", emailVerified: new Date() })
    await env.adapter.createSession!({ sessionToken: "grace-session-token", userId: grace.id, expires: new Date(Date.now() + 3_600_000) })
    const b = env.browser()
    b.jar.set("authjs.session-token", { value: "grace-session-token", attributes: {} })
    expect((await b.session()).user.email).toBe("grace@example.com")
    const { body } = await b.options({ action: "authenticate" })
    expect(body.options.allowCredentials ?? []).toEqual([])
    expectRefusedKeepingSession(await b.callback("authenticate", env.mallory.key.authenticate(body.options)), b, "AccountNotLinked")
    expect((await b.session()).user.email).toBe("grace@example.com")
    expect(await authenticators(env.adapter, "grace@example.com")).toEqual([])
  })
})

describe("counter rollback (T63)", () => {
  it.each([
    ["a lower count", 1],
    ["a count reset to zero", 0],
  ])("%s after the authenticator counted up is refused, and the stored counter stays", async (_what, counter) => {
    const env = setup()
    const b = env.browser()
    const key = new SoftCredential(ORIGIN, "localhost", { counting: true })
    await b.register(key, { email: "count@example.com" })
    await b.signOut()
    expect((await b.authenticate(key)).status).toBe(302)
    expect((await b.authenticate(key)).status).toBe(302)
    const stored = (await authenticators(env.adapter, "count@example.com"))[0]!.counter
    expect(stored).toBe(3)
    await b.signOut()
    expectRefused(await b.authenticate(key, {}, { counter }), b)
    expect((await authenticators(env.adapter, "count@example.com"))[0]!.counter).toBe(stored)
  })
})

describe("challenge cookies from another deployment", () => {
  it("a challenge sealed under another secret does not open, even with the same adapter", async () => {
    const env = setup()
    const other: AuthConfig = { ...env.config, secret: "another-deployment-secret-of-32-chars!" }
    const there = new PasskeyBrowser(direct(other), ORIGIN)
    const { body } = await there.options({ action: "register", email: "tenant@example.com" })
    const here = env.browser()
    here.jar.set("authjs.challenge", challengeCookie(there))
    expectRefused(await here.callback("register", new SoftCredential(ORIGIN, "localhost").register(body.options)), here)
    expect(await env.adapter.getUserByEmail!("tenant@example.com")).toBeNull()
  })
})

describe("the callback by GET", () => {
  it("is not a way in: 405 or a refusal, never a session", async () => {
    const env = setup()
    const b = env.browser()
    const response = await b.request("/auth/callback/passkey?action=authenticate&data=%7B%7D")
    expect(response.status === 405 || response.status === 302).toBe(true)
    expect(b.sessionCookie()).toBeUndefined()
  })
})

/** A refusal that leaves the browser's existing session as it was. */
function expectRefusedKeepingSession(response: Response, browser: PasskeyBrowser, code: string) {
  expect(response.status).toBe(302)
  const url = new URL(response.headers.get("location")!)
  expect(url.pathname).toBe("/auth/signin")
  expect(url.searchParams.get("error")).toBe(code)
  expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=") && !/Max-Age=0/i.test(c))).toBe(false)
  expect(browser.sessionCookie()).toBeDefined()
}

void SECRET
