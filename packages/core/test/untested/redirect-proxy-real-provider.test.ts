/**
 * The redirect proxy end to end against a real OpenID provider (`oidc-provider` on
 * loopback, which knows one redirect URI: the proxy deployment's). A preview deployment on
 * its own origin starts the sign-in, the provider sends the browser to the proxy, the
 * proxy bounces it to the preview, and the preview redeems the code and signs the user in.
 * Both deployments share the secret and list the previews in `trustedOrigins` ("Origin
 * trust" in docs/security.md). Configured by `AUTH_REDIRECT_PROXY_URL` or by a provider's
 * own `redirectProxyUrl`, as in Auth.js.
 *
 * Then the attacker's side: a state naming an origin the proxy does not trust is refused,
 * and the authorization code goes nowhere.
 */
import type { Server } from "node:http"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { startDemoOidcProvider, type DemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import { Browser, direct, SECRET } from "../helpers.js"
import { location, startSignIn } from "../oauth/flow.js"
import { authListener } from "../http-server.js"
import { clientId, clientSecret, demoProvider, listen, throughProvider } from "../oauth/real-op.js"

const PROXY = "https://auth.app.example"
const PREVIEW = "https://preview-42.app.example"
/** The only redirect URI the provider accepts. */
const PROXY_CALLBACK = `${PROXY}/auth/callback/demo-oidc`

let op: DemoOidcProvider
/** Two real servers, the proxy deployment and a preview deployment, each on its own port (origin). */
let proxyServer: { origin: string; server: Server }
let previewServer: { origin: string; server: Server }
beforeAll(async () => {
  proxyServer = await listen()
  previewServer = await listen()
  op = await startDemoOidcProvider({ port: 0, clientId, clientSecret, redirectUris: [PROXY_CALLBACK, `${proxyServer.origin}/auth/callback/demo-oidc`] })
})
afterAll(async () => {
  for (const { server } of [proxyServer, previewServer]) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  await op.close()
})
afterEach(() => {
  vi.unstubAllEnvs()
})

type ProxySetting = "AUTH_REDIRECT_PROXY_URL" | "provider.redirectProxyUrl"

/**
 * One deployment of the app (the proxy and the previews run the same code and config): a
 * fresh config object, so each deployment gets its own runtime, as two processes would.
 */
function deployment(setting: ProxySetting, trustedOrigins = [PROXY, "https://preview-*.app.example"]): AuthConfig {
  const provider = setting === "provider.redirectProxyUrl" ? demoProvider(op.issuer, { redirectProxyUrl: `${PROXY}/auth` }) : demoProvider(op.issuer)
  return { secret: SECRET, trustHost: true, trustedOrigins, providers: [provider] }
}

function useSetting(setting: ProxySetting): void {
  if (setting === "AUTH_REDIRECT_PROXY_URL") vi.stubEnv("AUTH_REDIRECT_PROXY_URL", `${PROXY}/auth`)
}

describe.each(["AUTH_REDIRECT_PROXY_URL", "provider.redirectProxyUrl"] as const)("the redirect proxy configured by %s", (setting) => {
  it("a sign-in started on a preview goes to the provider with the proxy's redirect_uri, bounces off the proxy and completes on the preview", async () => {
    useSetting(setting)
    const preview = new Browser(direct(deployment(setting)), PREVIEW)
    const proxy = new Browser(direct(deployment(setting)), PROXY)

    const authorize = location(await startSignIn(preview, "demo-oidc", { callbackUrl: "/dashboard" }))
    expect(authorize.origin).toBe(op.issuer)
    expect(authorize.searchParams.get("redirect_uri")).toBe(PROXY_CALLBACK)

    // The provider's login and consent pages, then its redirect: to the proxy.
    const atProxy = await throughProvider(authorize, PROXY)
    expect(atProxy.origin + atProxy.pathname).toBe(PROXY_CALLBACK)
    expect(atProxy.searchParams.get("code")).toBeTruthy()

    const bounce = await proxy.request(atProxy.pathname + atProxy.search)
    expect(bounce.status).toBe(302)
    const back = new URL(bounce.headers.get("location")!)
    expect(back.origin + back.pathname).toBe(`${PREVIEW}/auth/callback/demo-oidc`)
    expect(Object.fromEntries(back.searchParams)).toEqual(Object.fromEntries(atProxy.searchParams))
    // The proxy only forwards: no session there.
    expect(bounce.headers.getSetCookie().some((c) => c.includes("session-token"))).toBe(false)

    // The preview redeems the code (with the proxy's redirect_uri, which the provider checks).
    const done = await preview.request(back.pathname + back.search)
    expect(done.status).toBe(302)
    expect(done.headers.get("location")).toBe(`${PREVIEW}/dashboard`)
    expect((await preview.session()).user).toEqual({ name: "Demo User", email: "demo@portcullis.dev" })
    expect(await proxy.session()).toBeNull()
  })

  it("a sign-in started on the proxy itself completes there, without bouncing", async () => {
    useSetting(setting)
    const proxy = new Browser(direct(deployment(setting)), PROXY)
    const authorize = location(await startSignIn(proxy, "demo-oidc"))
    expect(authorize.searchParams.get("redirect_uri")).toBe(PROXY_CALLBACK)
    const callback = await throughProvider(authorize, PROXY)
    const done = await proxy.request(callback.pathname + callback.search)
    expect(done.headers.get("location")).toBe(PROXY)
    expect((await proxy.session()).user.email).toBe("demo@portcullis.dev")
  })
})

describe("the redirect proxy behind two real HTTP servers", () => {
  it("the preview's sign-in bounces off the proxy's server and completes on the preview's", async () => {
    const deploymentAt = (): AuthConfig => ({
      secret: SECRET,
      trustHost: true,
      trustedOrigins: [proxyServer.origin, previewServer.origin],
      redirectProxyUrl: `${proxyServer.origin}/auth`,
      providers: [demoProvider(op.issuer)],
    })
    proxyServer.server.on("request", authListener(deploymentAt()))
    previewServer.server.on("request", authListener(deploymentAt()))
    const transport = (request: Request) => fetch(request, { redirect: "manual" })
    const preview = new Browser(transport, previewServer.origin)

    const authorize = location(await startSignIn(preview, "demo-oidc", { callbackUrl: "/dashboard" }))
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${proxyServer.origin}/auth/callback/demo-oidc`)
    const atProxy = await throughProvider(authorize, proxyServer.origin)
    // The browser arrives at the proxy with no cookies of its own there.
    const bounce = await fetch(atProxy, { redirect: "manual" })
    expect(bounce.status).toBe(302)
    const back = new URL(bounce.headers.get("location")!)
    expect(back.origin + back.pathname).toBe(`${previewServer.origin}/auth/callback/demo-oidc`)
    const done = await preview.request(back.pathname + back.search)
    expect(done.headers.get("location")).toBe(`${previewServer.origin}/dashboard`)
    expect((await preview.session()).user.email).toBe("demo@portcullis.dev")
  })
})

describe("the redirect proxy refuses a state naming an untrusted origin", () => {
  it("a deployment sharing the secret seals its own origin; the proxy, not trusting it, sends the code nowhere", async () => {
    vi.stubEnv("AUTH_REDIRECT_PROXY_URL", `${PROXY}/auth`)
    // A misconfigured (or attacker-run) deployment that has the secret and trusts itself.
    const rogue = new Browser(direct(deployment("AUTH_REDIRECT_PROXY_URL", [PROXY, "https://evil.example"])), "https://evil.example")
    const authorize = location(await startSignIn(rogue, "demo-oidc"))
    expect(authorize.searchParams.get("redirect_uri")).toBe(PROXY_CALLBACK)
    // A victim authorizes at the provider; their browser arrives at the genuine proxy.
    const atProxy = await throughProvider(authorize, PROXY)
    const code = atProxy.searchParams.get("code")!
    const response = await new Browser(direct(deployment("AUTH_REDIRECT_PROXY_URL")), PROXY).request(atProxy.pathname + atProxy.search)

    expect(response.status).toBe(302)
    const target = new URL(response.headers.get("location")!)
    expect(target.origin).toBe(PROXY)
    expect(target.pathname).toBe("/auth/error")
    expect(target.searchParams.get("error")).toBe("Configuration")
    expect(response.headers.get("location")).not.toContain(code)
    expect(response.headers.getSetCookie().some((c) => c.includes("session-token"))).toBe(false)
  })

  it("a preview whose origin is not trusted seals nothing: the sign-in is refused before reaching the provider", async () => {
    vi.stubEnv("AUTH_REDIRECT_PROXY_URL", `${PROXY}/auth`)
    const untrusted = new Browser(direct(deployment("AUTH_REDIRECT_PROXY_URL")), "https://preview-42.evil.example")
    const response = await startSignIn(untrusted, "demo-oidc")
    expect(response.status).toBe(302)
    const target = new URL(response.headers.get("location")!)
    expect(target.pathname).toBe("/auth/error")
    expect(target.searchParams.get("error")).toBe("Configuration")
  })
})
