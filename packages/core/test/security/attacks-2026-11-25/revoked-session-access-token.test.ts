/**
 * Attack: a copy of a JWT session cookie (stolen, or left on a shared computer) outlives the
 * session's end — sign-out with a registry, "sign out everywhere", `absoluteMaxAge` — for
 * the session check, as docs/sessions.md promises. Does it also outlive it for
 * `getAccessToken({ request })` (docs/tokens.md), which hands out the provider's access
 * token from that cookie and refreshes it with the provider?
 *
 * A real OpenID provider signs the browser in; the app keeps the provider's tokens in the
 * cookie (`tokenRefresh.jwt`).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createAuth, getAccessToken, ReauthRequired, type AuthConfig } from "@portcullis/core"
import { encode } from "@portcullis/core/jwt"
import { signOutEverywhere } from "@portcullis/core/integration"
import { MemorySessionRegistry } from "@portcullis/memory-adapter"
import { Browser, SECRET } from "../../helpers.js"
import { signInAtOP } from "../../oauth/real-op.js"
import { clientId, clientSecret, startRefreshOp, type RefreshOp } from "../../tokens/refresh-op.js"

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

function config(extra: Partial<AuthConfig>): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    tokenRefresh: { jwt: true },
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    providers: [{ id: "op", name: "OP", type: "oidc", issuer: op.issuer, clientId, clientSecret, allowInsecureLoopback: true } as any],
    ...extra,
  }
}

async function signedIn(auth: ReturnType<typeof createAuth>) {
  const browser = new Browser((request) => auth.handle(request), origin)
  const response = await signInAtOP(browser, "op", "/")
  expect(response.status).toBe(302)
  return browser
}
const requestWith = (cookie: string) => new Request(`${origin}/api/calendar`, { headers: { cookie } })

/** What getAccessToken answered: the token, or the ReauthRequired reason. */
async function tryToken(auth: ReturnType<typeof createAuth>, cookie: string) {
  try {
    const token = await getAccessToken(auth, { request: requestWith(cookie), provider: "op" })
    return { accessToken: token.accessToken }
  } catch (error) {
    if (error instanceof ReauthRequired) return { reauth: (error as ReauthRequired & { reason?: string }).reason ?? "reauth" }
    throw error
  }
}

describe("a JWT session ended through the registry gives no access token", () => {
  it("the copy of a cookie signed out (registry) is refused by the session check and by getAccessToken", async () => {
    const auth = createAuth(config({ session: { strategy: "jwt", registry: new MemorySessionRegistry() } }))
    const browser = await signedIn(auth)
    const copy = browser.cookieHeader()
    expect(await tryToken(auth, copy)).toHaveProperty("accessToken")
    expect((await browser.signOut()).status).toBe(302)
    // The session check refuses the copy (tested by the feature's own tests)…
    const check = await auth.handle(new Request(`${origin}/auth/session`, { headers: { cookie: copy } }))
    expect(await check.json()).toBeNull()
    // …and so must the access-token path.
    expect(await tryToken(auth, copy)).toEqual({ reauth: "signed_out" })
  })

  it("after 'sign out everywhere', another device's cookie gets no access token, and the provider is not asked to refresh", async () => {
    const auth = createAuth(config({ session: { strategy: "jwt", registry: new MemorySessionRegistry() } }))
    const phone = await signedIn(auth)
    const laptop = await signedIn(auth)
    await signOutEverywhere({ origin, headers: new Headers({ cookie: laptop.cookieHeader(), origin }), skipCSRF: true }, auth)
    op.accessTtl = 0
    op.requests.length = 0
    expect(await tryToken(auth, phone.cookieHeader())).toEqual({ reauth: "signed_out" })
    expect(op.refreshRequests()).toEqual([])
  })
})

describe("a JWT session past absoluteMaxAge gives no access token", () => {
  it("a cookie whose session began before the absolute limit is refused by getAccessToken as by the session check", async () => {
    const auth = createAuth(config({ session: { strategy: "jwt", absoluteMaxAge: 24 * 60 * 60 } }))
    const now = Math.floor(Date.now() / 1000)
    // A session signed in two days ago and kept alive since (re-issued an hour ago).
    const token = await encode({
      secret: SECRET,
      salt: "authjs.session-token",
      token: {
        sub: "demo",
        pcl_created: now - 2 * 24 * 60 * 60,
        pcl_oauth: { provider: "op", access_token: "still-good-access-token", refresh_token: "r", expires_at: now + 3600 },
      },
    })
    const cookie = `authjs.session-token=${token}`
    const check = await auth.handle(new Request(`${origin}/auth/session`, { headers: { cookie } }))
    expect(await check.json()).toBeNull()
    expect(await tryToken(auth, cookie)).toEqual({ reauth: "signed_out" })
  })
})
