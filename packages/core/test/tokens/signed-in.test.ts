/**
 * The whole way: a browser signs in through a real OpenID provider (login and consent
 * pages), the provider's tokens are kept — in the accounts table (database sessions) or
 * in the encrypted session cookie (JWT sessions with `tokenRefresh.jwt`) — and
 * `getAccessToken({ request })` hands them out, refreshing them once however many requests
 * ask at the same moment.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createAuth, getAccessToken, ReauthRequired, type AuthConfig, type Cookie } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { decode } from "@portcullis/core/jwt"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, SECRET } from "../helpers.js"
import { signInAtOP } from "../oauth/real-op.js"
import { clientId, clientSecret, startRefreshOp, type RefreshOp } from "./refresh-op.js"

const origin = "http://localhost:3000"
let op: RefreshOp
beforeAll(async () => {
  op = await startRefreshOp({ redirectUris: [`${origin}/auth/callback/op`] })
})
afterAll(() => op.close())
beforeEach(() => {
  op.requests.length = 0
  op.rotate = true
  op.fault = "none"
  op.accessTtl = 3600
})

const now = () => Math.floor(Date.now() / 1000)

function config(extra: Partial<AuthConfig>): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    providers: [{ id: "op", name: "OP", type: "oidc", issuer: op.issuer, clientId, clientSecret, allowInsecureLoopback: true } as any],
    ...extra,
  }
}

/** A signed-in browser, and a request carrying its cookies (what an app route receives). */
async function signedIn(auth: ReturnType<typeof createAuth>) {
  const browser = new Browser((request) => auth.handle(request), origin)
  const response = await signInAtOP(browser, "op", "/")
  expect(response.status).toBe(302)
  expect(response.headers.get("location")).toBe(`${origin}/`)
  return browser
}
const requestOf = (browser: Browser) => new Request(`${origin}/api/calendar`, { headers: { cookie: browser.cookieHeader() } })

describe("database sessions: the tokens of the sign-in are stored with the account", () => {
  let adapter: Adapter
  let auth: ReturnType<typeof createAuth>
  beforeEach(() => {
    adapter = MemoryAdapter()
    auth = createAuth(config({ adapter }))
  })

  const account = async () => {
    const user = await adapter.getUserByEmail!("demo@portcullis.dev")
    return adapter.getAccountByUserId!(user!.id, "op")
  }

  it("hands out the stored access token for the browser's request, without asking the provider", async () => {
    const browser = await signedIn(auth)
    const stored = await account()
    expect(stored?.refresh_token).toBeTruthy()
    op.requests.length = 0
    const token = await getAccessToken(auth, { request: requestOf(browser), provider: "op" })
    expect(token).toMatchObject({ accessToken: stored!.access_token, refreshed: false })
    expect(op.requests).toEqual([])
  })

  it("50 concurrent requests of one browser with an expired token: one refresh, one new token for all", async () => {
    const browser = await signedIn(auth)
    const before = (await account())!
    await adapter.updateAccount!(before, { expires_at: now() - 5 })
    op.requests.length = 0
    const tokens = await Promise.all(Array.from({ length: 50 }, () => getAccessToken(auth, { request: requestOf(browser), provider: "op" })))
    expect(op.refreshRequests()).toHaveLength(1)
    expect(op.refreshRequests()[0]?.refreshToken).toBe(before.refresh_token)
    const after = (await account())!
    expect(new Set(tokens.map((t) => t.accessToken))).toEqual(new Set([after.access_token]))
    expect(after.refresh_token).not.toBe(before.refresh_token)
  })

  it("after invalid_grant the account is marked; signing in again stores fresh tokens and clears the mark", async () => {
    const browser = await signedIn(auth)
    const before = (await account())!
    await adapter.updateAccount!(before, { expires_at: now() - 5 })
    await op.revokeGrantOf(before.refresh_token!)
    const refused = await getAccessToken(auth, { request: requestOf(browser), provider: "op" }).catch((e: unknown) => e)
    expect(refused).toMatchObject({ type: "ReauthRequired", reason: "invalid_grant" })
    expect((await account())?.reauth_required).toBe(true)

    await signInAtOP(browser, "op", "/")
    const renewed = (await account())!
    expect(renewed.reauth_required).toBeUndefined()
    expect(renewed.refresh_token).not.toBe(before.refresh_token)
    const token = await getAccessToken(auth, { request: requestOf(browser), provider: "op" })
    expect(token.accessToken).toBe(renewed.access_token)
  })

  it("a request without a session: ReauthRequired (signed_out)", async () => {
    const error = await getAccessToken(auth, { request: new Request(`${origin}/api/calendar`), provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "ReauthRequired", reason: "signed_out" })
  })

  it("a forged session cookie: ReauthRequired (signed_out), nothing sent to the provider", async () => {
    const forged = new Request(`${origin}/api/calendar`, { headers: { cookie: "authjs.session-token=forged-value" } })
    const error = await getAccessToken(auth, { request: forged, provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "ReauthRequired", reason: "signed_out" })
    expect(op.requests).toEqual([])
  })
})

describe("JWT sessions with tokenRefresh.jwt: the tokens ride in the encrypted session cookie", () => {
  let auth: ReturnType<typeof createAuth>
  beforeEach(() => {
    auth = createAuth(config({ tokenRefresh: { jwt: true } }))
  })
  const claimOf = async (cookieValue: string) => {
    const token = await decode({ token: cookieValue, secret: SECRET, salt: "authjs.session-token" })
    return token?.pcl_oauth as { access_token: string; refresh_token?: string; expires_at?: number; reauth?: true } | undefined
  }
  const sessionCookieOf = (cookies: Cookie[]) => cookies.find((c) => c.name === "authjs.session-token")?.value

  it("keeps the tokens out of the session the browser sees, and hands them out on the server", async () => {
    const browser = await signedIn(auth)
    const session = await (await browser.request("/auth/session")).text()
    expect(session).not.toMatch(/access_token|refresh_token|pcl_oauth/)
    const held = await claimOf(browser.sessionCookie()!)
    expect(held?.refresh_token).toBeTruthy()
    op.requests.length = 0
    const set: Cookie[] = []
    const token = await getAccessToken(auth, { request: requestOf(browser), provider: "op", setCookie: (c) => set.push(c) })
    expect(token).toMatchObject({ accessToken: held!.access_token, refreshed: false })
    expect(set).toEqual([])
    expect(op.requests).toEqual([])
  })

  it("50 concurrent requests carrying the same old cookie: one refresh, all get the new token and a cookie holding it", async () => {
    op.accessTtl = 30 // inside the 60 s skew: due for a refresh at once
    const browser = await signedIn(auth)
    const old = await claimOf(browser.sessionCookie()!)
    op.requests.length = 0
    const sets: Cookie[][] = []
    const tokens = await Promise.all(
      Array.from({ length: 50 }, () => {
        const set: Cookie[] = []
        sets.push(set)
        return getAccessToken(auth, { request: requestOf(browser), provider: "op", setCookie: (c) => set.push(c) })
      }),
    )
    expect(op.refreshRequests()).toHaveLength(1)
    expect(op.refreshRequests()[0]?.refreshToken).toBe(old!.refresh_token)
    expect(new Set(tokens.map((t) => t.accessToken)).size).toBe(1)
    expect(tokens[0]!.accessToken).not.toBe(old!.access_token)
    for (const set of sets) {
      const held = await claimOf(sessionCookieOf(set)!)
      expect(held?.access_token).toBe(tokens[0]!.accessToken)
      expect(held?.refresh_token).not.toBe(old!.refresh_token)
    }
  })

  it("a request that still carries the old cookie after the rotation gets the rotated tokens, and the old refresh token is not sent again", async () => {
    op.accessTtl = 30
    const browser = await signedIn(auth)
    const oldCookie = browser.cookieHeader()
    op.requests.length = 0
    const first = await getAccessToken(auth, { request: requestOf(browser), provider: "op" })
    const late = await getAccessToken(auth, { request: new Request(`${origin}/x`, { headers: { cookie: oldCookie } }), provider: "op" })
    expect(late.accessToken).toBe(first.accessToken)
    expect(op.refreshRequests()).toHaveLength(1)
  })

  it("the session check itself rotates due tokens (the jwt callback path): 50 concurrent checks, one refresh, every answer re-issues the cookie", async () => {
    op.accessTtl = 30
    const seen: unknown[] = []
    const withCallback = createAuth(config({ tokenRefresh: { jwt: true }, callbacks: { jwt: ({ token }) => (seen.push(token.pcl_oauth), token) } }))
    const browser = await signedIn(withCallback)
    const old = await claimOf(browser.sessionCookie()!)
    op.requests.length = 0
    seen.length = 0
    const cookie = browser.cookieHeader()
    const responses = await Promise.all(Array.from({ length: 50 }, () => withCallback.handle(new Request(`${origin}/auth/session`, { headers: { cookie } }))))
    expect(op.refreshRequests()).toHaveLength(1)
    const accessTokens = new Set<string>()
    for (const response of responses) {
      expect(response.status).toBe(200)
      const set = response.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="))
      expect(set).toBeTruthy()
      const held = await claimOf(decodeURIComponent(set!.split(";")[0]!.slice("authjs.session-token=".length)))
      expect(held?.refresh_token).not.toBe(old!.refresh_token)
      accessTokens.add(held!.access_token)
    }
    expect(accessTokens.size).toBe(1)
    // The app's jwt callback saw the rotated tokens, not the old ones.
    expect(seen.every((h) => (h as { access_token: string }).access_token !== old!.access_token)).toBe(true)
  })

  it("invalid_grant during a session check keeps the user signed in and marks the cookie; getAccessToken then refuses without asking", async () => {
    op.accessTtl = 30
    const browser = await signedIn(auth)
    const old = await claimOf(browser.sessionCookie()!)
    await op.revokeGrantOf(old!.refresh_token!)
    op.requests.length = 0
    const session = await browser.session()
    expect(session?.user?.email).toBe("demo@portcullis.dev")
    expect((await claimOf(browser.sessionCookie()!))?.reauth).toBe(true)
    expect(op.refreshRequests()).toHaveLength(1)
    const error = await getAccessToken(auth, { request: requestOf(browser), provider: "op" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ReauthRequired)
    expect(error).toMatchObject({ reason: "marked" })
    expect(op.refreshRequests()).toHaveLength(1)
  })

  it("a provider that is down during a session check costs nothing: the session stands and the old tokens stay", async () => {
    op.accessTtl = 30
    const browser = await signedIn(auth)
    const before = browser.sessionCookie()
    op.fault = "unavailable"
    const session = await browser.session()
    expect(session?.user?.email).toBe("demo@portcullis.dev")
    expect(browser.sessionCookie()).toBe(before)
    const error = await getAccessToken(auth, { request: requestOf(browser), provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "TokenRefreshFailed" })
  })

  it("an access token due for refresh with no refresh token in the cookie: ReauthRequired (no_refresh_token), never the expired token", async () => {
    op.accessTtl = 30
    const browser = await signedIn(auth)
    const token = await decode({ token: browser.sessionCookie()!, secret: SECRET, salt: "authjs.session-token" })
    const { refresh_token: _dropped, ...held } = token!.pcl_oauth as Record<string, unknown>
    const { encode } = await import("@portcullis/core/jwt")
    const cookie = await encode({ token: { ...token, pcl_oauth: held }, secret: SECRET, salt: "authjs.session-token" })
    op.requests.length = 0
    const request = new Request(`${origin}/x`, { headers: { cookie: `authjs.session-token=${cookie}` } })
    const error = await getAccessToken(auth, { request, provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "ReauthRequired", reason: "no_refresh_token" })
    expect(op.requests).toEqual([])
  })

  it("a session signed in with another provider has no tokens for this one: ReauthRequired (no_account)", async () => {
    const browser = await signedIn(auth)
    const token = await decode({ token: browser.sessionCookie()!, secret: SECRET, salt: "authjs.session-token" })
    const { encode } = await import("@portcullis/core/jwt")
    const cookie = await encode({ token: { ...token, pcl_oauth: { ...(token!.pcl_oauth as object), provider: "github" } }, secret: SECRET, salt: "authjs.session-token" })
    const request = new Request(`${origin}/x`, { headers: { cookie: `authjs.session-token=${cookie}` } })
    const error = await getAccessToken(auth, { request, provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "ReauthRequired", reason: "no_account" })
  })

  it("without tokenRefresh.jwt, JWT sessions keep no provider tokens: getAccessToken says so (UnsupportedStrategy)", async () => {
    const plain = createAuth(config({}))
    const browser = await signedIn(plain)
    const error = await getAccessToken(plain, { request: requestOf(browser), provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "UnsupportedStrategy" })
    expect(await claimOf(browser.sessionCookie()!)).toBeUndefined()
  })
})
