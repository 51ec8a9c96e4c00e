/**
 * Who is signed in, for linking (`currentUserId` of the JWT strategy): an OAuth sign-in
 * while signed in links the new provider account to the signed-in user — but only when
 * that session still counts: not revoked in the registry, not past `absoluteMaxAge`, and,
 * for a session issued to an unverified user, only while that user is still the one the
 * adapter has (a replaced user's session must not link anything). A session issued to an
 * unverified user carries the mark from its sign-in. The provider is the in-process FakeOP.
 */
import { beforeEach, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { Browser } from "../helpers.js"
import { signInThrough, useFakeOP } from "../oauth/flow.js"
import { claimsOf, cookieOf, now, ORIGIN, runtime } from "./jwt-support.js"

const fake = useFakeOP()
let adapter: Adapter
beforeEach(() => {
  adapter = MemoryAdapter()
  fake.op.user = { sub: "alice-alpha", email: "alice@example.com", email_verified: true, name: "Alice" }
})

function provider(id: string): OAuthConfig<any> {
  const { op } = fake
  return { id, name: id, type: "oidc", issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>
}

function auth(extra: Partial<AuthConfig> = {}) {
  return runtime({ adapter, providers: [provider("alpha"), provider("beta")], ...extra })
}

/** A browser of `runtime` signed in through `alpha`. */
async function signedIn(runtimeOf: ReturnType<typeof auth>) {
  const browser = new Browser((request) => runtimeOf.handle(request), ORIGIN)
  expect((await signInThrough(browser, "alpha")).status).toBe(302)
  const user = await adapter.getUserByAccount!({ provider: "alpha", providerAccountId: "alice-alpha" })
  return { browser, user: user!, claims: await claimsOf(browser.sessionCookie()!) }
}

/** Signs in through `beta` as another identity at the provider; answers whose user the beta account ended up with. */
async function betaOwner(browser: Browser): Promise<string | undefined> {
  fake.op.user = { sub: "alice-beta", email: "alice@work.example", email_verified: true, name: "Alice at work" }
  await signInThrough(browser, "beta")
  return (await adapter.getUserByAccount!({ provider: "beta", providerAccountId: "alice-beta" }))?.id
}

describe("an OAuth sign-in while signed in with a JWT session", () => {
  it("links the new account to the signed-in user", async () => {
    const { browser, user } = await signedIn(auth())
    expect(await betaOwner(browser)).toBe(user.id)
  })

  it("with a registry, a session revoked there links nothing: the new account gets a user of its own", async () => {
    const registry = new MemorySessionRegistry()
    const { browser, user } = await signedIn(auth({ session: { registry } }))
    await registry.removeAll(user.id)
    const owner = await betaOwner(browser)
    expect(owner).toBeDefined()
    expect(owner).not.toBe(user.id)
  })

  it("with a registry, a session still registered links", async () => {
    const registry = new MemorySessionRegistry()
    const { browser, user } = await signedIn(auth({ session: { registry } }))
    expect(await betaOwner(browser)).toBe(user.id)
  })

  it("a session past absoluteMaxAge links nothing", async () => {
    const runtimeOf = auth({ session: { absoluteMaxAge: 3600 } })
    const { browser, user, claims } = await signedIn(runtimeOf)
    const { iat: _i, exp: _e, jti: _j, ...rest } = claims
    browser.jar.set("authjs.session-token", { value: await cookieOf({ ...rest, pcl_created: now() - 7200 }), attributes: {} })
    const owner = await betaOwner(browser)
    expect(owner).toBeDefined()
    expect(owner).not.toBe(user.id)
  })

  it("a cookie that does not open, or has no sub, links nothing", async () => {
    const runtimeOf = auth()
    const { user } = await signedIn(runtimeOf)
    for (const value of ["not-a-token", await cookieOf({ name: "Alice" })]) {
      const browser = new Browser((request) => runtimeOf.handle(request), ORIGIN)
      browser.jar.set("authjs.session-token", { value, attributes: {} })
      const owner = await betaOwner(browser)
      expect(owner).not.toBe(user.id)
      await adapter.unlinkAccount!({ provider: "beta", providerAccountId: "alice-beta" })
    }
  })
})

describe("a session issued to an unverified user", () => {
  beforeEach(() => {
    fake.op.user = { ...fake.op.user, email_verified: false }
  })

  it("is marked at sign-in, and links while its user is still unverified", async () => {
    const before = now()
    const { browser, user, claims } = await signedIn(auth())
    expect(user.emailVerified).toBeNull()
    expect(claims.pcl_unverified).toBeGreaterThanOrEqual(before)
    expect(await betaOwner(browser)).toBe(user.id)
  })

  it("links once its user was verified in place", async () => {
    const { browser, user } = await signedIn(auth())
    await adapter.updateUser!({ id: user.id, emailVerified: new Date(Date.now() + 1000) })
    expect(await betaOwner(browser)).toBe(user.id)
  })

  it("links nothing when its user was verified before the session was issued (a replaced user's token)", async () => {
    const { browser, user } = await signedIn(auth())
    await adapter.updateUser!({ id: user.id, emailVerified: new Date(Date.now() - 86_400_000) })
    const owner = await betaOwner(browser)
    expect(owner).toBeDefined()
    expect(owner).not.toBe(user.id)
  })
})

describe("a verified user's session", () => {
  it("is not marked at sign-in", async () => {
    const { claims } = await signedIn(auth())
    expect(claims).not.toHaveProperty("pcl_unverified")
  })
})
