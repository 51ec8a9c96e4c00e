/**
 * Attacks on the plain-http provider policy (today's "http allowed outside production"):
 * a deployment must not end up talking plain http to its identity provider because it
 * forgot to set NODE_ENV, because an https discovery document names http endpoints, or
 * because an https endpoint redirects to http.
 *
 * The provider is in-process (`customFetch`), so every back-channel URL Portcullis asks
 * for is recorded: "refused" means the http URL was never requested at all.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { exportJWK, generateKeyPair, SignJWT } from "jose"
import { Auth, customFetch, type AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { Browser, direct, SECRET } from "../helpers.js"
import { checkCookies, deliver, location, startSignIn } from "../oauth/flow.js"

const silent = () => ({ error: () => {}, warn: () => {}, debug: () => {} })
const ISSUER = "https://op.example"
/** The deployment: https, as production is. */
const APP = "https://app.example"
const { publicKey, privateKey } = await generateKeyPair("RS256")
const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" }

afterEach(() => vi.unstubAllEnvs())

/** An https OP whose discovery document says what the test wants, recording every request. */
function inProcessOP(metadata: Record<string, string> = {}) {
  const requested: string[] = []
  let nonce: string | undefined
  const discovery = {
    issuer: ISSUER,
    authorization_endpoint: `${ISSUER}/authorize`,
    token_endpoint: `${ISSUER}/token`,
    userinfo_endpoint: `${ISSUER}/userinfo`,
    jwks_uri: `${ISSUER}/jwks`,
    response_types_supported: ["code"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256"],
    ...metadata,
  }
  const fetcher = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    requested.push(url.href)
    const json = (body: unknown) => Response.json(body)
    if (url.pathname === "/.well-known/openid-configuration") return json(discovery)
    if (url.pathname.endsWith("/jwks")) return json({ keys: [jwk] })
    if (url.pathname.endsWith("/token")) {
      expect(init?.redirect).toBe("manual")
      const id_token = await new SignJWT({ nonce, email: "victim@example.com" })
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .setIssuer(ISSUER)
        .setSubject("user-1")
        .setAudience("client")
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(privateKey)
      return json({ access_token: "at", token_type: "Bearer", id_token, expires_in: 300 })
    }
    if (url.pathname.endsWith("/userinfo")) return json({ sub: "user-1", email: "victim@example.com" })
    return new Response("not found", { status: 404 })
  }
  const provider: OAuthConfig<any> = {
    id: "op",
    name: "OP",
    type: "oidc",
    issuer: ISSUER,
    clientId: "client",
    clientSecret: "client-secret",
    [customFetch]: fetcher as typeof fetch,
  }
  return { requested, provider, rememberNonce: (n: string | null) => (nonce = n ?? undefined) }
}

function keycloak(issuer: string): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: silent(),
    providers: [{ id: "kc", name: "Keycloak", type: "oidc", issuer, clientId: "id", clientSecret: "secret" } as OAuthConfig<any>],
  }
}

const providers = (config: AuthConfig) => Auth(new Request("http://localhost:3000/auth/providers"), config)

describe("attack: a deployment that never said NODE_ENV=production gets plain http to its provider", () => {
  it("NODE_ENV unset (a Worker has no process.env; a bare `node server.js`) counts as production: an http issuer is a configuration error", async () => {
    vi.stubEnv("NODE_ENV", undefined)
    const response = await providers(keycloak("http://keycloak.internal:8080/realms/app"))
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ message: "There was a problem with the server configuration. Check the server logs for more information." })
  })

  it.each(["staging", "prod", "Production", ""])("NODE_ENV=%j counts as production too", async (value) => {
    vi.stubEnv("NODE_ENV", value)
    expect((await providers(keycloak("http://keycloak.internal:8080/realms/app"))).status).toBe(500)
  })

  it.each(["development", "test"])("NODE_ENV=%s (next dev, Vite, Vitest) still allows it, as Auth.js does", async (value) => {
    vi.stubEnv("NODE_ENV", value)
    expect((await providers(keycloak("http://keycloak.internal:8080/realms/app"))).status).toBe(200)
  })

  it.each([undefined, "staging"])("NODE_ENV=%j: an http issuer on this machine (a local Keycloak on localhost) is allowed, with a warning, as Auth.js allows it", async (value) => {
    vi.stubEnv("NODE_ENV", value)
    const warnings: unknown[] = []
    const config = { ...keycloak("http://localhost:8080/realms/app"), logger: { ...silent(), warn: (code: unknown) => void warnings.push(code) } }
    expect((await providers(config)).status).toBe(200)
    expect(warnings).toContain("insecure-provider-endpoint")
  })

  it("NODE_ENV=production: an http issuer on this machine still needs allowInsecureLoopback", async () => {
    vi.stubEnv("NODE_ENV", "production")
    expect((await providers(keycloak("http://localhost:8080/realms/app"))).status).toBe(500)
    const optedIn = keycloak("http://127.0.0.1:8080/realms/app")
    ;(optedIn.providers[0] as OAuthConfig<any>).allowInsecureLoopback = true
    expect((await providers(optedIn)).status).toBe(200)
  })

  it("NODE_ENV unset: a host that only looks local (localhost.evil.example, 127.0.0.1.nip.io) is not loopback", async () => {
    vi.stubEnv("NODE_ENV", undefined)
    for (const issuer of ["http://localhost.evil.example/realms/app", "http://127.0.0.1.nip.io/realms/app", "http://[::ffff:7f00:1]/realms/app"]) {
      expect((await providers(keycloak(issuer))).status, issuer).toBe(500)
    }
  })

  it("an https issuer is fine with NODE_ENV unset", async () => {
    vi.stubEnv("NODE_ENV", undefined)
    expect((await providers(keycloak("https://keycloak.example/realms/app"))).status).toBe(200)
  })
})

describe("attack: an https issuer's discovery document names http endpoints (production)", () => {
  async function signIn(metadata: Record<string, string>) {
    vi.stubEnv("NODE_ENV", "production")
    const op = inProcessOP(metadata)
    const browser = new Browser(direct({ secret: SECRET, trustHost: true, logger: silent(), providers: [op.provider] }), APP)
    const start = await startSignIn(browser, "op")
    return { op, browser, start }
  }

  async function throughCallback(metadata: Record<string, string>) {
    const { op, browser, start } = await signIn(metadata)
    const authorize = location(start)
    expect(authorize.origin).toBe(ISSUER)
    op.rememberNonce(authorize.searchParams.get("nonce"))
    const callback = new URL(`${APP}/auth/callback/op`)
    callback.searchParams.set("code", "the-code")
    callback.searchParams.set("state", authorize.searchParams.get("state")!)
    callback.searchParams.set("iss", ISSUER)
    const response = await deliver(browser, callback)
    return { op, browser, response }
  }

  function expectNoSession(browser: Browser, response: Response) {
    expect(response.status).toBe(302)
    expect(new URL(response.headers.get("location")!).pathname).toMatch(/^\/auth\/(signin|error)$/)
    expect(browser.lastSetCookies.some((c) => c.name.includes("session-token") && c.value !== "")).toBe(false)
    for (const name of checkCookies) expect(browser.jar.has(`__Secure-${name}`)).toBe(false)
  }

  it("baseline: all-https metadata signs in (so the refusals below are the policy, not a broken fixture)", async () => {
    const { op, browser, response } = await throughCallback({})
    expect(new URL(response.headers.get("location")!).pathname).toBe("/")
    expect((await browser.session())?.user?.email).toBe("victim@example.com")
    expect(op.requested.every((u) => u.startsWith("https:"))).toBe(true)
  })

  it("an http authorization_endpoint: the browser is not sent to it", async () => {
    const { start } = await signIn({ authorization_endpoint: "http://op.example/authorize" })
    expect(start.status).toBe(302)
    const target = new URL(start.headers.get("location")!)
    expect(target.origin).toBe(APP)
    expect(target.pathname).toMatch(/^\/auth\/(signin|error)$/)
  })

  it("an http token_endpoint: the code is never sent over http", async () => {
    const { op, browser, response } = await throughCallback({ token_endpoint: "http://op.example/token" })
    expectNoSession(browser, response)
    expect(op.requested.filter((u) => u.startsWith("http:"))).toEqual([])
  })

  it("an http jwks_uri: keys are never fetched over http, and the id_token is not accepted", async () => {
    const { op, browser, response } = await throughCallback({ jwks_uri: "http://op.example/jwks" })
    expectNoSession(browser, response)
    expect(op.requested).toContain(`${ISSUER}/token`)
    expect(op.requested.filter((u) => u.startsWith("http:"))).toEqual([])
  })

  it("an http userinfo_endpoint on an OAuth provider: the access token is never sent over http", async () => {
    vi.stubEnv("NODE_ENV", "production")
    const op = inProcessOP({ userinfo_endpoint: "http://op.example/userinfo" })
    const provider = { ...op.provider, type: "oauth", idToken: false } as OAuthConfig<any>
    const browser = new Browser(direct({ secret: SECRET, trustHost: true, logger: silent(), providers: [provider] }), APP)
    const authorize = location(await startSignIn(browser, "op"))
    const callback = new URL(`${APP}/auth/callback/op`)
    callback.searchParams.set("code", "the-code")
    if (authorize.searchParams.get("state")) callback.searchParams.set("state", authorize.searchParams.get("state")!)
    const response = await deliver(browser, callback)
    expectNoSession(browser, response)
    expect(op.requested).toContain(`${ISSUER}/token`)
    expect(op.requested.filter((u) => u.startsWith("http:"))).toEqual([])
  })
})

describe("attack: an https token endpoint redirects to http (or to cloud metadata)", () => {
  it("the redirect is not followed and the sign-in fails closed", async () => {
    vi.stubEnv("NODE_ENV", "production")
    const op = inProcessOP()
    const inner = op.provider[customFetch]!
    const requested: string[] = []
    op.provider[customFetch] = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input)
      requested.push(url)
      if (url.endsWith("/token")) return new Response(null, { status: 307, headers: { location: "http://169.254.169.254/latest/meta-data/" } })
      return inner(input, init)
    }) as typeof fetch
    const browser = new Browser(direct({ secret: SECRET, trustHost: true, logger: silent(), providers: [op.provider] }), APP)
    const authorize = location(await startSignIn(browser, "op"))
    const callback = new URL(`${APP}/auth/callback/op`)
    callback.searchParams.set("code", "the-code")
    callback.searchParams.set("state", authorize.searchParams.get("state")!)
    callback.searchParams.set("iss", ISSUER)
    const response = await deliver(browser, callback)
    expect(response.status).toBe(302)
    expect(new URL(response.headers.get("location")!).pathname).toMatch(/^\/auth\/(signin|error)$/)
    expect(requested).toContain(`${ISSUER}/token`)
    expect(requested.some((u) => u.startsWith("http:"))).toBe(false)
    expect(await browser.session()).toBeNull()
  })
})
