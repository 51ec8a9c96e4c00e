import { afterEach, describe, expect, it, vi } from "vitest"
import { Auth, createActionURL, isAuthAction, raw, setEnvDefaults, skipCSRFCheck, type AuthConfig } from "@portcullis/core"
import { MissingSecret } from "@portcullis/core/errors"
import Credentials from "@portcullis/core/providers/credentials"
import { Browser, SECRET, ada, captureLogger, credentialsConfig, direct } from "./helpers.js"

afterEach(() => vi.unstubAllEnvs())

const get = (config: AuthConfig, path: string, init?: RequestInit) => Auth(new Request(`http://localhost:3000${path}`, init), config)

describe("secrets from the environment (spec §5.1–5.2)", () => {
  it("reads AUTH_SECRET", async () => {
    vi.stubEnv("AUTH_SECRET", SECRET)
    const browser = new Browser(direct(credentialsConfig({ secret: undefined })))
    await browser.signIn()
    expect((await browser.session()).user.name).toBe("Ada Lovelace")
  })

  it("reads the legacy NEXTAUTH_SECRET", async () => {
    vi.stubEnv("NEXTAUTH_SECRET", SECRET)
    const browser = new Browser(direct(credentialsConfig({ secret: undefined })))
    await browser.signIn()
    expect((await browser.session()).user.name).toBe("Ada Lovelace")
  })

  it("rotates with AUTH_SECRET_1: sessions under AUTH_SECRET keep working and are re-issued", async () => {
    vi.stubEnv("AUTH_SECRET", SECRET)
    const before = new Browser(direct(credentialsConfig({ secret: undefined })))
    await before.signIn()
    const oldCookie = before.sessionCookie()
    vi.stubEnv("AUTH_SECRET_1", "the-new-secret-the-new-secret-the-new")
    const after = new Browser(direct(credentialsConfig({ secret: undefined })))
    for (const [k, v] of before.jar) after.jar.set(k, v)
    expect((await after.session()).user.name).toBe("Ada Lovelace")
    expect(after.sessionCookie()).not.toBe(oldCookie) // re-encrypted under the new secret
  })

  it("without any secret: MissingSecret, a 500 without details, and the error page for pages", async () => {
    const { lines, logger } = captureLogger()
    const config = credentialsConfig({ secret: undefined, logger })
    const json = await get(config, "/auth/session")
    expect(json.status).toBe(500)
    expect(await json.json()).toEqual({ message: expect.stringContaining("server configuration") })
    const page = await get(config, "/auth/signin")
    expect(page.status).toBe(500)
    expect(page.headers.get("content-type")).toContain("text/html")
    expect(lines.join("\n")).toContain("MissingSecret")
  })

  it("getToken without a secret throws MissingSecret", async () => {
    const { getToken } = await import("@portcullis/core/jwt")
    await expect(getToken({ req: { headers: { cookie: "authjs.session-token=x" } } })).rejects.toBeInstanceOf(MissingSecret)
  })
})

describe("host trust and AUTH_URL (spec §5.4)", () => {
  it("in production without AUTH_URL or trustHost: UntrustedHost", async () => {
    vi.stubEnv("NODE_ENV", "production")
    const { lines, logger } = captureLogger()
    const response = await get(credentialsConfig({ trustHost: undefined, logger }), "/auth/session")
    expect(response.status).toBe(500)
    expect(lines.join("\n")).toContain("UntrustedHost")
  })

  it("AUTH_TRUST_HOST=false is false (Auth.js reads it as true)", async () => {
    vi.stubEnv("AUTH_TRUST_HOST", "false")
    const response = await get(credentialsConfig({ trustHost: undefined, logger: captureLogger().logger }), "/auth/session")
    expect(response.status).toBe(500)
  })

  it("AUTH_URL sets the origin and, when basePath is unset, the base path", async () => {
    vi.stubEnv("AUTH_URL", "https://app.example/api/auth")
    const response = await Auth(new Request("http://internal:8080/api/auth/providers"), credentialsConfig())
    expect((await response.json()).credentials.callbackUrl).toBe("https://app.example/api/auth/callback/credentials")
  })

  it("the legacy NEXTAUTH_URL works too", async () => {
    vi.stubEnv("NEXTAUTH_URL", "https://legacy.example")
    const response = await Auth(new Request("http://internal/auth/providers"), credentialsConfig())
    expect((await response.json()).credentials.signinUrl).toBe("https://legacy.example/auth/signin/credentials")
  })
})

describe("invalid configuration fails fast, naming the option", () => {
  it.each([
    [{ basePath: "auth" }, "basePath"],
    [{ session: { maxAge: -1 } }, "session.maxAge"],
    [{ session: { strategy: "cookies" as any } }, "session.strategy"],
    [{ session: { strategy: "database" as const } }, "adapter"],
    [{ providers: [{ id: "x", name: "X", type: "credentials" } as any] }, "authorize"],
    [{ providers: [Credentials({}), Credentials({})] }, 'id "credentials"'],
    [{ providers: [{ id: "../evil", name: "E", type: "oauth" } as any] }, "Provider ids"],
  ])("%j", async (extra, mentioned) => {
    const { lines, logger } = captureLogger()
    const response = await get(credentialsConfig({ ...(extra as Partial<AuthConfig>), logger }), "/auth/session")
    expect(response.status).toBe(500)
    expect(lines.join("\n")).toContain(mentioned)
  })
})

describe("custom pages (spec §2.17)", () => {
  const config = credentialsConfig({ pages: { signIn: "/login", error: "/oops", signOut: "/bye", verifyRequest: "/check-mail", newUser: "/welcome" } })

  it("redirect to the app's pages with their parameters", async () => {
    expect((await get(config, "/auth/signin?callbackUrl=%2Fdash")).headers.get("location")).toBe("http://localhost:3000/login?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fdash")
    expect((await get(config, "/auth/error?error=AccessDenied")).headers.get("location")).toBe("http://localhost:3000/oops?error=AccessDenied")
    // As Auth.js: the custom sign-out page gets no parameters.
    expect((await get(config, "/auth/signout")).headers.get("location")).toBe("http://localhost:3000/bye")
    expect((await get(config, "/auth/verify-request?provider=email")).headers.get("location")).toBe("http://localhost:3000/check-mail?provider=email")
  })

  it("send sign-in errors to the custom sign-in page", async () => {
    const response = await new Browser(direct(config)).signIn({ username: "x", password: "y" })
    expect(response.headers.get("location")).toBe("http://localhost:3000/login?error=CredentialsSignin&code=credentials")
  })

  it("do not loop when the error page is the built-in one", async () => {
    const loop = credentialsConfig({ pages: { error: "/auth/error" } })
    expect((await get(loop, "/auth/error?error=AccessDenied")).status).toBe(403)
  })
})

describe("skipCSRFCheck and raw (integration switches)", () => {
  it("with skipCSRFCheck, GET /csrf is 404 and sign-in needs no token", async () => {
    const config = credentialsConfig({ skipCSRFCheck })
    expect((await get(config, "/auth/csrf")).status).toBe(404)
    const browser = new Browser(direct(config))
    const response = await browser.request("/auth/callback/credentials", { form: { ...ada } })
    expect(response.status).toBe(302)
    expect(browser.sessionCookie()).toBeTruthy()
  })

  it("raw returns the internal response, and rethrows AuthErrors", async () => {
    const config = credentialsConfig({ raw, skipCSRFCheck })
    const internal = await Auth(new Request("http://localhost:3000/auth/callback/credentials", { method: "POST", body: new URLSearchParams(ada) }), config)
    expect(internal.redirect).toBe("http://localhost:3000")
    expect(internal.cookies?.[0]?.name).toBe("authjs.session-token")
    await expect(
      Auth(new Request("http://localhost:3000/auth/callback/credentials", { method: "POST", body: new URLSearchParams({ username: "x" }) }), config),
    ).rejects.toMatchObject({ type: "CredentialsSignin" })
  })
})

describe("helpers exported for integrations", () => {
  it("isAuthAction", () => {
    expect(isAuthAction("session")).toBe(true)
    expect(isAuthAction("webauthn-options")).toBe(true)
    expect(isAuthAction("__proto__")).toBe(false)
  })

  it("createActionURL prefers AUTH_URL, else forwarded headers", () => {
    const headers = new Headers({ "x-forwarded-host": "app.example", "x-forwarded-proto": "https" })
    expect(createActionURL("session", "http", headers, {}, { basePath: "/auth" }).href).toBe("https://app.example/auth/session")
    expect(createActionURL("signin", "http", headers, { AUTH_URL: "https://main.example/auth" }, { basePath: "/auth" }).href).toBe("https://main.example/auth/signin")
  })

  it("setEnvDefaults fills secret, basePath, trustHost and provider credentials", () => {
    const config: AuthConfig = { providers: [{ id: "my-sso", name: "SSO", type: "oidc" } as any] }
    setEnvDefaults({ AUTH_SECRET: "s", AUTH_URL: "https://x.example/api/auth", AUTH_MY_SSO_ID: "cid", AUTH_MY_SSO_SECRET: "cs", AUTH_MY_SSO_ISSUER: "https://idp" }, config)
    expect(config.secret).toEqual(["s"])
    expect(config.basePath).toBe("/api/auth")
    expect(config.trustHost).toBe(true)
    expect(config.providers[0]).toMatchObject({ clientId: "cid", clientSecret: "cs", issuer: "https://idp" })
  })
})
