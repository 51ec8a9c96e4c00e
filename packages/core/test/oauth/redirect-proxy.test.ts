/**
 * `redirectProxyUrl`: a preview deployment on its own origin signs in through a stable
 * proxy deployment, the only redirect URI the provider knows, and ends signed in on the
 * preview origin. Both deployments share the secret; each runs `Auth()` in-process.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { Browser, direct, SECRET } from "../helpers.js"
import { atProvider, location, PREVIEW, PROXY, proxiedDeployment, startSignIn, useFakeOP } from "./flow.js"

const fake = useFakeOP()
const deployment = (secret = SECRET): AuthConfig => proxiedDeployment(fake.op, { secret })

describe("redirect proxy", () => {
  it("a sign-in started on a preview origin completes through the proxy and lands signed in on the preview", async () => {
    const preview = new Browser(direct(deployment()), PREVIEW)
    const proxy = new Browser(direct(deployment()), PROXY)

    const authorize = location(await startSignIn(preview, "fake", { callbackUrl: "/dashboard" }))
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${PROXY}/auth/callback/fake`)
    // The state carries the preview's callback, encrypted: it is not readable in the URL.
    expect(authorize.searchParams.get("state")!.split(".")).toHaveLength(5)
    expect(authorize.searchParams.get("state")).not.toContain("preview")

    const atProxy = await atProvider(authorize)
    expect(atProxy.origin).toBe(PROXY)
    const bounce = await proxy.request(atProxy.pathname + atProxy.search)
    expect(bounce.status).toBe(302)
    const back = new URL(bounce.headers.get("location")!)
    expect(back.origin + back.pathname).toBe(`${PREVIEW}/auth/callback/fake`)
    expect(back.searchParams.get("code")).toBe(atProxy.searchParams.get("code"))
    // The proxy redeemed nothing and set no session.
    expect(fake.op.requests("/token")).toHaveLength(0)
    expect(bounce.headers.getSetCookie().some((c) => c.includes("session-token"))).toBe(false)

    const done = await preview.request(back.pathname + back.search)
    expect(done.headers.get("location")).toBe(`${PREVIEW}/dashboard`)
    expect(fake.op.requests("/token")[0]!.body.get("redirect_uri")).toBe(`${PROXY}/auth/callback/fake`)
    expect((await preview.session()).user.email).toBe("alice@example.com")
    expect(await proxy.session()).toBeNull()
  })

  it("turns the state check on even for a provider configured without it", async () => {
    const config = deployment()
    ;(config.providers[0] as OAuthConfig<any>).checks = ["pkce"]
    const preview = new Browser(direct(config), PREVIEW)
    const authorize = location(await startSignIn(preview, "fake"))
    expect(authorize.searchParams.get("state")).toBeTruthy()
  })

  it("a sign-in started on the proxy itself completes there", async () => {
    const proxy = new Browser(direct(deployment()), PROXY)
    const authorize = location(await startSignIn(proxy, "fake"))
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${PROXY}/auth/callback/fake`)
    const callback = await atProvider(authorize)
    const done = await proxy.request(callback.pathname + callback.search)
    expect(done.headers.get("location")).toBe(PROXY)
    expect((await proxy.session()).user.name).toBe("Alice")
  })

  it("the proxy never bounces a state it did not seal (forged, or sealed with another secret)", async () => {
    const otherSecret = new Browser(direct(deployment("another-secret-that-is-at-least-32-chars")), PREVIEW)
    const foreign = location(await startSignIn(otherSecret, "fake")).searchParams.get("state")!
    const proxy = new Browser(direct(deployment()), PROXY)
    for (const state of ["forged", foreign]) {
      const response = await proxy.request(`/auth/callback/fake?code=abc&state=${encodeURIComponent(state)}&iss=${encodeURIComponent(fake.op.issuer)}`)
      // Handled as a local callback: no state cookie here, so a failed check.
      expect(response.headers.get("location")).toBe(`${PROXY}/auth/error?error=Configuration`)
    }
  })

  it("the preview refuses a bounced callback whose state is not its own", async () => {
    const victim = new Browser(direct(deployment()), PREVIEW)
    const attacker = new Browser(direct(deployment()), PREVIEW)
    location(await startSignIn(victim, "fake"))
    const authorize = location(await startSignIn(attacker, "fake"))
    const atProxy = await atProvider(authorize)
    const bounce = await new Browser(direct(deployment()), PROXY).request(atProxy.pathname + atProxy.search)
    const back = new URL(bounce.headers.get("location")!)
    // The attacker's code, delivered into the victim's browser (login CSRF): refused.
    const response = await victim.request(back.pathname + back.search)
    expect(response.headers.get("location")).toBe(`${PREVIEW}/auth/error?error=Configuration`)
    expect(await victim.session()).toBeNull()
  })
})
