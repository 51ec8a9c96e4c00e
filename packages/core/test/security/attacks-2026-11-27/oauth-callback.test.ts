/**
 * Attacks on the OAuth/OIDC callback (2026-11-27): mix-up between two providers of one
 * app, login CSRF that would link the attacker's provider account to a signed-in victim,
 * code injection into the attacker's own flow, check cookies carried to another
 * configuration, hostile `error=` values, hostile `callbackUrl`s through the whole round
 * trip, and redirect-proxy states that must not bounce.
 *
 * The providers are `FakeOP`s, real OpenID providers on loopback ports; the app runs in
 * process through `Auth()`. Every refusal is checked to end closed: a redirect carrying
 * only the error code, no session cookie, no check cookie left, nothing written.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, captureLogger, direct, SECRET } from "../../helpers.js"
import { FakeOP } from "../../oauth/fixtures/fake-op.js"
import { atProvider, deliver, expectFailedClosed, location, PREVIEW, PROXY, proxiedDeployment, recordWrites, signInThrough, startSignIn } from "../../oauth/flow.js"

const ORIGIN = "http://localhost:3000"
const log = captureLogger()
const alice = { sub: "user-1", email: "alice@example.com", email_verified: true, name: "Alice" }
const mallory = { sub: "mallory-1", email: "mallory@example.com", email_verified: true, name: "Mallory" }

let honest: FakeOP
let hostile: FakeOP
beforeAll(async () => {
  honest = await FakeOP.start()
  hostile = await FakeOP.start()
})
afterAll(async () => {
  await honest.close()
  await hostile.close()
})
beforeEach(() => {
  for (const op of [honest, hostile]) {
    op.reset()
    op.user = { ...alice }
  }
})
afterEach(() => {
  vi.useRealTimers()
})

function oidc(op: FakeOP, id: string, extra: Partial<OAuthConfig<any>> = {}): OAuthConfig<any> {
  return { id, name: id, type: "oidc", issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowInsecureLoopback: true, ...extra } as OAuthConfig<any>
}

/** An app with the honest provider `alpha` and the attacker's provider `beta`, database sessions. */
function twoProviders(extra: Partial<AuthConfig> = {}) {
  const memory = MemoryAdapter()
  const { adapter, writes } = recordWrites(memory)
  const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, providers: [oidc(honest, "alpha"), oidc(hostile, "beta")], logger: log.logger, ...extra }
  return { config, memory, writes, browser: () => new Browser(direct(config), ORIGIN) }
}

/** The authorization request the attacker's provider forwards to the honest one, as its own. */
function forwarded(request: URL, to: FakeOP, redirectUri: string): URL {
  const url = new URL(`${to.issuer}/authorize`)
  for (const [k, v] of request.searchParams) url.searchParams.set(k, v)
  url.searchParams.set("client_id", to.clientId)
  url.searchParams.set("redirect_uri", redirectUri)
  return url
}

describe("mix-up: the attacker's provider forwards the victim to the honest provider (T06, T10)", () => {
  it("the honest code, back at the honest callback with the attacker-provider's check cookies, is refused and never redeemed", async () => {
    const { browser, writes } = twoProviders()
    const victim = browser()
    const toHostile = location(await startSignIn(victim, "beta"))
    expect(toHostile.origin).toBe(hostile.issuer)
    // beta answers by sending the browser on to alpha with the same state, nonce and challenge.
    const back = await atProvider(forwarded(toHostile, honest, `${ORIGIN}/auth/callback/alpha`))
    expect(back.pathname).toBe("/auth/callback/alpha")
    expectFailedClosed(victim, await deliver(victim, back), "error", "Configuration")
    expect(honest.requests("/token")).toHaveLength(0)
    expect(hostile.requests("/token")).toHaveLength(0)
    expect(writes).toEqual([])
    expect(await victim.session()).toBeNull()
  })

  it("the honest code sent to the attacker provider's callback is refused on the iss before the attacker's token endpoint sees it", async () => {
    const { browser, writes } = twoProviders()
    const victim = browser()
    const toHostile = location(await startSignIn(victim, "beta"))
    // A lenient honest provider accepting the other redirect URI: the code, with alpha's iss, lands on beta's callback.
    const back = await atProvider(forwarded(toHostile, honest, `${ORIGIN}/auth/callback/beta`))
    expect(back.pathname).toBe("/auth/callback/beta")
    expect(back.searchParams.get("iss")).toBe(honest.issuer)
    expectFailedClosed(victim, await deliver(victim, back), "signin", "OAuthCallbackError")
    // Neither the code nor the PKCE verifier reached the attacker.
    expect(hostile.requests("/token")).toHaveLength(0)
    expect(writes).toEqual([])
  })

  it("the same, when the attacker's discovery does not advertise RFC 9207: a present iss is still compared", async () => {
    hostile.behaviour.discovery = ({ authorization_response_iss_parameter_supported: _, ...doc }) => doc
    const { browser, writes } = twoProviders()
    const victim = browser()
    const toHostile = location(await startSignIn(victim, "beta"))
    const back = await atProvider(forwarded(toHostile, honest, `${ORIGIN}/auth/callback/beta`))
    expectFailedClosed(victim, await deliver(victim, back), "signin", "OAuthCallbackError")
    expect(hostile.requests("/token")).toHaveLength(0)
    expect(writes).toEqual([])
  })

  it("the attacker's provider naming the honest issuer in its own id_token is refused", async () => {
    hostile.behaviour.claims = (c) => ({ ...c, iss: honest.issuer })
    const { browser, writes } = twoProviders()
    const victim = browser()
    expectFailedClosed(victim, await signInThrough(victim, "beta"), "signin", "OAuthCallbackError")
    expect(writes).toEqual([])
  })
})

describe("login CSRF: the attacker's finished authorization delivered into the victim's browser", () => {
  async function signedInVictim() {
    const app = twoProviders()
    const victim = app.browser()
    expect((await signInThrough(victim, "alpha")).headers.get("location")).toBe(ORIGIN)
    const aliceUser = await app.memory.getUserByEmail!("alice@example.com")
    expect((await victim.session()).user.email).toBe("alice@example.com")
    app.writes.length = 0
    return { ...app, victim, aliceUser: aliceUser! }
  }

  /** Mallory runs alpha's flow in her own browser up to the callback, and keeps its URL. */
  async function malloryCallback(app: ReturnType<typeof twoProviders>): Promise<URL> {
    honest.user = { ...mallory }
    const attacker = app.browser()
    return atProvider(location(await startSignIn(attacker, "alpha")))
  }

  it("a signed-in victim without check cookies: refused, Mallory's account is not linked to Alice", async () => {
    const app = await signedInVictim()
    const callback = await malloryCallback(app)
    const response = await deliver(app.victim, callback)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(app.writes).toEqual([])
    expect(await app.memory.getUserByAccount!({ provider: "alpha", providerAccountId: mallory.sub })).toBeNull()
    expect((await app.victim.session()).user.email).toBe("alice@example.com")
  })

  it("a signed-in victim with a sign-in of her own pending: refused, her pending checks are spent, nothing linked", async () => {
    const app = await signedInVictim()
    location(await startSignIn(app.victim, "alpha"))
    expect(app.victim.jar.has("authjs.state")).toBe(true)
    const callback = await malloryCallback(app)
    const response = await deliver(app.victim, callback)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    for (const name of ["authjs.state", "authjs.pkce.code_verifier", "authjs.nonce"]) expect(app.victim.jar.has(name)).toBe(false)
    expect(app.writes).toEqual([])
    expect(await app.memory.getUserByAccount!({ provider: "alpha", providerAccountId: mallory.sub })).toBeNull()
    expect((await app.victim.session()).user.email).toBe("alice@example.com")
  })

  it("a signed-out victim: refused, no session as Mallory", async () => {
    const app = twoProviders()
    const victim = app.browser()
    const callback = await malloryCallback(app)
    expectFailedClosed(victim, await deliver(victim, callback), "error", "Configuration")
    expect(app.writes).toEqual([])
  })

  it("GET /signin/:provider (a link or an <img>) starts nothing: no check cookies, no trip to the provider", async () => {
    const app = twoProviders()
    const victim = app.browser()
    const response = await victim.request("/auth/signin/alpha")
    expect(response.headers.get("location") ?? "").not.toContain(honest.issuer)
    for (const name of ["authjs.state", "authjs.pkce.code_verifier", "authjs.nonce"]) expect(victim.jar.has(name)).toBe(false)
    expect(honest.requests("/.well-known/openid-configuration")).toHaveLength(0)
  })
})

describe("account linking off: an OAuth profile with the victim's address", () => {
  async function victimApp() {
    const app = twoProviders()
    const victim = await app.memory.createUser!({ id: "user-alice", email: "alice@example.com", emailVerified: new Date(), name: "Alice" })
    app.writes.length = 0
    return { ...app, victim }
  }

  it.each([
    ["vouched for", true],
    ["not vouched for", false],
  ])("the exact address, %s: OAuthAccountNotLinked, nothing written", async (_what, verified) => {
    const app = await victimApp()
    hostile.user = { ...mallory, email: "alice@example.com", email_verified: verified }
    const attacker = app.browser()
    expectFailedClosed(attacker, await signInThrough(attacker, "beta"), "signin", "OAuthAccountNotLinked")
    expect(app.writes).toEqual([])
    expect(await app.memory.getUserByAccount!({ provider: "beta", providerAccountId: mallory.sub })).toBeNull()
  })

  it.each(["ALICE@EXAMPLE.COM", "Alice@Example.com"])("the address in another case %j: OAuthAccountNotLinked too", async (spelling) => {
    const app = await victimApp()
    hostile.user = { ...mallory, email: spelling, email_verified: true }
    const attacker = app.browser()
    expectFailedClosed(attacker, await signInThrough(attacker, "beta"), "signin", "OAuthAccountNotLinked")
    expect(app.writes).toEqual([])
  })

  it.each([" alice@example.com", "alice@example.com ", "alice@example.com\u200b", "ａlice@example.com"])("a look-alike %j never signs in as the victim or links to her", async (spelling) => {
    const app = await victimApp()
    hostile.user = { ...mallory, email: spelling, email_verified: false }
    const attacker = app.browser()
    await signInThrough(attacker, "beta")
    const session = await attacker.session()
    if (session) {
      const linked = await app.memory.getUserByAccount!({ provider: "beta", providerAccountId: mallory.sub })
      expect(linked!.id).not.toBe(app.victim.id)
    }
    expect((await app.memory.getUserByAccount!({ provider: "beta", providerAccountId: mallory.sub }))?.id).not.toBe(app.victim.id)
    expect(await app.memory.getUser!(app.victim.id)).toMatchObject({ email: "alice@example.com" })
  })
})

describe("code injection: the victim's stolen code inside the attacker's own flow", () => {
  async function injected(providerExtra: Partial<OAuthConfig<any>>) {
    const { adapter, writes } = recordWrites(MemoryAdapter())
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, providers: [oidc(honest, "alpha", providerExtra)], logger: log.logger }
    const victim = new Browser(direct(config), ORIGIN)
    const attacker = new Browser(direct(config), ORIGIN)
    // The victim's authorization, its code leaked (a log, a Referer) before her browser used it.
    const stolen = (await atProvider(location(await startSignIn(victim, "alpha")))).searchParams.get("code")!
    honest.user = { ...mallory }
    const own = await atProvider(location(await startSignIn(attacker, "alpha")))
    own.searchParams.set("code", stolen)
    return { attacker, writes, response: await deliver(attacker, own) }
  }

  it("with PKCE (the default): the provider refuses the attacker's verifier, no session", async () => {
    const { attacker, writes, response } = await injected({})
    expectFailedClosed(attacker, response, "signin", "OAuthCallbackError")
    expect(writes).toEqual([])
    expect(await attacker.session()).toBeNull()
  })

  it("without PKCE but with a nonce: the id_token carries the victim's nonce, refused", async () => {
    const { attacker, writes, response } = await injected({ checks: ["state", "nonce"] })
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("Configuration")
    expect(response.headers.getSetCookie().some((c) => c.includes("session-token=") && !c.includes("Max-Age=0"))).toBe(false)
    expect(writes).toEqual([])
    expect(await attacker.session()).toBeNull()
  })
})

describe("one finished authorization delivered many times at once", () => {
  it("20 concurrent callbacks with the same cookies and code give exactly one session and one user", async () => {
    const { browser, writes } = twoProviders()
    const victim = browser()
    const callback = await atProvider(location(await startSignIn(victim, "alpha")))
    const copies = Array.from({ length: 20 }, () => {
      const b = browser()
      for (const [k, v] of victim.jar) b.jar.set(k, v)
      return b
    })
    const responses = await Promise.all(copies.map((b) => deliver(b, callback)))
    const signedIn = responses.filter((r) => r.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=") && !/Max-Age=0/i.test(c)))
    expect(signedIn).toHaveLength(1)
    expect(writes.filter((w) => w === "createSession")).toHaveLength(1)
    expect(writes.filter((w) => w === "createUser")).toHaveLength(1)
  })
})

describe("check cookies carried to another configuration", () => {
  it("cookies sealed by a tenant with another secret do not open at a tenant with the same provider id", async () => {
    const tenantA: AuthConfig = { secret: "tenant-a-secret-that-is-at-least-32-chars", trustHost: true, adapter: MemoryAdapter(), providers: [oidc(honest, "alpha")], logger: log.logger }
    const b = recordWrites(MemoryAdapter())
    const tenantB: AuthConfig = { secret: SECRET, trustHost: true, adapter: b.adapter, providers: [oidc(honest, "alpha")], logger: log.logger }
    const inA = new Browser(direct(tenantA), ORIGIN)
    const callback = await atProvider(location(await startSignIn(inA, "alpha")))
    const inB = new Browser(direct(tenantB), ORIGIN)
    for (const [k, v] of inA.jar) inB.jar.set(k, v)
    expectFailedClosed(inB, await deliver(inB, callback), "error", "Configuration")
    expect(honest.requests("/token")).toHaveLength(0)
    expect(b.writes).toEqual([])
  })

  it("a sign-in started under one base path and finished under another configuration's (same secret, same provider id) is not redeemed", async () => {
    const user: AuthConfig = { secret: SECRET, trustHost: true, adapter: MemoryAdapter(), providers: [oidc(honest, "alpha")], logger: log.logger }
    const admin = recordWrites(MemoryAdapter())
    const adminConfig: AuthConfig = { ...user, adapter: admin.adapter, basePath: "/admin/auth" }
    const browser = new Browser(direct(user), ORIGIN)
    const callback = await atProvider(location(await startSignIn(browser, "alpha")))
    const inAdmin = new Browser(direct(adminConfig), ORIGIN)
    for (const [k, v] of browser.jar) inAdmin.jar.set(k, v)
    const response = await inAdmin.request(`/admin/auth/callback/alpha${callback.search}`)
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBeTruthy()
    expect(response.headers.getSetCookie().some((c) => c.includes("session-token=") && !/Max-Age=0/i.test(c))).toBe(false)
    expect(admin.writes).toEqual([])
  })

  it("a state cookie swapped into the PKCE cookie's place (same secret) does not open", async () => {
    const { browser, writes } = twoProviders()
    const victim = browser()
    const callback = await atProvider(location(await startSignIn(victim, "alpha")))
    victim.jar.set("authjs.pkce.code_verifier", victim.jar.get("authjs.state")!)
    expectFailedClosed(victim, await deliver(victim, callback), "error", "Configuration")
    expect(honest.requests("/token")).toHaveLength(0)
    expect(writes).toEqual([])
  })

  it("check cookies of an older attempt, mixed with the state of a newer one, do not sign in", async () => {
    const { browser, writes } = twoProviders()
    const victim = browser()
    await startSignIn(victim, "alpha")
    const older = new Map(victim.jar)
    const callback = await atProvider(location(await startSignIn(victim, "alpha")))
    // Keep the newer state cookie (it matches the callback), put back the older verifier and nonce.
    victim.jar.set("authjs.pkce.code_verifier", older.get("authjs.pkce.code_verifier")!)
    victim.jar.set("authjs.nonce", older.get("authjs.nonce")!)
    const response = await deliver(victim, callback)
    expectFailedClosed(victim, response, "signin", "OAuthCallbackError")
    expect(writes).toEqual([])
  })
})

describe("hostile error= values at the callback", () => {
  it.each([
    ["an error code of the app's own", "OAuthAccountNotLinked"],
    ["markup", "<img src=x onerror=alert(1)>"],
    ["a header break", "access_denied\r\nSet-Cookie: authjs.session-token=planted"],
    ["a redirect", "https://evil.example/"],
  ])("%s is mapped to a fixed code and never echoed", async (_what, error) => {
    const { browser, writes } = twoProviders()
    const victim = browser()
    const authorize = location(await startSignIn(victim, "alpha"))
    const callback = new URL(`${ORIGIN}/auth/callback/alpha`)
    callback.searchParams.set("error", error)
    callback.searchParams.set("error_description", error)
    callback.searchParams.set("state", authorize.searchParams.get("state")!)
    callback.searchParams.set("iss", honest.issuer)
    const response = await deliver(victim, callback)
    expectFailedClosed(victim, response, "signin", "OAuthCallbackError")
    expect(response.headers.get("location")).not.toContain("evil")
    expect(writes).toEqual([])
    const page = await (await victim.request(response.headers.get("location")!)).text()
    expect(page).not.toContain("onerror=alert")
    expect(page).not.toContain("planted")
  })
})

describe("callbackUrl through the whole OAuth round trip", () => {
  const hostileTargets = [
    "https://evil.example/",
    "//evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "%2F%2Fevil.example",
    "/%2F%2Fevil.example",
    "%5C%5Cevil.example",
    "https:%2F%2Fevil.example",
    "\t//evil.example",
    "/\t/evil.example",
    " //evil.example",
    "javascript:alert(document.cookie)",
    "java\nscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "http://localhost:3000@evil.example",
    "http://localhost:3000.evil.example/",
    "http://evil.example\\@localhost:3000",
    "/auth/../..//evil.example",
    "http://LOCALHOST:3000:80@evil.example",
  ]

  it.each(hostileTargets)("%j lands on the site", async (target) => {
    const { browser } = twoProviders()
    const victim = browser()
    const done = await signInThrough(victim, "alpha", { callbackUrl: target })
    expect(done.status).toBe(302)
    const landing = new URL(done.headers.get("location")!)
    expect(landing.origin).toBe(ORIGIN)
    expect(landing.href).not.toMatch(/^javascript:|^data:/i)
    expect((await victim.session()).user.email).toBe("alice@example.com")
  })

  it("a callbackUrl added to the provider's redirect by the attacker is held to the site too", async () => {
    const { browser } = twoProviders()
    const victim = browser()
    const callback = await atProvider(location(await startSignIn(victim, "alpha", { callbackUrl: "/dashboard" })))
    callback.searchParams.set("callbackUrl", "https://evil.example/")
    const done = await deliver(victim, callback)
    expect(new URL(done.headers.get("location")!).origin).toBe(ORIGIN)
  })
})

describe("redirect-proxy states that must not bounce", () => {
  const preview = (extra: Partial<AuthConfig> = {}) => proxiedDeployment(honest, { logger: log.logger, ...extra })

  it("a state sealed for one provider is not bounced from another provider's callback", async () => {
    const two = (): AuthConfig => ({ ...preview(), providers: [...preview().providers, oidc(honest, "other", {})] })
    const previewBrowser = new Browser(direct(two()), PREVIEW)
    const authorize = location(await startSignIn(previewBrowser, "fake"))
    const state = authorize.searchParams.get("state")!
    const proxy = new Browser(direct(two()), PROXY)
    const response = await proxy.request(`/auth/callback/other?code=abc&state=${encodeURIComponent(state)}&iss=${encodeURIComponent(honest.issuer)}`)
    const target = new URL(response.headers.get("location")!)
    expect(target.origin).toBe(PROXY)
    expect(target.searchParams.has("code")).toBe(false)
  })

  it("a state older than the 15-minute check lifetime is not bounced", async () => {
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true })
    const previewBrowser = new Browser(direct(preview()), PREVIEW)
    const authorize = location(await startSignIn(previewBrowser, "fake"))
    const atProxy = await atProvider(authorize)
    vi.setSystemTime(Date.now() + 16 * 60_000)
    const response = await new Browser(direct(preview()), PROXY).request(atProxy.pathname + atProxy.search)
    const target = new URL(response.headers.get("location")!)
    expect(target.origin).toBe(PROXY)
    expect(target.searchParams.has("code")).toBe(false)
  })

  it("a state sealed by a sibling deployment that shares the secret but trusts another origin is never bounced there", async () => {
    const EVIL = "https://evil.example"
    const sibling = new Browser(direct(preview({ trustedOrigins: [EVIL] })), EVIL)
    const authorize = location(await startSignIn(sibling, "fake"))
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${PROXY}/auth/callback/fake`)
    const atProxy = await atProvider(authorize)
    const response = await new Browser(direct(preview()), PROXY).request(atProxy.pathname + atProxy.search)
    expect(response.status).toBe(302)
    const target = new URL(response.headers.get("location")!)
    expect(target.origin).toBe(PROXY)
    expect(target.href).not.toContain(atProxy.searchParams.get("code")!)
  })

  it("extra parameters the attacker adds to the proxy callback cannot move the code off the preview", async () => {
    const previewBrowser = new Browser(direct(preview()), PREVIEW)
    const atProxy = await atProvider(location(await startSignIn(previewBrowser, "fake")))
    atProxy.searchParams.set("callbackUrl", "https://evil.example/")
    atProxy.searchParams.set("redirect_uri", "https://evil.example/auth/callback/fake")
    const bounce = await new Browser(direct(preview()), PROXY).request(atProxy.pathname + atProxy.search)
    const back = new URL(bounce.headers.get("location")!)
    expect(back.origin).toBe(PREVIEW)
    const done = await previewBrowser.request(back.pathname + back.search)
    expect(new URL(done.headers.get("location")!).origin).toBe(PREVIEW)
  })
})
