/**
 * `AUTH_<ID>_ID`, `AUTH_<ID>_SECRET` and `AUTH_<ID>_ISSUER`: a provider configured without
 * its credentials takes them from the environment, through `Auth()` with no integration
 * in between; what the app's config sets explicitly wins. As Auth.js's `setEnvDefaults`
 * (`clientId ??= AUTH_<ID>_ID`, …; the id upper-cased, `-` as `_`).
 *
 * Real peers: a GitHub-shaped OAuth server and `oidc-provider` on loopback, which check
 * the client credentials the app sends.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import GitHub from "@portcullis/core/providers/github"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { startDemoOidcProvider, type DemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import { Browser, direct, SECRET } from "../helpers.js"
import { startGitHubServer, type GitHubServer } from "../oauth/fixtures/github-server.js"
import { location, signInThrough, startSignIn } from "../oauth/flow.js"
import { clientId, clientSecret, signInAtOP } from "../oauth/real-op.js"

const ORIGIN = "http://localhost:3000"

let github: GitHubServer
let op: DemoOidcProvider
beforeAll(async () => {
  github = await startGitHubServer()
  op = await startDemoOidcProvider({ port: 0, clientId, clientSecret, redirectUris: [`${ORIGIN}/auth/callback/demo-oidc`] })
})
afterAll(async () => {
  await github.close()
  await op.close()
})
afterEach(() => {
  vi.unstubAllEnvs()
})

const app = (providers: AuthConfig["providers"]): AuthConfig => ({ secret: SECRET, trustHost: true, providers })

describe("AUTH_GITHUB_ID and AUTH_GITHUB_SECRET", () => {
  it("are the GitHub preset's client_id in the authorization URL", async () => {
    vi.stubEnv("AUTH_GITHUB_ID", "github-id-from-env")
    vi.stubEnv("AUTH_GITHUB_SECRET", "github-secret-from-env")
    const authorize = location(await startSignIn(new Browser(direct(app([GitHub()]))), "github"))
    expect(authorize.origin + authorize.pathname).toBe("https://github.com/login/oauth/authorize")
    expect(authorize.searchParams.get("client_id")).toBe("github-id-from-env")
  })

  it("configure a preset passed uncalled (providers: [GitHub]), as next-auth's examples do", async () => {
    vi.stubEnv("AUTH_GITHUB_ID", "github-id-from-env")
    const authorize = location(await startSignIn(new Browser(direct(app([GitHub]))), "github"))
    expect(authorize.searchParams.get("client_id")).toBe("github-id-from-env")
  })

  it("are the client credentials of the code exchange: the sign-in completes", async () => {
    vi.stubEnv("AUTH_GITHUB_ID", github.clientId)
    vi.stubEnv("AUTH_GITHUB_SECRET", github.clientSecret)
    const browser = new Browser(direct(app([GitHub({ enterprise: { baseUrl: github.baseUrl }, allowInsecureLoopback: true })])))
    const done = await signInThrough(browser, "github")
    expect(done.headers.get("location")).toBe(ORIGIN)
    expect((await browser.session())?.user).toBeTruthy()
  })

  it("lose to the app's explicit clientId and clientSecret", async () => {
    vi.stubEnv("AUTH_GITHUB_ID", "wrong-id-from-env")
    vi.stubEnv("AUTH_GITHUB_SECRET", "wrong-secret-from-env")
    const provider = GitHub({ enterprise: { baseUrl: github.baseUrl }, allowInsecureLoopback: true, clientId: github.clientId, clientSecret: github.clientSecret })
    const browser = new Browser(direct(app([provider])))
    const authorize = location(await startSignIn(browser, "github"))
    expect(authorize.searchParams.get("client_id")).toBe(github.clientId)
    const done = await signInThrough(new Browser(direct(app([provider]))), "github")
    expect(done.headers.get("location")).toBe(ORIGIN)
  })
})

describe("AUTH_<ID>_ID, _SECRET and _ISSUER for an OIDC provider", () => {
  /** The demo provider with nothing but its id and kind: everything else from the environment. */
  const bare = (extra: Partial<OAuthConfig<any>> = {}) => ({ id: "demo-oidc", name: "Demo OIDC", type: "oidc", allowInsecureLoopback: true, ...extra }) as OAuthConfig<any>

  it("configure the whole provider (the id's '-' as '_'): sign-in against oidc-provider completes", async () => {
    vi.stubEnv("AUTH_DEMO_OIDC_ID", clientId)
    vi.stubEnv("AUTH_DEMO_OIDC_SECRET", clientSecret)
    vi.stubEnv("AUTH_DEMO_OIDC_ISSUER", op.issuer)
    const browser = new Browser(direct(app([bare()])), ORIGIN)
    const done = await signInAtOP(browser, "demo-oidc", "/dashboard")
    expect(done.headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    expect((await browser.session()).user.email).toBe("demo@portcullis.dev")
  })

  it("lose to what a provider object written out by the app sets: the sign-in uses its issuer and credentials", async () => {
    vi.stubEnv("AUTH_DEMO_OIDC_ID", "wrong-id-from-env")
    vi.stubEnv("AUTH_DEMO_OIDC_SECRET", "wrong-secret-from-env")
    vi.stubEnv("AUTH_DEMO_OIDC_ISSUER", "http://127.0.0.1:9/not-the-issuer")
    const config = app([bare({ issuer: op.issuer, clientId, clientSecret })])
    const authorize = location(await startSignIn(new Browser(direct(config), ORIGIN), "demo-oidc"))
    expect(authorize.origin).toBe(op.issuer)
    expect(authorize.searchParams.get("client_id")).toBe(clientId)
    const browser = new Browser(direct(config), ORIGIN)
    expect((await signInAtOP(browser)).headers.get("location")).toBe(ORIGIN)
    expect((await browser.session()).user.email).toBe("demo@portcullis.dev")
  })

  it("fill only what such an object leaves out", async () => {
    vi.stubEnv("AUTH_DEMO_OIDC_SECRET", clientSecret)
    vi.stubEnv("AUTH_DEMO_OIDC_ISSUER", "http://127.0.0.1:9/not-the-issuer")
    const browser = new Browser(direct(app([bare({ issuer: op.issuer, clientId })])), ORIGIN)
    expect((await signInAtOP(browser)).headers.get("location")).toBe(ORIGIN)
  })
})
