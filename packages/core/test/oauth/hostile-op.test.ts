/**
 * OAuth/OIDC against a hostile provider (issue 3; security checklist T01–T29, §2.4).
 *
 * The provider is `FakeOP`, a real HTTP server on a loopback port that can be told to
 * misbehave at every step. Every failure must end closed: the right `?error=` code and
 * nothing else in the URL, no session cookie, every check cookie deleted, nothing
 * written to the adapter, and (checked once at the end) no token material in the log.
 */
import { createHash } from "node:crypto"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, captureLogger, direct, SECRET } from "../helpers.js"
import { FakeOP } from "./fixtures/fake-op.js"
import { atProvider, checkCookies, deliver, expectFailedClosed, location, recordWrites, signInThrough, startSignIn } from "./flow.js"

let op: FakeOP
const log = captureLogger()
/** Every secret the flows produced, to grep the log for (T65). */
const secrets = new Set<string>()

beforeAll(async () => {
  op = await FakeOP.start()
})
afterAll(async () => {
  await op.close()
  const text = log.lines.join("\n")
  for (const secret of [...secrets, ...op.minted]) expect(text.includes(secret), "a secret reached the log").toBe(false)
  expect(log.lines.length).toBeGreaterThan(10)
})
beforeEach(() => op.reset())
afterEach(() => {
  for (const r of op.requests("/authorize")) for (const k of ["state", "nonce", "code_challenge"]) if (r.query.get(k)) secrets.add(r.query.get(k)!)
  for (const r of op.requests("/token")) for (const k of ["code", "code_verifier"]) if (r.body.get(k)) secrets.add(r.body.get(k)!)
})

function provider(extra: Partial<OAuthConfig<any>> = {}, id = "fake"): OAuthConfig<any> {
  return {
    id,
    name: "Fake OP",
    type: "oidc",
    issuer: op.issuer,
    clientId: op.clientId,
    clientSecret: op.clientSecret,
    allowInsecureLoopback: true,
    ...extra,
  } as OAuthConfig<any>
}

/** A fresh config (so discovery and key caches start empty) with a write-recording adapter. */
function setup(extra: Partial<OAuthConfig<any>> = {}, config: Partial<AuthConfig> = {}) {
  const { adapter, writes } = recordWrites(MemoryAdapter())
  const cfg: AuthConfig = { secret: SECRET, trustHost: true, adapter, providers: [provider(extra)], logger: log.logger, ...config }
  return { browser: new Browser(direct(cfg)), writes, config: cfg }
}

/** Runs a sign-in against the misbehaving OP and checks it failed closed with `code`. */
async function expectRejected(page: "signin" | "error", code: string, extra: Partial<OAuthConfig<any>> = {}) {
  const { browser, writes } = setup(extra)
  const response = await signInThrough(browser, "fake")
  expectFailedClosed(browser, response, page, code)
  expect(writes).toEqual([])
  expect(await browser.session()).toBeNull()
  return { browser, response }
}

describe("a well-behaved provider (baseline)", () => {
  it("signs in and stores the user and account", async () => {
    const { browser, writes } = setup()
    const response = await signInThrough(browser, "fake", { callbackUrl: "/dashboard" })
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("http://localhost:3000/dashboard")
    // T13: the code and state stay out of the final URL; no referrer, no caching.
    expect(response.headers.get("location")).not.toMatch(/code=|state=/)
    expect(response.headers.get("referrer-policy")).toBe("no-referrer")
    expect(response.headers.get("cache-control")).toContain("no-store")
    expect(writes).toEqual(["createUser", "linkAccount", "createSession"])
    const session = await browser.session()
    expect(session.user).toMatchObject({ name: "Alice", email: "alice@example.com", image: "https://img.example/alice.png" })
    for (const name of checkCookies) expect(browser.jar.has(name)).toBe(false)
  })

  it("T01/T04: state and nonce are long, random per attempt, in HttpOnly Lax cookies of at most 15 minutes", async () => {
    const { browser } = setup()
    const seen = new Set<string>()
    for (let i = 0; i < 20; i++) {
      const url = location(await startSignIn(browser, "fake"))
      for (const param of ["state", "nonce"]) {
        const value = url.searchParams.get(param)!
        expect(value.length).toBeGreaterThanOrEqual(43)
        expect(seen.has(value)).toBe(false)
        seen.add(value)
      }
      for (const name of checkCookies) {
        const cookie = browser.lastSetCookies.find((c) => c.name === name)!
        expect(cookie.attributes.httponly).toBe(true)
        expect(cookie.attributes.samesite).toBe("Lax")
        expect(Number(cookie.attributes["max-age"])).toBeLessThanOrEqual(900)
        // Sealed: the cookie never shows the value the provider sees.
        expect(cookie.value).not.toContain(url.searchParams.get("state")!)
        expect(cookie.value).not.toContain(url.searchParams.get("nonce")!)
      }
    }
  })

  it("T02/T05: PKCE S256 on every flow, scope with openid, the same redirect_uri at both endpoints", async () => {
    const { browser } = setup()
    const response = await signInThrough(browser, "fake")
    expect(response.status).toBe(302)
    const [authorize] = op.requests("/authorize")
    const [token] = op.requests("/token")
    expect(authorize!.query.get("code_challenge_method")).toBe("S256")
    const verifier = token!.body.get("code_verifier")!
    expect(verifier).toMatch(/^[A-Za-z0-9\-._~]{43,128}$/)
    expect(createHash("sha256").update(verifier).digest("base64url")).toBe(authorize!.query.get("code_challenge"))
    expect(authorize!.query.get("scope")!.split(" ")).toContain("openid")
    expect(token!.body.get("redirect_uri")).toBe(authorize!.query.get("redirect_uri"))
    expect(authorize!.query.get("redirect_uri")).toBe("http://localhost:3000/auth/callback/fake")
    // client_secret_basic by default: the secret is never in the body.
    expect(token!.headers.authorization).toMatch(/^Basic /)
    expect(token!.body.has("client_secret")).toBe(false)
  })

  it("T03: PKCE is sent even when discovery does not list code_challenge_methods_supported", async () => {
    op.behaviour.discovery = ({ code_challenge_methods_supported: _, ...doc }) => doc
    const { browser } = setup()
    const url = location(await startSignIn(browser, "fake"))
    expect(url.searchParams.get("code_challenge")).toBeTruthy()
    expect(url.searchParams.get("code_challenge_method")).toBe("S256")
  })

  it("passes the sign-in query on as authorization parameters, but never the ones it owns", async () => {
    const { browser } = setup()
    const query = "?login_hint=ada%40example.com&prompt=login&client_id=evil&redirect_uri=https%3A%2F%2Fevil.example&state=mine&nonce=mine&code_challenge=mine&response_type=token&response_mode=fragment&callbackUrl=%2Fx"
    const url = location(await startSignIn(browser, "fake", { query }))
    expect(url.searchParams.get("login_hint")).toBe("ada@example.com")
    expect(url.searchParams.get("prompt")).toBe("login")
    expect(url.searchParams.get("client_id")).toBe(op.clientId)
    expect(url.searchParams.get("redirect_uri")).toBe("http://localhost:3000/auth/callback/fake")
    expect(url.searchParams.get("response_type")).toBe("code")
    for (const name of ["state", "nonce", "code_challenge"]) expect(url.searchParams.get(name)).not.toBe("mine")
    expect(url.searchParams.has("response_mode")).toBe(false)
    expect(url.searchParams.has("callbackUrl")).toBe(false)
  })

  it("checks are configurable per provider", async () => {
    const { browser } = setup({ checks: ["state"] })
    const url = location(await startSignIn(browser, "fake"))
    expect(url.searchParams.has("code_challenge")).toBe(false)
    expect(url.searchParams.has("nonce")).toBe(false)
    expect(browser.jar.has("authjs.pkce.code_verifier")).toBe(false)
    const response = await deliver(browser, await atProvider(url))
    expect(response.headers.get("location")).toBe("http://localhost:3000")
    expect((await browser.session()).user.name).toBe("Alice")
  })

  it("T15: a token_type in another case and a missing expires_in are fine", async () => {
    op.behaviour.tokenBody = ({ expires_in: _, ...body }) => ({ ...body, token_type: "BEARER" })
    const accounts: unknown[] = []
    const { browser } = setup({}, { callbacks: { signIn: ({ account }) => (accounts.push(account), true) } })
    const response = await signInThrough(browser, "fake")
    expect(response.headers.get("location")).toBe("http://localhost:3000")
    expect(accounts[0]).toMatchObject({ token_type: "bearer", provider: "fake", type: "oidc", providerAccountId: "user-1" })
    expect(accounts[0]).not.toHaveProperty("expires_at")
  })

  it("T19: an array aud holding only this client is fine", async () => {
    op.behaviour.claims = (c) => ({ ...c, aud: [op.clientId] })
    const { browser } = setup()
    expect((await signInThrough(browser, "fake")).headers.get("location")).toBe("http://localhost:3000")
  })

  it("T23: an exp just past, within the 30 s tolerance, is fine", async () => {
    op.behaviour.claims = (c) => ({ ...c, exp: Math.floor(Date.now() / 1000) - 10 })
    const { browser } = setup()
    expect((await signInThrough(browser, "fake")).headers.get("location")).toBe("http://localhost:3000")
  })

  it("T10: without advertised RFC 9207 support, a missing iss is fine", async () => {
    op.behaviour.discovery = ({ authorization_response_iss_parameter_supported: _, ...doc }) => doc
    op.behaviour.redirectParams = { iss: null }
    const { browser } = setup()
    expect((await signInThrough(browser, "fake")).headers.get("location")).toBe("http://localhost:3000")
  })
})

describe("multi-tenant issuers (Microsoft Entra ID's {tenantid} template)", () => {
  const tid = "9188040d-6c67-4c5b-b112-36a304b66dad"
  function tenantSetup() {
    op.behaviour.discovery = ({ authorization_response_iss_parameter_supported: _, ...d }) => ({ ...d, issuer: `${op.issuer}/{tenantid}/v2.0` })
    op.behaviour.redirectParams = { iss: null }
    return setup({ issuer: `${op.issuer}/common/v2.0`, wellKnown: `${op.issuer}/.well-known/openid-configuration` })
  }

  it("accepts an id_token issued by the tenant its tid names", async () => {
    op.behaviour.claims = (c) => ({ ...c, tid, iss: `${op.issuer}/${tid}/v2.0` })
    const { browser } = tenantSetup()
    expect((await signInThrough(browser, "fake")).headers.get("location")).toBe("http://localhost:3000")
  })

  it("refuses an id_token whose iss is not its tid's tenant", async () => {
    op.behaviour.claims = (c) => ({ ...c, tid, iss: `${op.issuer}/00000000-0000-0000-0000-000000000000/v2.0` })
    const { browser, writes } = tenantSetup()
    expectFailedClosed(browser, await signInThrough(browser, "fake"), "signin", "OAuthCallbackError")
    expect(writes).toEqual([])
  })

  it("refuses a template for a configured issuer that is not one of the multi-tenant ones", async () => {
    op.behaviour.discovery = (d) => ({ ...d, issuer: `${op.issuer}/{tenantid}/v2.0` })
    const { browser } = setup({ issuer: `${op.issuer}/anything/v2.0`, wellKnown: `${op.issuer}/.well-known/openid-configuration` })
    expect((await startSignIn(browser, "fake")).headers.get("location")).toBe("http://localhost:3000/auth/error?error=Configuration")
  })
})

describe("checks (T06–T09)", () => {
  it("T07: a wrong state is InvalidCheck", async () => {
    op.behaviour.redirectParams = { state: "forged-state-value-forged-state-value-forged" }
    await expectRejected("error", "Configuration")
  })

  it("T07: a missing state is InvalidCheck", async () => {
    op.behaviour.redirectParams = { state: null }
    await expectRejected("error", "Configuration")
  })

  it("T08: a replayed callback (same URL, same cookies) fails; still one session", async () => {
    const { browser, writes } = setup()
    const callback = await atProvider(location(await startSignIn(browser, "fake")))
    const snapshot = new Map(browser.jar)
    expect((await deliver(browser, callback)).headers.get("location")).toBe("http://localhost:3000")
    // Cookies deleted on success too.
    for (const name of checkCookies) expect(browser.lastSetCookies.find((c) => c.name === name)?.attributes["max-age"]).toBe("0")

    const replay = new Browser(browser.transport, browser.origin)
    for (const [k, v] of snapshot) replay.jar.set(k, v)
    const response = await deliver(replay, callback)
    // The check cookies still open (same browser), but the code was redeemed: invalid_grant.
    expectFailedClosed(replay, response, "signin", "OAuthCallbackError")
    expect(writes.filter((w) => w === "createSession")).toHaveLength(1)
  })

  it("T09: a callback without check cookies (another browser) is InvalidCheck", async () => {
    const { browser, writes } = setup()
    const callback = await atProvider(location(await startSignIn(browser, "fake")))
    const other = new Browser(browser.transport, browser.origin)
    expectFailedClosed(other, await deliver(other, callback), "error", "Configuration")
    expect(writes).toEqual([])
  })

  it("a missing PKCE verifier cookie is InvalidCheck, and the other check cookies are cleared too", async () => {
    const { browser, writes } = setup()
    const callback = await atProvider(location(await startSignIn(browser, "fake")))
    browser.jar.delete("authjs.pkce.code_verifier")
    expect(browser.jar.has("authjs.state")).toBe(true)
    expectFailedClosed(browser, await deliver(browser, callback), "error", "Configuration")
    expect(writes).toEqual([])
    expect(op.requests("/token")).toHaveLength(0)
  })

  it("T06: check cookies made for provider A do not pass on provider B", async () => {
    const { adapter, writes } = recordWrites(MemoryAdapter())
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, providers: [provider({}, "alpha"), provider({}, "beta")], logger: log.logger }
    const browser = new Browser(direct(config))
    const callback = await atProvider(location(await startSignIn(browser, "alpha")))
    const onBeta = new URL(callback.href.replace("/callback/alpha", "/callback/beta"))
    expectFailedClosed(browser, await deliver(browser, onBeta), "error", "Configuration")
    expect(writes).toEqual([])
    expect(op.requests("/token")).toHaveLength(0)
  })

  it("T25: a wrong nonce is InvalidCheck", async () => {
    op.behaviour.claims = (c) => ({ ...c, nonce: "another-nonce" })
    await expectRejected("error", "Configuration")
  })

  it("T25: a missing nonce is OAuthCallbackError (a malformed id_token, not a mismatch)", async () => {
    op.behaviour.claims = ({ nonce: _, ...c }) => c
    await expectRejected("signin", "OAuthCallbackError")
  })
})

describe("authorization response (T10–T12)", () => {
  it("T11: error=access_denied is AccessDenied", async () => {
    op.behaviour.redirectParams = { code: null, error: "access_denied" }
    await expectRejected("error", "AccessDenied")
  })

  it("T11: another error is OAuthCallbackError, and a 100 KB error_description is never reflected", async () => {
    const { browser, writes } = setup()
    const authorize = location(await startSignIn(browser, "fake"))
    // Built by hand: a 100 KB Location header is more than fetch accepts from the provider.
    const callback = new URL("http://localhost:3000/auth/callback/fake")
    callback.searchParams.set("error", "server_error")
    callback.searchParams.set("error_description", `<script>alert(document.cookie)</script>${"x".repeat(100_000)}`)
    callback.searchParams.set("state", authorize.searchParams.get("state")!)
    callback.searchParams.set("iss", op.issuer)
    const response = await deliver(browser, callback)
    expectFailedClosed(browser, response, "signin", "OAuthCallbackError")
    expect(writes).toEqual([])
    const page = await browser.request(response.headers.get("location")!)
    const html = await page.text()
    expect(html).not.toContain("<script>alert")
    expect(html).not.toContain("xxxxxxxxxx")
  })

  it("T12: a repeated code is OAuthCallbackError", async () => {
    op.behaviour.redirectSuffix = "&code=injected"
    await expectRejected("signin", "OAuthCallbackError")
    expect(op.requests("/token")).toHaveLength(0)
  })

  it("T12: a repeated state is refused", async () => {
    op.behaviour.redirectSuffix = "&state=injected"
    const { browser, writes } = setup()
    const response = await signInThrough(browser, "fake")
    // The state check reads the first copy, which matches; the repetition still refuses it.
    expectFailedClosed(browser, response, "signin", "OAuthCallbackError")
    expect(writes).toEqual([])
  })

  it("T12: a code together with an error is OAuthCallbackError", async () => {
    op.behaviour.redirectParams = { error: "access_denied" }
    await expectRejected("signin", "OAuthCallbackError")
  })

  it("T10: an iss naming another provider is OAuthCallbackError", async () => {
    op.behaviour.redirectParams = { iss: "https://other-op.example" }
    await expectRejected("signin", "OAuthCallbackError")
    expect(op.requests("/token")).toHaveLength(0)
  })

  it("T10: a missing iss, when the provider advertises RFC 9207, is OAuthCallbackError", async () => {
    op.behaviour.redirectParams = { iss: null }
    await expectRejected("signin", "OAuthCallbackError")
  })

  it("a POST to the callback of a provider that answers by GET is refused", async () => {
    const { browser, writes } = setup()
    const callback = await atProvider(location(await startSignIn(browser, "fake")))
    const response = await browser.request(callback.pathname, { form: Object.fromEntries(callback.searchParams) })
    expect(response.status).toBe(405)
    expect(writes).toEqual([])
  })
})

describe("id_token (T18–T25)", () => {
  const now = () => Math.floor(Date.now() / 1000)
  it.each([
    ["T18 wrong iss", (c: Record<string, unknown>) => ({ ...c, iss: "https://other-op.example" })],
    ["T18 missing iss", ({ iss: _, ...c }: Record<string, unknown>) => c],
    ["T19 wrong aud", (c: Record<string, unknown>) => ({ ...c, aud: "another-client" })],
    ["T19 extra untrusted aud", (c: Record<string, unknown>) => ({ ...c, aud: [op.clientId, "another-client"] })],
    ["T19 extra untrusted aud, with azp", (c: Record<string, unknown>) => ({ ...c, aud: [op.clientId, "another-client"], azp: op.clientId })],
    ["T19 azp mismatch", (c: Record<string, unknown>) => ({ ...c, azp: "another-client" })],
    ["T23 expired", (c: Record<string, unknown>) => ({ ...c, exp: now() - 61 })],
    ["T23 missing exp", ({ exp: _, ...c }: Record<string, unknown>) => c],
    ["T23 iat far in the future", (c: Record<string, unknown>) => ({ ...c, iat: now() + 600, exp: now() + 900 })],
    ["T23 missing iat", ({ iat: _, ...c }: Record<string, unknown>) => c],
    ["T24 missing sub", ({ sub: _, ...c }: Record<string, unknown>) => c],
  ])("%s is OAuthCallbackError", async (_name, claims) => {
    op.behaviour.claims = claims
    await expectRejected("signin", "OAuthCallbackError")
  })

  it("T20: a bad signature (another key under the published kid) is OAuthCallbackError", async () => {
    op.behaviour.signWith = { ...(await FakeOP.key("key-1")) }
    await expectRejected("signin", "OAuthCallbackError")
  })

  it("T20: an attacker key embedded in the header (jwk, jku) is ignored", async () => {
    const attacker = await FakeOP.key("key-1")
    op.behaviour.signWith = attacker
    op.behaviour.header = (h) => ({ ...h, jwk: attacker.publicJwk, jku: `${op.issuer}/attacker-jwks` })
    await expectRejected("signin", "OAuthCallbackError")
    expect(op.requests("/attacker-jwks")).toHaveLength(0)
  })

  it("T20: an id_token signed with a published 1024-bit RSA key is refused, and the log names the reason", async () => {
    const original = op.keys
    try {
      const weak = await FakeOP.weakRsaKey("key-weak", 1024)
      op.keys = [weak, ...original]
      op.behaviour.signWith = weak
      log.lines.length = 0
      await expectRejected("signin", "OAuthCallbackError")
      const text = log.lines.join("\n")
      expect(text).toContain("OAuthCallbackError")
      expect(text).toContain("1024-bit RSA key")
      expect(text).toContain("weak-rsa-key")
      // The key set was fetched and the published key selected: refused for its size, not as unknown.
      expect(op.requests("/jwks")).toHaveLength(1)
    } finally {
      op.keys = original
    }
  })

  it("T21: alg none is refused", async () => {
    op.behaviour.unsigned = true
    await expectRejected("signin", "OAuthCallbackError")
  })

  it("T21: alg none is refused even when discovery claims to allow it", async () => {
    op.behaviour.unsigned = true
    op.behaviour.discovery = (d) => ({ ...d, id_token_signing_alg_values_supported: ["RS256", "none"] })
    await expectRejected("signin", "OAuthCallbackError")
  })

  it("T21: an algorithm the provider does not use (ES256 under an RS256 provider) is refused", async () => {
    op.behaviour.signWith = await FakeOP.key("key-es", "ES256")
    op.behaviour.header = (h) => ({ ...h, alg: "ES256" })
    await expectRejected("signin", "OAuthCallbackError")
  })

  it("T22: an unknown kid is refused after exactly one key-set refetch; a rotated key is accepted", async () => {
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true })
    try {
      const { browser } = setup()
      expect((await signInThrough(browser, "fake")).headers.get("location")).toBe("http://localhost:3000")
      expect(op.requests("/jwks")).toHaveLength(1)

      // The provider rotates. Within a minute of the last fetch, no refetch (a flood of
      // unknown kids must not turn into a flood of JWKS requests).
      const original = op.keys
      op.keys = [await FakeOP.key("key-2")]
      op.reset()
      expectFailedClosed(browser, await signInThrough(browser, "fake"), "signin", "OAuthCallbackError")
      expect(op.requests("/jwks")).toHaveLength(0)

      // After the cooldown, one refetch finds the new key.
      vi.setSystemTime(Date.now() + 61_000)
      op.reset()
      expect((await signInThrough(browser, "fake")).headers.get("location")).toBe("http://localhost:3000")
      expect(op.requests("/jwks")).toHaveLength(1)

      // A kid the provider never published: one refetch, then refused.
      vi.setSystemTime(Date.now() + 61_000)
      op.reset()
      op.behaviour.signWith = await FakeOP.key("key-unknown")
      expectFailedClosed(browser, await signInThrough(browser, "fake"), "signin", "OAuthCallbackError")
      expect(op.requests("/jwks")).toHaveLength(1)
      op.keys = original
    } finally {
      vi.useRealTimers()
    }
  })

  it("T25: an id_token replayed from an earlier sign-in fails on its nonce", async () => {
    const earlier = await op.idToken({ clientId: op.clientId, sub: op.user.sub, nonce: "nonce-of-an-earlier-sign-in" })
    op.behaviour.tokenBody = (b) => ({ ...b, id_token: earlier })
    await expectRejected("error", "Configuration")
  })
})

describe("token endpoint (T15, T16)", () => {
  const json = { "content-type": "application/json" }
  it.each([
    ["500 with an HTML page", { status: 500, headers: { "content-type": "text/html" }, body: "<html><body>Internal error</body></html>" }],
    ["200 that is not JSON", { status: 200, headers: { "content-type": "text/plain" }, body: "access_token=abc" }],
    ["200 with invalid JSON", { status: 200, headers: json, body: "{not json" }],
    ["200 with a JSON array", { status: 200, headers: json, body: "[]" }],
    ["200 carrying an error", { status: 200, headers: json, body: JSON.stringify({ error: "invalid_grant" }) }],
    ["400 invalid_grant", { status: 400, headers: json, body: JSON.stringify({ error: "invalid_grant", error_description: "<b>bad</b>" }) }],
    ["a redirect (not followed)", { status: 302, headers: { location: "/redirect-target" } }],
    ["a body over 1 MiB", { status: 200, headers: json, body: JSON.stringify({ access_token: "x".repeat(2 * 1024 * 1024), token_type: "bearer" }) }],
  ])("%s is OAuthCallbackError", async (_name, tokenResponse) => {
    op.behaviour.tokenResponse = tokenResponse
    const { browser } = await expectRejected("signin", "OAuthCallbackError")
    expect(op.requests("/redirect-target")).toHaveLength(0)
    const page = await (await browser.request("/auth/signin?error=OAuthCallbackError")).text()
    expect(page).not.toContain("invalid_grant")
  })

  it("an unknown token_type (mac) is OAuthCallbackError", async () => {
    op.behaviour.tokenBody = (b) => ({ ...b, token_type: "mac" })
    await expectRejected("signin", "OAuthCallbackError")
  })

  it("a missing access_token is OAuthCallbackError", async () => {
    op.behaviour.tokenBody = ({ access_token: _, ...b }) => b
    await expectRejected("signin", "OAuthCallbackError")
  })

  it("an OIDC response without id_token is OAuthCallbackError", async () => {
    op.behaviour.tokenBody = ({ id_token: _, ...b }) => b
    await expectRejected("signin", "OAuthCallbackError")
  })

  it("a token endpoint slower than the timeout is OAuthCallbackError", async () => {
    op.behaviour.tokenResponse = { delay: 2_000, status: 200, headers: json, body: "{}" }
    const started = Date.now()
    await expectRejected("signin", "OAuthCallbackError", { timeout: 300 })
    expect(Date.now() - started).toBeLessThan(1_900)
  })
})

describe("userinfo (T16, T17)", () => {
  it("is read with the access token in the Authorization header when idToken is false", async () => {
    const { browser } = setup({ idToken: false })
    expect((await signInThrough(browser, "fake")).headers.get("location")).toBe("http://localhost:3000")
    const [request] = op.requests("/userinfo")
    expect(request!.headers.authorization).toMatch(/^Bearer at-/)
    expect(request!.query.has("access_token")).toBe(false)
  })

  it("T17: a userinfo sub that is not the id_token sub is OAuthCallbackError", async () => {
    op.behaviour.userinfoBody = (b) => ({ ...b, sub: "someone-else" })
    await expectRejected("signin", "OAuthCallbackError", { idToken: false })
  })

  it("T16: a userinfo endpoint that does not answer in time is OAuthCallbackError", async () => {
    op.behaviour.userinfoResponse = { delay: 2_000, status: 200, headers: { "content-type": "application/json" }, body: "{}" }
    await expectRejected("signin", "OAuthCallbackError", { idToken: false, timeout: 300 })
  })
})

describe("provider metadata (T28, T29)", () => {
  it("T28: a discovery issuer differing by a trailing slash stops the sign-in before the provider", async () => {
    op.behaviour.discovery = (d) => ({ ...d, issuer: `${op.issuer}/` })
    const { browser } = setup()
    const response = await startSignIn(browser, "fake")
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/error?error=Configuration")
    expect(op.requests("/authorize")).toHaveLength(0)
    for (const name of checkCookies) expect(browser.jar.has(name)).toBe(false)
  })

  it("T28: the same mismatch on the callback side fails closed", async () => {
    const { browser, writes } = setup()
    const callback = await atProvider(location(await startSignIn(browser, "fake")))
    // A new config object: discovery runs again, and now lies.
    op.behaviour.discovery = (d) => ({ ...d, issuer: op.issuer.toUpperCase() })
    const fresh = setup()
    for (const [k, v] of browser.jar) fresh.browser.jar.set(k, v)
    expectFailedClosed(fresh.browser, await deliver(fresh.browser, callback), "error", "Configuration")
    expect([...writes, ...fresh.writes]).toEqual([])
  })

  describe("T29: in production, http endpoints are refused unless loopback and opted in", () => {
    beforeEach(() => {
      vi.stubEnv("NODE_ENV", "production")
    })
    afterEach(() => {
      vi.unstubAllEnvs()
    })
    // In production the loopback test origin must be configured, or OAuth refuses it (T05).
    const site = { trustedOrigins: ["http://localhost:3000"] }
    const configError = async (response: Response) => {
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({ message: "There was a problem with the server configuration. Check the server logs for more information." })
    }

    it("a loopback http issuer without allowInsecureLoopback is a configuration error on every request", async () => {
      const { browser } = setup({ allowInsecureLoopback: false }, site)
      await configError(await browser.request("/auth/providers"))
      await configError(await browser.request("/auth/signin/fake", { form: { csrfToken: "x" } }))
    })

    it("a remote http issuer is a configuration error even with allowInsecureLoopback", async () => {
      const { browser } = setup({ issuer: "http://op.example.test", allowInsecureLoopback: true }, site)
      await configError(await browser.request("/auth/session"))
    })

    it("discovered metadata pointing the key set at plain http fails the sign-in closed, without a fetch", async () => {
      op.behaviour.discovery = (d) => ({ ...d, jwks_uri: "http://keys.example.test/jwks" })
      const { browser, writes } = setup({}, site)
      const response = await signInThrough(browser, "fake")
      expectFailedClosed(browser, response, "error", "Configuration")
      expect(writes).toEqual([])
    })
  })

  it("an unreachable provider at sign-in is OAuthSignin", async () => {
    const { browser } = setup({ issuer: "http://127.0.0.1:9", timeout: 1_000 })
    const response = await startSignIn(browser, "fake")
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/signin?error=OAuthSignin")
  })
})

describe("response_mode=form_post (T14)", () => {
  const formPost = { authorization: { params: { response_mode: "form_post" } } }

  it("state and nonce cookies are SameSite=None; Secure, PKCE stays Lax, and the cross-site POST signs in", async () => {
    const { browser, writes } = setup(formPost)
    const url = location(await startSignIn(browser, "fake"))
    expect(url.searchParams.get("response_mode")).toBe("form_post")
    const byName = Object.fromEntries(browser.lastSetCookies.map((c) => [c.name, c.attributes]))
    for (const name of ["authjs.state", "authjs.nonce"]) {
      expect(byName[name]!.samesite).toBe("None")
      expect(byName[name]!.secure).toBe(true)
    }
    expect(byName["authjs.pkce.code_verifier"]!.samesite).toBe("Lax")

    const callback = await atProvider(url)
    const response = await browser.request(callback.pathname, {
      form: Object.fromEntries(callback.searchParams),
      // What the provider's auto-submitting page sends: no CSRF token, another site.
      headers: { origin: op.issuer, "sec-fetch-site": "cross-site" },
    })
    expect(response.headers.get("location")).toBe("http://localhost:3000")
    expect(writes).toContain("createSession")
  })

  it("the form_post callback without the state cookie is InvalidCheck", async () => {
    const { browser, writes } = setup(formPost)
    const callback = await atProvider(location(await startSignIn(browser, "fake")))
    browser.jar.delete("authjs.state")
    const response = await browser.request(callback.pathname, { form: Object.fromEntries(callback.searchParams) })
    expectFailedClosed(browser, response, "error", "Configuration")
    expect(writes).toEqual([])
  })

  it("a form_post provider does not take its code from a GET", async () => {
    const { browser } = setup(formPost)
    const callback = await atProvider(location(await startSignIn(browser, "fake")))
    expect((await deliver(browser, callback)).status).toBe(405)
  })
})
