/**
 * Flow tests for the two presets whose providers need special token or profile handling and
 * had none yet (issue #15 item 3): Apple (form_post callback, a JWT client secret, the
 * first-sign-in `user` field, string booleans in the id_token) and X (PKCE required, HTTP
 * Basic client authentication, the user under `data`).
 *
 * Sign in with Apple and X's API cannot be reached from the test environment, so loopback
 * servers shaped like them stand in (`apple-twitter-fixtures/servers.ts`), and each sign-in
 * is driven through `Auth()` from the start to a session with the `Browser` cookie jar.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import Apple from "@portcullis/core/providers/apple"
import Twitter from "@portcullis/core/providers/twitter"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { generateKeyPair } from "jose"
import { Browser, direct, SECRET } from "../helpers.js"
import { checkCookies, expectFailedClosed, location, recordWrites, startSignIn } from "../oauth/flow.js"
import { appleUser, parseAutoSubmit, startAppleServer, startXServer, xUser, type AppleServer, type XServer } from "./apple-twitter-fixtures/servers.js"

type AnyConfig = OAuthConfig<any>

function flowConfig(provider: AnyConfig, extra: Partial<AuthConfig> = {}): AuthConfig {
  return { secret: SECRET, trustHost: true, providers: [provider], ...extra }
}

// ---------------------------------------------------------------------------------------
// Apple

describe("apple: flow against a Sign in with Apple-shaped server", () => {
  let apple: AppleServer
  beforeAll(async () => {
    apple = await startAppleServer()
  })
  afterAll(() => apple.close())
  beforeEach(() => {
    apple.forgetConsent()
    apple.behaviour.claims = undefined
    apple.log.length = 0
  })

  async function provider(extra: Record<string, unknown> = {}) {
    return Apple({ issuer: apple.issuer, clientId: apple.clientId, clientSecret: await apple.clientSecret(), allowInsecureLoopback: true, ...extra })
  }

  /** Start → Apple's authorize page → the form it would auto-submit (not yet posted). */
  async function toApple(browser: Browser, callbackUrl?: string) {
    const authorize = location(await startSignIn(browser, "apple", { callbackUrl }))
    const page = await fetch(authorize, { redirect: "manual" })
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toMatch(/^text\/html/)
    return { authorize, ...parseAutoSubmit(await page.text()) }
  }

  /** The cross-site POST Apple's page makes to the callback: no CSRF token, Apple's origin. */
  function post(browser: Browser, action: URL, fields: Record<string, string>) {
    return browser.request(action.pathname, { form: fields, headers: { origin: apple.issuer, "sec-fetch-site": "cross-site" } })
  }

  it("first sign-in: form_post with SameSite=None checks, JWT client secret, name from the user field", async () => {
    const { adapter, writes } = recordWrites(MemoryAdapter())
    const browser = new Browser(direct(flowConfig(await provider(), { adapter })))
    const { authorize, action, fields } = await toApple(browser, "/account")

    expect(authorize.origin + authorize.pathname).toBe(`${apple.issuer}/auth/authorize`)
    expect(authorize.searchParams.get("response_mode")).toBe("form_post")
    expect(authorize.searchParams.get("scope")!.split(" ").sort()).toEqual(["email", "name", "openid"])
    expect(authorize.searchParams.get("nonce")).toBeTruthy()
    expect(authorize.searchParams.get("state")).toBeTruthy()
    // Apple does not document PKCE for the web flow: the preset checks nonce and state.
    expect(authorize.searchParams.has("code_challenge")).toBe(false)
    const set = Object.fromEntries(browser.lastSetCookies.map((c) => [c.name, c.attributes]))
    for (const name of ["authjs.state", "authjs.nonce"]) {
      expect(set[name]!.samesite).toBe("None")
      expect(set[name]!.secure).toBe(true)
    }

    expect(action.href).toBe("http://localhost:3000/auth/callback/apple")
    expect(Object.keys(fields).sort()).toEqual(["code", "state", "user"])
    const response = await post(browser, action, fields)
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("http://localhost:3000/account")
    for (const name of checkCookies) expect(browser.jar.has(name)).toBe(false)

    const session = await browser.session()
    expect(session.user).toMatchObject({ name: "Ada Lovelace", email: appleUser.email })
    const user = await adapter.getUserByAccount!({ provider: "apple", providerAccountId: appleUser.sub })
    expect(user).toMatchObject({ name: "Ada Lovelace", email: appleUser.email })
    expect(writes).toContain("createUser")

    // client_secret_post with the app-signed JWT; nothing in an Authorization header.
    const token = apple.log.find((r) => r.path === "/auth/token")!
    expect(token.headers.authorization).toBeUndefined()
    expect(token.body.get("client_id")).toBe(apple.clientId)
    expect(token.body.get("client_secret")!.split(".")).toHaveLength(3)
    expect(token.body.get("redirect_uri")).toBe("http://localhost:3000/auth/callback/apple")
  })

  it("a second sign-in (Apple posts no user field) signs the same user in and keeps the name", async () => {
    const adapter = MemoryAdapter()
    const config = flowConfig(await provider(), { adapter })
    const first = new Browser(direct(config))
    const one = await toApple(first, "/account")
    await post(first, one.action, one.fields)
    const firstUser = (await first.session()).user

    const second = new Browser(direct(config))
    const two = await toApple(second, "/account")
    expect(Object.keys(two.fields).sort()).toEqual(["code", "state"])
    const response = await post(second, two.action, two.fields)
    expect(response.headers.get("location")).toBe("http://localhost:3000/account")
    const session = await second.session()
    expect(session.user).toEqual(firstUser)
    expect(session.user).toMatchObject({ name: "Ada Lovelace", email: appleUser.email })
    const user = await adapter.getUserByAccount!({ provider: "apple", providerAccountId: appleUser.sub })
    expect(user).toMatchObject({ name: "Ada Lovelace", email: appleUser.email })
  })

  it("a second sign-in without an adapter works too: same stateless id, no name", async () => {
    const tokens: unknown[] = []
    const config = flowConfig(await provider(), {
      callbacks: {
        jwt({ token, account, trigger }) {
          if (trigger === "signIn") tokens.push({ sub: token.sub, providerAccountId: account?.providerAccountId })
          return token
        },
      },
    })
    for (const expectUserField of [true, false]) {
      const browser = new Browser(direct(config))
      const { action, fields } = await toApple(browser, "/account")
      expect("user" in fields).toBe(expectUserField)
      expect((await post(browser, action, fields)).headers.get("location")).toBe("http://localhost:3000/account")
    }
    expect(tokens).toEqual([
      { sub: `apple:${appleUser.sub}`, providerAccountId: appleUser.sub },
      { sub: `apple:${appleUser.sub}`, providerAccountId: appleUser.sub },
    ])
  })

  it("a tampered user field can change the display name only, never the id or the email", async () => {
    const adapter = MemoryAdapter()
    const browser = new Browser(direct(flowConfig(await provider(), { adapter })))
    const { action, fields } = await toApple(browser)
    const forged = JSON.stringify({ name: { firstName: "Mallory", lastName: { toString: "x" } }, email: "victim@example.com", sub: "000000.victim.0000", id: "victim" })
    await post(browser, action, { ...fields, user: forged })
    const session = await browser.session()
    expect(session.user.email).toBe(appleUser.email)
    expect(session.user.name).toBe("Mallory")
    expect(await adapter.getUserByEmail!("victim@example.com")).toBeNull()
    const user = await adapter.getUserByAccount!({ provider: "apple", providerAccountId: appleUser.sub })
    expect(user).toMatchObject({ email: appleUser.email })
    expect(await adapter.getUserByAccount!({ provider: "apple", providerAccountId: "000000.victim.0000" })).toBeNull()
  })

  it("a user field nested deeper than 32 levels is ignored (it reaches the app's callbacks), and the sign-in goes on", async () => {
    const profiles: unknown[] = []
    const adapter = MemoryAdapter()
    const browser = new Browser(direct(flowConfig(await provider(), { adapter, callbacks: { signIn: ({ profile }) => (profiles.push(profile), true) } })))
    const { action, fields } = await toApple(browser)
    const deep = `{"name":${"[".repeat(5000)}${"]".repeat(5000)}}`
    await post(browser, action, { ...fields, user: deep })
    const session = await browser.session()
    expect(session.user.email).toBe(appleUser.email)
    expect(profiles).toHaveLength(1)
    expect((profiles[0] as { user?: unknown }).user).toBeUndefined()
    expect(() => JSON.stringify(profiles[0])).not.toThrow()
  })

  it("the user field's email is never used, even when the id_token has none", async () => {
    apple.behaviour.claims = ({ email: _e, email_verified: _v, is_private_email: _p, ...rest }) => rest
    const adapter = MemoryAdapter()
    const browser = new Browser(direct(flowConfig(await provider(), { adapter })))
    const { action, fields } = await toApple(browser)
    const user = JSON.parse(fields.user!) as Record<string, unknown>
    await post(browser, action, { ...fields, user: JSON.stringify({ ...user, email: "victim@example.com" }) })
    const session = await browser.session()
    expect(session.user.name).toBe("Ada Lovelace")
    expect(session.user.email ?? null).toBeNull()
    expect(await adapter.getUserByEmail!("victim@example.com")).toBeNull()
  })

  it("Apple's string booleans: email_verified \"false\" never links to an existing user", async () => {
    apple.behaviour.claims = (claims) => ({ ...claims, email_verified: "false" })
    const adapter = MemoryAdapter()
    await adapter.createUser!({ id: "owner", email: appleUser.email, emailVerified: new Date(), name: "Owner" })
    const browser = new Browser(direct(flowConfig(await provider({ allowDangerousEmailAccountLinking: true }), { adapter })))
    const { action, fields } = await toApple(browser)
    expectFailedClosed(browser, await post(browser, action, fields), "signin", "OAuthAccountNotLinked")
    expect(await adapter.getUserByAccount!({ provider: "apple", providerAccountId: appleUser.sub })).toBeNull()
  })

  it("Apple's string booleans: email_verified \"true\" counts as verified (new users stored verified; linking allowed where configured)", async () => {
    const adapter = MemoryAdapter()
    const browser = new Browser(direct(flowConfig(await provider(), { adapter })))
    const { action, fields } = await toApple(browser)
    await post(browser, action, fields)
    const stored = await adapter.getUserByEmail!(appleUser.email)
    expect(stored?.emailVerified).toBeInstanceOf(Date)

    const linking = MemoryAdapter()
    await linking.createUser!({ id: "owner", email: appleUser.email, emailVerified: new Date(), name: "Owner" })
    const second = new Browser(direct(flowConfig(await provider({ allowDangerousEmailAccountLinking: true }), { adapter: linking })))
    const started = await toApple(second)
    await post(second, started.action, started.fields)
    expect((await linking.getUserByAccount!({ provider: "apple", providerAccountId: appleUser.sub }))?.id).toBe("owner")
  })

  describe("fails closed", () => {
    it("without the state field", async () => {
      const { adapter, writes } = recordWrites(MemoryAdapter())
      const browser = new Browser(direct(flowConfig(await provider(), { adapter })))
      const { action, fields } = await toApple(browser)
      const { state: _, ...rest } = fields
      expectFailedClosed(browser, await post(browser, action, rest), "error", "Configuration")
      expect(writes).toEqual([])
      expect(apple.log.some((r) => r.path === "/auth/token")).toBe(false)
    })

    it("with another sign-in's state", async () => {
      const browser = new Browser(direct(flowConfig(await provider())))
      const { action, fields } = await toApple(browser)
      const other = await toApple(new Browser(browser.transport))
      expectFailedClosed(browser, await post(browser, action, { ...fields, state: other.fields.state! }), "error", "Configuration")
    })

    it("without the nonce cookie (a browser that dropped it)", async () => {
      const { adapter, writes } = recordWrites(MemoryAdapter())
      const browser = new Browser(direct(flowConfig(await provider(), { adapter })))
      const { action, fields } = await toApple(browser)
      browser.jar.delete("authjs.nonce")
      expectFailedClosed(browser, await post(browser, action, fields), "error", "Configuration")
      expect(writes).toEqual([])
    })

    it("when the id_token has no nonce, or another one", async () => {
      // As the core reports them: a missing nonce is a malformed id_token, another one a failed check.
      const cases = [
        { claims: ({ nonce: _, ...rest }: Record<string, unknown>) => rest, page: "signin", code: "OAuthCallbackError" },
        { claims: (c: Record<string, unknown>) => ({ ...c, nonce: "a-nonce-from-another-sign-in" }), page: "error", code: "Configuration" },
      ] as const
      for (const { claims, page, code } of cases) {
        apple.behaviour.claims = claims
        const { adapter, writes } = recordWrites(MemoryAdapter())
        const browser = new Browser(direct(flowConfig(await provider(), { adapter })))
        const { action, fields } = await toApple(browser)
        expectFailedClosed(browser, await post(browser, action, fields), page, code)
        expect(writes).toEqual([])
      }
    })

    it("when the callback comes as a GET (the code must arrive in the POST body)", async () => {
      const browser = new Browser(direct(flowConfig(await provider())))
      const { action, fields } = await toApple(browser)
      const response = await browser.request(`${action.pathname}?${new URLSearchParams(fields)}`)
      expect(response.status).toBe(405)
      expect(browser.sessionCookie()).toBeUndefined()
    })

    it("when Apple refuses the client secret: a plain string, another team, another Services ID, another key, or too long a life", async () => {
      const { privateKey: stranger } = await generateKeyPair("ES256")
      const secrets = [
        "not-a-jwt",
        await apple.clientSecret({ iss: "Z9Y8X7W6V5" }),
        await apple.clientSecret({ sub: "com.example.other" }),
        await apple.clientSecret({ aud: "https://example.com" }),
        await apple.clientSecret({ key: stranger }),
        await apple.clientSecret({ lifetime: 200 * 86400 }),
      ]
      for (const clientSecret of secrets) {
        const browser = new Browser(direct(flowConfig(await provider({ clientSecret }))))
        const { action, fields } = await toApple(browser)
        expectFailedClosed(browser, await post(browser, action, fields), "signin", "OAuthCallbackError")
      }
      const refusals = apple.log.filter((r) => r.path === "/auth/token")
      expect(refusals).toHaveLength(secrets.length)
    })
  })
})

// ---------------------------------------------------------------------------------------
// X

describe("twitter: flow against an X-shaped OAuth 2.0 server", () => {
  let x: XServer
  beforeAll(async () => {
    x = await startXServer()
  })
  afterAll(() => x.close())
  beforeEach(() => {
    x.log.length = 0
  })

  function provider(extra: Record<string, unknown> = {}) {
    return Twitter({
      clientId: x.clientId,
      clientSecret: x.clientSecret,
      authorization: { url: `${x.baseUrl}/i/oauth2/authorize` },
      token: `${x.baseUrl}/2/oauth2/token`,
      userinfo: { url: `${x.baseUrl}/2/users/me?user.fields=profile_image_url` },
      allowInsecureLoopback: true,
      ...extra,
    })
  }

  async function throughX(browser: Browser, authorize: URL): Promise<Response> {
    const back = await fetch(authorize, { redirect: "manual" })
    expect(back.status).toBe(302)
    const callback = new URL(back.headers.get("location")!)
    return browser.request(callback.pathname + callback.search)
  }

  it("signs in: PKCE S256 and state, Basic client auth, the user from /2/users/me; no email", async () => {
    const tokens: unknown[] = []
    const adapter = MemoryAdapter()
    const config = flowConfig(provider(), {
      adapter,
      session: { strategy: "jwt" },
      callbacks: {
        jwt({ token, account, trigger }) {
          if (trigger === "signIn" || trigger === "signUp") tokens.push({ sub: token.sub, trigger, account })
          return token
        },
      },
    })
    const browser = new Browser(direct(config))
    const authorize = location(await startSignIn(browser, "twitter", { callbackUrl: "/timeline" }))
    expect(authorize.origin + authorize.pathname).toBe(`${x.baseUrl}/i/oauth2/authorize`)
    expect(authorize.searchParams.get("scope")).toBe("users.read tweet.read offline.access")
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256")
    expect(authorize.searchParams.get("state")).toBeTruthy()

    const response = await throughX(browser, authorize)
    expect(response.headers.get("location")).toBe("http://localhost:3000/timeline")
    for (const name of checkCookies) expect(browser.jar.has(name)).toBe(false)

    const session = await browser.session()
    expect(session.user).toEqual({ name: xUser.name, email: null, image: xUser.profile_image_url })
    const user = await adapter.getUserByAccount!({ provider: "twitter", providerAccountId: xUser.id })
    expect(user).toMatchObject({ name: xUser.name, email: null, image: xUser.profile_image_url })
    expect(tokens).toEqual([{ sub: user!.id, trigger: "signUp", account: expect.objectContaining({ provider: "twitter", type: "oauth", providerAccountId: xUser.id, token_type: "bearer", scope: "users.read tweet.read offline.access" }) }])
    expect(await adapter.getAccount!(xUser.id, "twitter")).toMatchObject({ refresh_token: expect.any(String) })

    const token = x.log.find((r) => r.path === "/2/oauth2/token")!
    expect(token.headers.authorization).toMatch(/^Basic /)
    expect(token.body.get("client_secret")).toBeNull()
    expect(token.body.get("code_verifier")).toBeTruthy()
    const me = x.log.find((r) => r.path === "/2/users/me")!
    expect(me.query.get("user.fields")).toBe("profile_image_url")
    expect(me.headers.authorization).toMatch(/^Bearer /)
  })

  it("a wrong code_verifier fails closed (X refuses the exchange)", async () => {
    const { adapter, writes } = recordWrites(MemoryAdapter())
    const config = flowConfig(provider(), { adapter })
    const browser = new Browser(direct(config))
    const authorize = location(await startSignIn(browser, "twitter"))
    // Another sign-in's verifier: a valid cookie for this provider, the wrong secret for this code.
    const other = new Browser(browser.transport)
    await startSignIn(other, "twitter")
    browser.jar.set("authjs.pkce.code_verifier", other.jar.get("authjs.pkce.code_verifier")!)

    expectFailedClosed(browser, await throughX(browser, authorize), "signin", "OAuthCallbackError")
    expect(writes).toEqual([])
    expect(x.log.filter((r) => r.path === "/2/oauth2/token")).toHaveLength(1)
    expect(x.log.some((r) => r.path === "/2/users/me")).toBe(false)
  })

  it("without PKCE or without state X refuses the authorization request", async () => {
    for (const checks of [["state"], ["pkce"]]) {
      const browser = new Browser(direct(flowConfig(provider({ checks }))))
      const authorize = location(await startSignIn(browser, "twitter"))
      expect((await fetch(authorize, { redirect: "manual" })).status).toBe(400)
    }
  })

  it("the wrong client secret is refused at the token endpoint", async () => {
    const browser = new Browser(direct(flowConfig(provider({ clientSecret: "not-the-secret" }))))
    const authorize = location(await startSignIn(browser, "twitter"))
    expectFailedClosed(browser, await throughX(browser, authorize), "signin", "OAuthCallbackError")
  })
})
