/**
 * Configuration errors answer and log as Auth.js's do (issue #16 C.1–C.3): the same status,
 * body and content type from `Auth()`, the `[auth][error] <Type>: … Read more at …` log
 * line, provider problems found when the configuration is checked (so every action answers
 * them), and plain-http providers allowed outside production only. Where it helps, the
 * same request goes through `@auth/core` in the same test.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { Auth as AuthJs } from "@auth/core"
import { Auth, type AuthConfig } from "@portcullis/core"
import { MissingSecret } from "@portcullis/core/errors"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { captureLogger, SECRET } from "../helpers.js"

const origin = "http://localhost:3000"
const get = (path: string) => new Request(`${origin}${path}`)
const post = (path: string) =>
  new Request(`${origin}${path}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", origin }, body: "csrfToken=x" })

/** What a client can observe of a response: status, content type, body. */
async function observe(response: Response) {
  const type = response.headers.get("content-type") ?? ""
  const body = type.includes("json") ? await response.json() : await response.text()
  return { status: response.status, json: type.startsWith("application/json"), location: response.headers.get("location"), body }
}

/** An OAuth provider configured with neither an issuer nor endpoints. */
const endpointless = (): OAuthConfig<any> => ({ id: "broken", name: "Broken", type: "oauth", clientId: "id", clientSecret: "secret" }) as OAuthConfig<any>

const silent = () => ({ error: () => {}, warn: () => {}, debug: () => {} })

describe("a configuration error answers what Auth.js answers", () => {
  // A fresh config per call: Auth.js writes defaults into the object it is given.
  const missingSecret = (): AuthConfig => ({ providers: [], trustHost: true, basePath: "/auth", logger: silent() })

  it.each([
    ["GET /session", () => get("/auth/session")],
    ["GET /csrf", () => get("/auth/csrf")],
    ["GET /providers", () => get("/auth/providers")],
    ["POST /signout", () => post("/auth/signout")],
  ])("%s: a JSON 500 with Auth.js's message", async (_name, request) => {
    const ours = await observe(await Auth(request(), missingSecret()))
    const theirs = await observe(await AuthJs(request(), missingSecret() as any))
    expect(ours).toEqual(theirs)
    expect(ours).toMatchObject({ status: 500, json: true, body: { message: "There was a problem with the server configuration. Check the server logs for more information." } })
  })

  it.each([["/auth/signin"], ["/auth/signout"], ["/auth/error"], ["/auth/verify-request"]])("GET %s: the built-in error page with status 500", async (path) => {
    const ours = await Auth(get(path), missingSecret())
    const theirs = await AuthJs(get(path), missingSecret() as any)
    expect(ours.status).toBe(theirs.status)
    expect(ours.status).toBe(500)
    expect(ours.headers.get("content-type")).toMatch(/^text\/html/)
    expect(await ours.text()).toContain("There is a problem with the server configuration.")
  })

  it("GET of a page with pages.error set: a 302 to it with ?error=Configuration", async () => {
    const config = () => ({ ...missingSecret(), pages: { error: "/oops" } })
    const ours = await Auth(get("/auth/signin"), config())
    const theirs = await AuthJs(get("/auth/signin"), config() as any)
    expect(ours.status).toBe(theirs.status)
    expect(ours.headers.get("location")).toBe(theirs.headers.get("location"))
    expect(ours.headers.get("location")).toBe(`${origin}/oops?error=Configuration`)
  })

  it("an error page that itself requires sign-in (callbackUrl back to it) gets the built-in page and ErrorPageLoop is logged", async () => {
    const log = captureLogger()
    const config: AuthConfig = { ...missingSecret(), pages: { error: "/oops" }, logger: log.logger }
    const response = await Auth(get("/auth/signin?callbackUrl=%2Foops%3Ferror%3DConfiguration"), config)
    expect(response.status).toBe(500)
    expect(response.headers.get("location")).toBeNull()
    expect(log.lines.some((l) => l.startsWith("ErrorPageLoop: The error page /oops should not require authentication"))).toBe(true)
  })

  it("hostile: a garbage callbackUrl on a page request of a broken configuration is still the configuration page, never a crash", async () => {
    const response = await Auth(get("/auth/signin?callbackUrl=%00%ZZjavascript:alert(1)"), { ...missingSecret(), pages: { error: "/oops" } })
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${origin}/oops?error=Configuration`)
  })
})

describe("errors are logged in Auth.js's shape", () => {
  let lines: string[]
  beforeEach(() => {
    lines = []
    vi.spyOn(console, "error").mockImplementation((...parts: unknown[]) => void lines.push(parts.join(" ")))
    vi.spyOn(console, "warn").mockImplementation((...parts: unknown[]) => void lines.push(parts.join(" ")))
  })
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it("the default logger writes `[auth][error] <Type>: <message>. Read more at <url>`, then the stack", async () => {
    await Auth(get("/auth/session"), { providers: [], trustHost: true })
    expect(lines[0]).toMatch(/^\[auth\]\[error\] MissingSecret: .+\. Read more at https:\/\/errors\.authjs\.dev#missingsecret$/)
    expect(lines[1]).toMatch(/^\s+at /)
  })

  it("error messages end with where to read more, as Auth.js's do", () => {
    expect(new MissingSecret("Please define a `secret`").message).toBe("Please define a `secret`. Read more at https://errors.authjs.dev#missingsecret")
    expect(new MissingSecret().message).toBe("Read more at https://errors.authjs.dev#missingsecret")
  })

  it("an error with a cause logs `[auth][cause]:` with the cause's stack and `[auth][details]:`", async () => {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      providers: [() => { throw new Error("factory broke") }] as any,
    }
    await Auth(get("/auth/session"), config)
    expect(lines[0]).toMatch(/^\[auth\]\[error\] InvalidConfig: A provider factory threw/)
    expect(lines[1]).toMatch(/^\[auth\]\[cause\]: Error: factory broke/)
  })

  it("a message that ends with a full stop gets no second one before `Read more`", () => {
    expect(new MissingSecret("Set AUTH_SECRET.").message).toBe("Set AUTH_SECRET. Read more at https://errors.authjs.dev#missingsecret")
  })

  it("the app's debug logger is called with or without debug: true, as in Auth.js (spec §2.12)", async () => {
    const calls: string[] = []
    const logger = { debug: (message: string) => void calls.push(message), error: () => {}, warn: () => {} }
    const adapter = (await import("@portcullis/memory-adapter")).MemoryAdapter()
    const request = () => new Request("http://localhost:3000/auth/session", { headers: { cookie: "authjs.session-token=abc" } })
    await Auth(request(), { secret: SECRET, trustHost: true, providers: [], adapter, logger })
    expect(calls.length).toBeGreaterThan(0)
    calls.length = 0
    await Auth(request(), { secret: SECRET, trustHost: true, providers: [], adapter, logger, debug: true })
    expect(calls.length).toBeGreaterThan(0)
  })

  it("warnings are `[auth][warn][<code>]`", async () => {
    await Auth(get("/auth/session"), { secret: "short", trustHost: true, providers: [] })
    expect(lines.some((l) => l.startsWith("[auth][warn][short-secret]"))).toBe(true)
  })
})

describe("a misconfigured OAuth provider is a configuration error on every action, found when the configuration is checked", () => {
  const config = (provider: OAuthConfig<any>): AuthConfig => ({ secret: SECRET, trustHost: true, providers: [provider], logger: silent() })

  it("no issuer and no authorization endpoint: every action answers the configuration error, as in Auth.js", async () => {
    for (const request of [() => get("/auth/providers"), () => get("/auth/session"), () => get("/auth/csrf"), () => get("/auth/signin")]) {
      const ours = await observe(await Auth(request(), config(endpointless())))
      const theirs = await observe(await AuthJs(request(), config(endpointless()) as any))
      expect(ours.status).toBe(theirs.status)
      expect(ours.status).toBe(500)
      if (theirs.json) expect(ours.body).toEqual(theirs.body)
    }
  })

  it("the log names the provider and the missing endpoint, as Auth.js's InvalidEndpoints does", async () => {
    const log = captureLogger()
    await Auth(get("/auth/providers"), { ...config(endpointless()), logger: log.logger })
    expect(log.lines[0]).toContain('InvalidEndpoints: Provider "broken" is missing both `issuer` and `authorization` endpoint config. At least one of them is required')
  })

  it.each([
    ["an authorization URL that is not a URL", { authorization: "not a url", token: "https://op.example/token", userinfo: "https://op.example/me" }],
    ["a token URL with another scheme", { authorization: "https://op.example/auth", token: "javascript:alert(1)", userinfo: "https://op.example/me" }],
    ["an issuer that is not a URL", { type: "oidc", issuer: "https://" }],
    ["an issuer of the wrong type", { type: "oidc", issuer: 42 }],
    ["a wellKnown URL with a file scheme", { type: "oidc", wellKnown: "file:///etc/passwd" }],
    ["an unknown check", { issuer: "https://op.example", checks: ["pkce", "magic"] }],
  ])("hostile: %s is a configuration error for /providers, not a 200 or a crash", async (_name, extra) => {
    const log = captureLogger()
    const response = await Auth(get("/auth/providers"), { ...config({ ...endpointless(), ...(extra as object) } as OAuthConfig<any>), logger: log.logger })
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ message: "There was a problem with the server configuration. Check the server logs for more information." })
    expect(log.lines[0]).toMatch(/^(InvalidEndpoints|InvalidConfig): Provider "broken"|^(InvalidEndpoints|InvalidConfig): .*provider "broken"/)
  })

  it("a provider with an issuer and no endpoints is fine (they are discovered at sign-in)", async () => {
    const response = await Auth(get("/auth/providers"), config({ ...endpointless(), type: "oidc", issuer: "https://op.example" } as OAuthConfig<any>))
    expect(response.status).toBe(200)
  })
})

describe("plain-http providers: allowed outside production, a configuration error in production", () => {
  afterEach(() => {
    vi.unstubAllEnvs()
  })
  const keycloak = (extra: Partial<OAuthConfig<any>> = {}) =>
    ({ id: "keycloak", name: "Keycloak", type: "oidc", issuer: "http://keycloak.internal:8080/realms/app", clientId: "id", clientSecret: "secret", ...extra }) as OAuthConfig<any>

  it("outside production an http issuer is accepted, with one warning naming the provider", async () => {
    vi.stubEnv("NODE_ENV", "development")
    const log = captureLogger()
    const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [keycloak(), keycloak({ id: "other" })], logger: log.logger }
    expect((await Auth(get("/auth/providers"), config)).status).toBe(200)
    expect((await Auth(get("/auth/providers"), config)).status).toBe(200)
    const warnings = log.lines.filter((l) => l.startsWith("insecure-provider-endpoint"))
    expect(warnings).toHaveLength(2)
    expect(warnings[0]).toContain('"provider":"keycloak"')
    expect(warnings[1]).toContain('"provider":"other"')
  })

  it("in production an http issuer is a configuration error on every request, saying what to do", async () => {
    vi.stubEnv("NODE_ENV", "production")
    const log = captureLogger()
    const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [keycloak()], logger: log.logger }
    for (const path of ["/auth/providers", "/auth/session"]) {
      const response = await Auth(get(path), config)
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({ message: "There was a problem with the server configuration. Check the server logs for more information." })
    }
    expect(log.lines[0]).toContain("InvalidEndpoints")
    expect(log.lines[0]).toContain("must use https")
    expect(log.lines[0]).toContain("allowInsecureLoopback: true")
  })

  it("in production a loopback http issuer is accepted with allowInsecureLoopback: true", async () => {
    vi.stubEnv("NODE_ENV", "production")
    const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [keycloak({ issuer: "http://127.0.0.1:8080/realms/app", allowInsecureLoopback: true })], logger: silent() }
    expect((await Auth(get("/auth/providers"), config)).status).toBe(200)
  })

  it("hostile: in production, allowInsecureLoopback does not open a remote http host", async () => {
    vi.stubEnv("NODE_ENV", "production")
    const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [keycloak({ allowInsecureLoopback: true })], logger: silent() }
    expect((await Auth(get("/auth/providers"), config)).status).toBe(500)
  })
})
