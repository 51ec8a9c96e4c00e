/**
 * Plain OAuth 2 (no OIDC) with the GitHub preset, pointed at a GitHub-shaped server on a
 * loopback port through its `enterprise.baseUrl` option: authorization, code exchange with
 * PKCE and client authentication, `/user` and `/user/emails` through the preset's own
 * userinfo request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import GitHub from "@portcullis/core/providers/github"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, direct, SECRET } from "../helpers.js"
import { startGitHubServer, type GitHubServer } from "./fixtures/github-server.js"
import { checkCookies, location, signInThrough, startSignIn } from "./flow.js"

let github: GitHubServer
beforeAll(async () => {
  github = await startGitHubServer()
})
afterAll(() => github.close())

function gitHub(extra: Record<string, unknown> = {}) {
  return GitHub({
    enterprise: { baseUrl: github.baseUrl },
    clientId: github.clientId,
    clientSecret: github.clientSecret,
    allowInsecureLoopback: true,
    ...extra,
  })
}

describe("GitHub preset against a GitHub-shaped OAuth 2 server", () => {
  it("signs in: state and PKCE, basic client auth, profile from /user and the primary verified email", async () => {
    const tokens: unknown[] = []
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      providers: [gitHub()],
      callbacks: {
        jwt({ token, account, trigger }) {
          if (trigger === "signIn") tokens.push({ sub: token.sub, account })
          return token
        },
      },
    }
    const browser = new Browser(direct(config))
    const start = await startSignIn(browser, "github", { callbackUrl: "/repos" })
    const authorize = location(start)
    expect(authorize.origin + authorize.pathname).toBe(`${github.baseUrl}/login/oauth/authorize`)
    expect(authorize.searchParams.get("scope")).toBe("read:user user:email")
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256")
    expect(authorize.searchParams.get("state")).toBeTruthy()
    // Plain OAuth: no nonce by default.
    expect(authorize.searchParams.has("nonce")).toBe(false)

    const back = await fetch(authorize, { redirect: "manual" })
    const callback = new URL(back.headers.get("location")!)
    const response = await browser.request(callback.pathname + callback.search)
    expect(response.headers.get("location")).toBe("http://localhost:3000/repos")
    for (const name of checkCookies) expect(browser.jar.has(name)).toBe(false)

    const session = await browser.session()
    expect(session.user).toEqual({ name: "octocat", email: "octocat@example.com", image: "https://avatars.example/u/4242" })

    const token = github.log.find((r) => r.path === "/login/oauth/access_token")!
    expect(token.headers.authorization).toMatch(/^Basic /)
    expect(token.body.get("code_verifier")).toBeTruthy()
    const user = github.log.find((r) => r.path === "/api/v3/user")!
    expect(user.headers["user-agent"]).toBe("portcullis")

    expect(tokens).toEqual([
      {
        sub: "github:4242",
        account: expect.objectContaining({ provider: "github", type: "oauth", providerAccountId: "4242", token_type: "bearer", scope: "read:user,user:email" }),
      },
    ])
  })

  it("client_secret_post sends the secret in the body instead", async () => {
    github.log.length = 0
    const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [gitHub({ client: { token_endpoint_auth_method: "client_secret_post" } })] }
    const browser = new Browser(direct(config))
    expect((await signInThrough(browser, "github")).headers.get("location")).toBe("http://localhost:3000")
    const token = github.log.find((r) => r.path === "/login/oauth/access_token")!
    expect(token.headers.authorization).toBeUndefined()
    expect(token.body.get("client_secret")).toBe(github.clientSecret)
  })

  it("GitHub's error-in-a-200 token answer (bad_verification_code) is OAuthCallbackError", async () => {
    const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [gitHub()] }
    const browser = new Browser(direct(config))
    const authorize = location(await startSignIn(browser, "github"))
    const callback = new URL((await fetch(authorize, { redirect: "manual" })).headers.get("location")!)
    callback.searchParams.set("code", "not-a-code")
    const response = await browser.request(callback.pathname + callback.search)
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/signin?error=OAuthCallbackError")
    expect(await browser.session()).toBeNull()
  })

  it("with the memory adapter: one user and one account keyed by the GitHub id", async () => {
    const adapter = MemoryAdapter()
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, providers: [gitHub()] }
    await signInThrough(new Browser(direct(config)), "github")
    await signInThrough(new Browser(direct(config)), "github")
    const user = await adapter.getUserByAccount!({ provider: "github", providerAccountId: "4242" })
    expect(user).toMatchObject({ email: "octocat@example.com", name: "octocat" })
    const account = await adapter.getAccount!("4242", "github")
    expect(account).toMatchObject({ userId: user!.id, type: "oauth", token_type: "bearer", scope: "read:user,user:email" })
    expect(Object.keys(account!).sort()).toEqual(["access_token", "provider", "providerAccountId", "scope", "token_type", "type", "userId"])
  })
})
