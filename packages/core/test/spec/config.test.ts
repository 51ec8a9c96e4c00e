/**
 * Spec requirements of the configuration and its environment that no other suite holds:
 * `trustHost` switched on by a known platform's variable (§5.4), the warning that enabling
 * WebAuthn prints (§2.12 `experimental`, §9.4), and the `redirect` callback on sign-out
 * (§4.4: "called on every redirect to a callback URL (sign-in, sign-out)").
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, captureLogger, credentialsConfig, direct, SECRET } from "../helpers.js"

afterEach(() => vi.unstubAllEnvs())

describe("trustHost is switched on by a known platform's variable (§5.4)", () => {
  /** Production, with nothing else that would trust the host. */
  function production() {
    vi.stubEnv("NODE_ENV", "production")
    for (const name of ["AUTH_URL", "NEXTAUTH_URL", "AUTH_TRUST_HOST", "VERCEL", "CF_PAGES", "AUTH_TRUSTED_ORIGINS", "VERCEL_URL", "VERCEL_BRANCH_URL", "VERCEL_PROJECT_PRODUCTION_URL", "CF_PAGES_URL"]) vi.stubEnv(name, "")
  }
  const providers = (config: AuthConfig) =>
    Auth(new Request("http://10.0.0.7:3000/auth/providers", { headers: { "x-forwarded-host": "app.example", "x-forwarded-proto": "https" } }), config)

  it("without one, a production request from an unconfigured host is refused (UntrustedHost)", async () => {
    production()
    const { lines, logger } = captureLogger()
    const response = await providers(credentialsConfig({ trustHost: undefined, logger }))
    expect(response.status).toBe(500)
    expect(lines.join("\n")).toContain("UntrustedHost")
  })

  it.each([["VERCEL"], ["CF_PAGES"]])("with %s=1 the host is trusted, its forwarded headers included", async (variable) => {
    production()
    vi.stubEnv(variable, "1")
    const response = await providers(credentialsConfig({ trustHost: undefined, logger: captureLogger().logger }))
    expect(response.status).toBe(200)
    expect((await response.json()).credentials.signinUrl).toBe("https://app.example/auth/signin/credentials")
  })

  it("an explicit trustHost: false still wins over the platform", async () => {
    production()
    vi.stubEnv("VERCEL", "1")
    const response = await providers(credentialsConfig({ trustHost: false, logger: captureLogger().logger }))
    expect(response.status).toBe(500)
  })
})

describe("experimental.enableWebAuthn prints the experimental-webauthn warning (§2.12, §9.4)", () => {
  const passkeys = (experimental: AuthConfig["experimental"], warn: (code: string) => void): AuthConfig => ({
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(),
    providers: [Passkey({})],
    ...(experimental && { experimental }),
    logger: { warn, error: () => {}, debug: () => {} },
  })

  it("warns once when a WebAuthn provider is enabled", async () => {
    const warnings: string[] = []
    const config = passkeys({ enableWebAuthn: true }, (code) => void warnings.push(code))
    expect((await Auth(new Request("http://localhost:3000/auth/providers"), config)).status).toBe(200)
    await Auth(new Request("http://localhost:3000/auth/session"), config)
    expect(warnings.filter((c) => c === "experimental-webauthn")).toEqual(["experimental-webauthn"])
  })

  it("without enableWebAuthn the provider is a configuration error and nothing warns", async () => {
    const warnings: string[] = []
    const errors: string[] = []
    const config: AuthConfig = { ...passkeys(undefined, () => {}), logger: { warn: (code) => void warnings.push(code), error: (e) => void errors.push(e.name), debug: () => {} } }
    expect((await Auth(new Request("http://localhost:3000/auth/providers"), config)).status).toBe(500)
    expect(errors).toContain("ExperimentalFeatureNotEnabled")
    expect(warnings).not.toContain("experimental-webauthn")
  })

  it("without a WebAuthn provider nothing warns", async () => {
    const warnings: string[] = []
    await Auth(new Request("http://localhost:3000/auth/session"), credentialsConfig({ experimental: { enableWebAuthn: true }, logger: { warn: (code) => void warnings.push(code) } }))
    expect(warnings).not.toContain("experimental-webauthn")
  })
})

describe("the redirect callback on sign-out (§4.4)", () => {
  it("is called with the sign-out's callbackUrl and the base URL, and its answer is where the user goes", async () => {
    const redirect = vi.fn(({ url, baseUrl }: { url: string; baseUrl: string }) => (url.endsWith("/goodbye") ? `${baseUrl}/farewell` : baseUrl))
    const browser = new Browser(direct(credentialsConfig({ callbacks: { redirect } })))
    await browser.signIn()
    redirect.mockClear()
    const csrfToken = await browser.csrfToken()
    const response = await browser.request("/auth/signout", { form: { csrfToken, callbackUrl: "/goodbye" } })
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("http://localhost:3000/farewell")
    expect(redirect).toHaveBeenCalledWith({ url: "http://localhost:3000/goodbye", baseUrl: "http://localhost:3000" })
    expect(browser.sessionCookie()).toBeUndefined()
  })

  it("answers the JSON form ({ url }) with the callback's answer too", async () => {
    const redirect = vi.fn(({ baseUrl }: { url: string; baseUrl: string }) => `${baseUrl}/signed-out`)
    const browser = new Browser(direct(credentialsConfig({ callbacks: { redirect } })))
    await browser.signIn()
    const csrfToken = await browser.csrfToken()
    const response = await browser.request("/auth/signout", { form: { csrfToken, callbackUrl: "/x" }, headers: { "x-auth-return-redirect": "1" } })
    expect(await response.json()).toEqual({ url: "http://localhost:3000/signed-out" })
    expect(redirect).toHaveBeenCalled()
  })
})
