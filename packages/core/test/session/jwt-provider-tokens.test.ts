/**
 * Provider tokens in a JWT session cookie (`tokenRefresh.jwt`, docs/tokens.md): kept from
 * the sign-in, rotated by the session check when they are due — and kept through a jwt
 * callback that rebuilds the token — or marked when the provider refuses the refresh
 * token; a provider that is down costs the session nothing. `getAccessToken({ request })`
 * hands them out, refreshing and re-issuing the cookie, and refuses sessions that are
 * revoked, past `absoluteMaxAge` or whose unverified user is gone. The provider is the
 * in-process FakeOP (a loopback server); its token endpoint's answers are set per test.
 */
import { beforeEach, describe, expect, it } from "vitest"
import { getAccessToken, type AuthConfig, type Cookie } from "@portcullis/core"
import type { JWT } from "@portcullis/core/jwt"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { Browser } from "../helpers.js"
import { signInThrough, useFakeOP } from "../oauth/flow.js"
import { check, claimsOf, cookieOf, COOKIE, now, ORIGIN, recordingLogger, runtime } from "./jwt-support.js"

const fake = useFakeOP()
beforeEach(() => {
  fake.op.user = { sub: "user-1", email: "alice@example.com", email_verified: true, name: "Alice" }
})

function provider(): OAuthConfig<any> {
  const { op } = fake
  return { id: "op", name: "OP", type: "oidc", issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>
}

function config(extra: Partial<AuthConfig> = {}): Partial<AuthConfig> {
  return { providers: [provider()], tokenRefresh: { jwt: true }, ...extra }
}

/** The token endpoint's next answers: a refresh that succeeds with new tokens. */
function refreshes(accessToken: string, refreshToken: string) {
  fake.op.behaviour.tokenResponse = {
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ access_token: accessToken, refresh_token: refreshToken, token_type: "Bearer", expires_in: 3600 }),
  }
}

/** Signs in through the OP; returns the runtime and the session cookie's claims. */
async function signedIn(extra: Partial<AuthConfig> = {}) {
  const auth = runtime(config(extra))
  const browser = new Browser((request) => auth.handle(request), ORIGIN)
  const response = await signInThrough(browser, "op")
  expect(response.status).toBe(302)
  return { auth, claims: await claimsOf(browser.sessionCookie()!) }
}

/** The claims with their provider tokens due for a refresh (expired a moment ago). */
function due(claims: JWT): JWT {
  const { iat: _i, exp: _e, jti: _j, ...rest } = claims
  return { ...rest, pcl_oauth: { ...(claims.pcl_oauth as object), expires_at: now() - 10 } }
}

const tokenRequests = () => fake.op.requests("/token").length

describe("at sign-in", () => {
  it("the provider's tokens go into the cookie", async () => {
    const { claims } = await signedIn()
    expect(claims.pcl_oauth).toMatchObject({ provider: "op", access_token: expect.stringMatching(/^at-/), refresh_token: expect.stringMatching(/^rt-/), token_type: "bearer" })
  })

  it("without tokenRefresh.jwt they do not", async () => {
    const { claims } = await signedIn({ tokenRefresh: { jwt: false } })
    expect(claims).not.toHaveProperty("pcl_oauth")
  })
})

describe("the session check", () => {
  it("leaves current tokens alone: nothing asked, nothing re-issued", async () => {
    const { auth, claims } = await signedIn()
    const before = tokenRequests()
    const { session, cookie } = await check(auth, await cookieOf(claims))
    expect(session?.user?.name).toBe("Alice")
    expect(cookie).toBeUndefined()
    expect(tokenRequests()).toBe(before)
  })

  it("rotates due tokens, hands them to the jwt callback and re-issues the cookie with them", async () => {
    const seen: unknown[] = []
    const { claims } = await signedIn()
    const auth = runtime(config({ callbacks: { jwt: ({ token }) => (seen.push(token.pcl_oauth), token) } }))
    refreshes("at-new", "rt-new")
    const outcome = await check(auth, await cookieOf(due(claims)))
    expect(outcome.session?.user?.name).toBe("Alice")
    expect(outcome.claims?.pcl_oauth).toMatchObject({ provider: "op", access_token: "at-new", refresh_token: "rt-new" })
    expect(seen).toEqual([expect.objectContaining({ access_token: "at-new" })])
  })

  it("keeps the rotated tokens through a jwt callback that rebuilds the token", async () => {
    const { claims } = await signedIn()
    const auth = runtime(config({ callbacks: { jwt: ({ token }) => ({ sub: token.sub, name: token.name }) } }))
    refreshes("at-new", "rt-new")
    const outcome = await check(auth, await cookieOf(due(claims)))
    expect(outcome.claims).toMatchObject({ name: "Alice", pcl_oauth: { access_token: "at-new", refresh_token: "rt-new" } })
  })

  it("marks the tokens when the provider refuses the refresh token, and keeps the user signed in", async () => {
    const { auth, claims } = await signedIn()
    // The FakeOP knows no refresh tokens: it answers invalid_grant.
    const outcome = await check(auth, await cookieOf(due(claims)))
    expect(outcome.session?.user?.name).toBe("Alice")
    expect(outcome.claims?.pcl_oauth).toMatchObject({ access_token: (claims.pcl_oauth as any).access_token, reauth: true })
  })

  it("a provider that is down costs nothing: the session stands, the cookie is not touched, the error is logged", async () => {
    const log = recordingLogger()
    const { claims } = await signedIn()
    const auth = runtime(config({ logger: log.logger }))
    fake.op.behaviour.tokenResponse = { status: 503, body: "down" }
    const outcome = await check(auth, await cookieOf(due(claims)))
    expect(outcome.session?.user?.name).toBe("Alice")
    expect(outcome.cookie).toBeUndefined()
    expect(log.errors.map((e) => e.name)).toContain("TokenRefreshFailed")
  })

  it("tokens with no refresh token are not refreshed", async () => {
    const { auth, claims } = await signedIn()
    const { refresh_token: _dropped, ...held } = due(claims).pcl_oauth as Record<string, unknown>
    const before = tokenRequests()
    const outcome = await check(auth, await cookieOf({ ...due(claims), pcl_oauth: held }))
    expect(outcome.session?.user?.name).toBe("Alice")
    expect(outcome.cookie).toBeUndefined()
    expect(tokenRequests()).toBe(before)
  })
})

/** A request of the app carrying the session cookie `value`. */
const requestWith = (value: string) => new Request(`${ORIGIN}/api/calendar`, { headers: { cookie: `${COOKIE}=${value}` } })

describe("getAccessToken({ request })", () => {
  it("hands out current tokens without asking the provider or setting a cookie", async () => {
    const { auth, claims } = await signedIn()
    const set: Cookie[] = []
    const before = tokenRequests()
    const token = await getAccessToken(auth, { request: requestWith(await cookieOf(claims)), provider: "op", setCookie: (c) => set.push(c) })
    expect(token).toMatchObject({ accessToken: (claims.pcl_oauth as any).access_token, refreshed: false })
    expect(set).toEqual([])
    expect(tokenRequests()).toBe(before)
  })

  it("refreshes due tokens and re-issues the cookie with them", async () => {
    const { auth, claims } = await signedIn()
    refreshes("at-fresh", "rt-fresh")
    const set: Cookie[] = []
    const token = await getAccessToken(auth, { request: requestWith(await cookieOf(due(claims))), provider: "op", setCookie: (c) => set.push(c) })
    expect(token).toMatchObject({ accessToken: "at-fresh", refreshed: true })
    const cookie = set.find((c) => c.name === COOKIE)
    expect((await claimsOf(cookie!.value)).pcl_oauth).toMatchObject({ access_token: "at-fresh", refresh_token: "rt-fresh" })
    expect(await claimsOf(cookie!.value)).toMatchObject({ sub: claims.sub, name: "Alice" })
  })

  it("a refused refresh token: ReauthRequired (invalid_grant), and the cookie is marked so the provider is not asked again", async () => {
    const { auth, claims } = await signedIn()
    const set: Cookie[] = []
    const error = await getAccessToken(auth, { request: requestWith(await cookieOf(due(claims))), provider: "op", setCookie: (c) => set.push(c) }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "ReauthRequired", reason: "invalid_grant" })
    const cookie = set.find((c) => c.name === COOKIE)
    expect((await claimsOf(cookie!.value)).pcl_oauth).toMatchObject({ reauth: true })
  })

  it("a provider that is down: TokenRefreshFailed, and no cookie", async () => {
    const { auth, claims } = await signedIn()
    fake.op.behaviour.tokenResponse = { status: 503, body: "down" }
    const set: Cookie[] = []
    const error = await getAccessToken(auth, { request: requestWith(await cookieOf(due(claims))), provider: "op", setCookie: (c) => set.push(c) }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "TokenRefreshFailed" })
    expect(set).toEqual([])
  })

  it("a session revoked in the registry hands out nothing (signed_out)", async () => {
    const registry = new MemorySessionRegistry()
    const { auth, claims } = await signedIn({ session: { registry } })
    await registry.removeAll(claims.sub as string)
    const error = await getAccessToken(auth, { request: requestWith(await cookieOf(claims)), provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "ReauthRequired", reason: "signed_out" })
  })

  it("a session past absoluteMaxAge hands out nothing (signed_out); one within it does", async () => {
    const { auth, claims } = await signedIn({ session: { absoluteMaxAge: 3600 } })
    const token = await getAccessToken(auth, { request: requestWith(await cookieOf(claims)), provider: "op" })
    expect(token.accessToken).toBe((claims.pcl_oauth as any).access_token)
    const error = await getAccessToken(auth, { request: requestWith(await cookieOf({ ...claims, pcl_created: now() - 7200 })), provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "ReauthRequired", reason: "signed_out" })
  })

  it("an unverified session whose user is gone hands out nothing (signed_out); one whose user is there does", async () => {
    const adapter = MemoryAdapter()
    fake.op.user = { ...fake.op.user, email_verified: false }
    const { auth, claims } = await signedIn({ adapter })
    expect(claims.pcl_unverified).toBeGreaterThan(0)
    const token = await getAccessToken(auth, { request: requestWith(await cookieOf(claims)), provider: "op" })
    expect(token.accessToken).toBe((claims.pcl_oauth as any).access_token)
    await adapter.deleteUser!(claims.sub as string)
    const error = await getAccessToken(auth, { request: requestWith(await cookieOf(claims)), provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "ReauthRequired", reason: "signed_out" })
  })

  it("an unverified session past unverifiedMaxAge in a configuration without the adapter hands out nothing", async () => {
    const { claims } = await signedIn()
    const edge = runtime(config({ session: { unverifiedMaxAge: 60 } }))
    const marked = { ...claims, pcl_unverified: now() - 3600 }
    const error = await getAccessToken(edge, { request: requestWith(await cookieOf(marked)), provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "ReauthRequired", reason: "signed_out" })
  })

  it("no cookie, or one that does not open: signed_out", async () => {
    const { auth } = await signedIn()
    for (const request of [new Request(`${ORIGIN}/api/calendar`), requestWith("not-a-token")]) {
      const error = await getAccessToken(auth, { request, provider: "op" }).catch((e: unknown) => e)
      expect(error).toMatchObject({ type: "ReauthRequired", reason: "signed_out" })
    }
  })
})
