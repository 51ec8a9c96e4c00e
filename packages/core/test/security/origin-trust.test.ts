/**
 * Origin trust (issue 12; checklist T32): every absolute URL handed to a third party — a
 * link mailed to a victim, the origin sealed into a redirect-proxy state — comes from a
 * trusted origin (`AUTH_URL`, `trustedOrigins`, loopback), never from a forgeable Host.
 * Each `it` is an attacker's steps; each ends with nothing leaving the trusted origin.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, captureLogger, direct, SECRET } from "../helpers.js"
import { httpServer } from "../http-server.js"
import { emailConfig, requestLink, startSmtp, type TestSmtp } from "../email/support.js"
import { atProvider, location, PREVIEW, PROXY, proxiedDeployment, startSignIn, useFakeOP } from "../oauth/flow.js"
import { compileTrustedOrigins, envTrustedOrigins } from "../../src/lib/config/trusted-origins.js"
import { exchange } from "../raw-http.js"

const EVIL = "http://evil.example"

afterEach(() => {
  vi.unstubAllEnvs()
})

describe("magic links poisoned through the Host header", () => {
  let smtp: TestSmtp
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(() => smtp.close())

  it("with trustHost alone, a sign-in posted under a forged Host mails nothing and says Configuration", async () => {
    const { lines, logger } = captureLogger()
    // The old demo's config: trustHost, no AUTH_URL, no allow-list.
    const attacker = new Browser(direct(emailConfig(MemoryAdapter(), smtp.url, { logger })), EVIL)
    const before = smtp.messages.length
    const response = await requestLink(attacker, "victim@example.com")
    expect(response.headers.get("location")).toBe(`${EVIL}/auth/error?error=Configuration`)
    expect(smtp.messages.length).toBe(before)
    expect(lines.join("\n")).toMatch(/UntrustedHost: Mailing a sign-in link needs a trusted origin.*AUTH_URL.*trustedOrigins/)
  })

  it("the same holds when the forged host arrives as X-Forwarded-Host", async () => {
    const attacker = new Browser(direct(emailConfig(MemoryAdapter(), smtp.url)), "https://app.example")
    const before = smtp.messages.length
    const forged = { "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" }
    const { csrfToken } = (await (await attacker.request("/auth/csrf", { headers: forged })).json()) as { csrfToken: string }
    const response = await attacker.request("/auth/signin/email", { form: { email: "victim@example.com", csrfToken }, headers: forged })
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("Configuration")
    expect(smtp.messages.length).toBe(before)
  })

  it("with AUTH_URL, a forged Host changes nothing: the link is on AUTH_URL's origin", async () => {
    vi.stubEnv("AUTH_URL", "https://app.example")
    const attacker = new Browser(direct(emailConfig(MemoryAdapter(), smtp.url, { trustHost: false })), EVIL)
    await requestLink(attacker, "victim1@example.com")
    const link = new URL(smtp.linkFor("victim1@example.com"))
    expect(link.origin).toBe("https://app.example")
  })

  it("with trustedOrigins, a listed origin gets its own links and an unlisted one gets none", async () => {
    const config = emailConfig(MemoryAdapter(), smtp.url, { trustedOrigins: ["https://app.example", "https://shop-*.example.org"] })
    await requestLink(new Browser(direct(config), "https://shop-eu.example.org"), "listed@example.com")
    expect(new URL(smtp.linkFor("listed@example.com")).origin).toBe("https://shop-eu.example.org")

    const before = smtp.messages.length
    // One label only: a dot cannot be smuggled into the wildcard.
    for (const origin of [EVIL, "https://shop-eu.evil.example.org", "https://a.shop-eu.example.org", "https://app.example.evil.com"]) {
      const response = await requestLink(new Browser(direct(config), origin), "victim@example.com")
      expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("Configuration")
    }
    expect(smtp.messages.length).toBe(before)
  })

  it("with trustedOrigins and no trustHost, a request from an unlisted origin is a 400 before anything runs", async () => {
    const config = emailConfig(MemoryAdapter(), smtp.url, { trustHost: false, trustedOrigins: ["https://app.example"] })
    const response = await new Browser(direct(config), EVIL).request("/auth/csrf")
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: "InvalidRequest" })
    expect((await new Browser(direct(config), "https://app.example").request("/auth/csrf")).status).toBe(200)
  })

  it("loopback origins are trusted, so development needs no settings (a link to localhost leads back to the clicker's own machine)", async () => {
    await requestLink(new Browser(direct(emailConfig(MemoryAdapter(), smtp.url)), "http://localhost:5173"), "dev@example.com")
    expect(new URL(smtp.linkFor("dev@example.com")).origin).toBe("http://localhost:5173")
  })

  it("through a real HTTP server, a raw forged Host header mails nothing", async () => {
    const server = await httpServer(emailConfig(MemoryAdapter(), smtp.url))
    try {
      // A real browser would not send this Host; an attacker's script does.
      const port = new URL(server.origin).port
      const csrf = await exchange(port, "GET", "/auth/csrf", { host: "evil.example" })
      const csrfToken = (JSON.parse(csrf.body) as { csrfToken: string }).csrfToken
      const cookie = csrf.setCookie.map((c) => c.split(";")[0]).join("; ")
      const before = smtp.messages.length
      const body = new URLSearchParams({ email: "victim@example.com", csrfToken }).toString()
      const response = await exchange(port, "POST", "/auth/signin/email", { host: "evil.example", cookie, "content-type": "application/x-www-form-urlencoded" }, body)
      expect(response.status).toBe(302)
      expect(response.headers.location).toBe(`${EVIL}/auth/error?error=Configuration`)
      expect(smtp.messages.length).toBe(before)
    } finally {
      await server.close()
    }
  })
})

describe("the redirect proxy and a forged Host", () => {
  const fake = useFakeOP()
  const deployment = (extra: Partial<AuthConfig> = {}) => proxiedDeployment(fake.op, extra)

  it("the preview refuses to seal a forged origin: no authorization request leaves it", async () => {
    const attacker = new Browser(direct(deployment()), EVIL)
    const response = await startSignIn(attacker, "fake")
    expect(response.headers.get("location")).toBe(`${EVIL}/auth/error?error=Configuration`)
    expect(attacker.jar.has("authjs.state")).toBe(false)
  })

  it("with trustHost alone (no allow-list), the preview refuses every proxied sign-in and the log names the fix", async () => {
    const { lines, logger } = captureLogger()
    const preview = new Browser(direct(deployment({ trustedOrigins: undefined, logger })), PREVIEW)
    const response = await startSignIn(preview, "fake")
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("Configuration")
    expect(lines.join("\n")).toMatch(/redirect proxy needs a trusted origin.*trustedOrigins/)
  })

  it("the proxy bounces a code only to its own trustedOrigins, even for a state sealed with the shared secret", async () => {
    // A second deployment with the same secret but a careless allow-list seals evil.example.
    const careless = new Browser(direct(deployment({ trustedOrigins: ["http://evil.example"] })), EVIL)
    const authorize = location(await startSignIn(careless, "fake"))
    const atProxy = await atProvider(authorize)
    expect(atProxy.searchParams.get("code")).toBeTruthy()
    const { lines, logger } = captureLogger()
    const proxy = new Browser(direct(deployment({ logger })), PROXY)
    const bounce = await proxy.request(atProxy.pathname + atProxy.search)
    const target = bounce.headers.get("location") ?? ""
    expect(target).toBe(`${PROXY}/auth/error?error=Configuration`)
    expect(target).not.toContain("code=")
    expect(lines.join("\n")).toMatch(/refused to send an authorization code to http:\/\/evil\.example/)
    // Nothing was redeemed anywhere.
    expect(fake.op.requests("/token")).toHaveLength(0)
  })

  it("the whole attack of the report ends with the victim's code never leaving the trusted origins", async () => {
    // 1. The attacker starts a sign-in on the real preview with Host: evil.example — refused,
    //    so there is no state naming evil.example to hand to a victim.
    const attacker = new Browser(direct(deployment()), EVIL)
    const started = await startSignIn(attacker, "fake")
    expect(new URL(started.headers.get("location")!).host).toBe("evil.example")
    expect(new URL(started.headers.get("location")!).pathname).toBe("/auth/error")
    // 2. A genuine preview sign-in still works, through the proxy, back to the preview.
    const victim = new Browser(direct(deployment()), PREVIEW)
    const atProxy = await atProvider(location(await startSignIn(victim, "fake")))
    const bounce = await new Browser(direct(deployment()), PROXY).request(atProxy.pathname + atProxy.search)
    const back = new URL(bounce.headers.get("location")!)
    expect(back.origin).toBe(PREVIEW)
    await victim.request(back.pathname + back.search)
    expect((await victim.session()).user.email).toBe("alice@example.com")
  })
})

describe("trustedOrigins patterns", () => {
  const cases: [pattern: string, origin: string, matches: boolean][] = [
    ["https://app.example.com", "https://app.example.com", true],
    ["https://app.example.com/", "https://app.example.com", true],
    ["https://APP.example.com", "https://app.example.com", true],
    ["https://app.example.com", "http://app.example.com", false],
    ["https://app.example.com:8443", "https://app.example.com:8443", true],
    ["https://app.example.com:443", "https://app.example.com", true],
    ["https://app.example.com", "https://app.example.com:8443", false],
    ["https://*.example.com", "https://a.example.com", true],
    ["https://*.example.com", "https://a.b.example.com", false],
    ["https://*.example.com", "https://example.com", false],
    ["https://*.example.com", "https://a.example.com.evil.com", false],
    ["https://*.example.com", "https://evil.com/.example.com", false],
    ["https://app-*-team.preview.example.com", "https://app-git-main-team.preview.example.com", true],
    ["https://app-*-team.preview.example.com", "https://app-evil.preview.example.com", false],
    ["https://app-*-team.preview.example.com", "https://evilapp-x-team.preview.example.com", false],
    ["https://*.example.com:3000", "https://a.example.com:3000", true],
    ["https://*.example.com:3000", "https://a.example.com", false],
  ]
  it.each(cases)("%s vs %s → %s", (pattern, origin, matches) => {
    expect(compileTrustedOrigins([pattern]).has(origin)).toBe(matches)
  })

  it.each(["evil.example", "https://*.com", "https://example.*", "https://*.co.uk", "https://myapp-*-team.vercel.app", "https://*", "javascript://x.example.com", "https://a.example.com/path", "https://u@a.example.com", "https://a.example.com:99999", "*://a.example.com", 42 as unknown as string])(
    "refuses the pattern %s as a configuration error naming trustedOrigins",
    async (pattern) => {
      const { lines, logger } = captureLogger()
      const response = await Auth_(pattern, logger)
      expect(response.status).toBe(500)
      expect(lines.join("\n")).toMatch(/trustedOrigins/)
    },
  )

  // The registrable-domain check settles once the Public Suffix List has loaded (issue 30):
  // the entries that skip the provider kinds' checks still wait for it.
  it("refuses session management and access tokens too, with a wildcard inside a registrable domain", async () => {
    const { listSessions, readAccessToken } = await import("@portcullis/core/integration")
    const config: AuthConfig = { secret: SECRET, trustHost: true, trustedOrigins: ["https://*.co.uk"], adapter: MemoryAdapter(), providers: [], logger: captureLogger().logger }
    await expect(listSessions({ origin: "https://app.example", headers: new Headers() }, config)).rejects.toThrow(/trustedOrigins: "https:\/\/\*\.co\.uk" has a wildcard inside the registrable domain/)
    await expect(readAccessToken("https://app.example", null, config, "github")).rejects.toThrow(/has a wildcard inside the registrable domain/)
  })

  it("the platform's own deployment URLs join the list; a request cannot add to them", () => {
    const list = envTrustedOrigins({ AUTH_TRUSTED_ORIGINS: "https://a.example, https://b.example", VERCEL_URL: "myapp-abc123-team.vercel.app", VERCEL_BRANCH_URL: "myapp-git-x-team.vercel.app", CF_PAGES_URL: "https://abc.myapp.pages.dev" })
    expect(list).toEqual(["https://a.example", "https://b.example", "https://myapp-abc123-team.vercel.app", "https://myapp-git-x-team.vercel.app", "https://abc.myapp.pages.dev"])
    expect(envTrustedOrigins({ VERCEL_URL: "evil.example/path" })).toEqual([])
  })
})

async function Auth_(pattern: string, logger: ReturnType<typeof captureLogger>["logger"]): Promise<Response> {
  const { Auth } = await import("@portcullis/core")
  return Auth(new Request("https://app.example/auth/csrf"), { secret: SECRET, trustHost: true, trustedOrigins: [pattern], providers: [], logger })
}
