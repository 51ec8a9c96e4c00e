import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { extensionFunctions } from "@portcullis/core/integration"
import type { AuthConfig } from "@portcullis/core"
import { AccessTokenError, accessTokenVerifier, bearerChallenge, protectedResourceMetadata, protectedResourceMetadataUrl, verifyAccessToken } from "@portcullis/oidc-provider/resource"
import { Browser } from "../../core/test/helpers.js"
import { httpServer, type TestServer } from "../../core/test/http-server.js"
import { ISSUER, RP, SECRET_WEB, basic, codeFor, testbed } from "./support.js"

const API = "https://api.example/mcp"

async function tokenFor(bed: ReturnType<typeof testbed>, params: Record<string, string> = {}) {
  const ada = await bed.person(`p${Math.random().toString(36).slice(2, 8)}`)
  const { code } = await codeFor(ada, params)
  return { ada, tokens: (await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP }, headers: basic("web", SECRET_WEB) })).body }
}

describe("verifyAccessToken for resource servers", () => {
  it("accepts a token for its audience, checked against the JWKS; refuses another audience, an ID token and missing scopes", async () => {
    const bed = testbed()
    const jwks = (await bed.call("/auth/oidc/jwks")).body
    const { tokens } = await tokenFor(bed, { resource: API })
    const claims = await verifyAccessToken(tokens.access_token, { issuer: ISSUER, audience: API, jwks })
    expect(claims.client_id).toBe("web")
    expect(claims.scope).toBe("openid email profile")
    await expect(verifyAccessToken(tokens.access_token, { issuer: ISSUER, audience: "https://other.example", jwks })).rejects.toMatchObject({ code: "invalid_token", status: 401 })
    await expect(verifyAccessToken(tokens.id_token, { issuer: ISSUER, audience: "web", jwks })).rejects.toBeInstanceOf(AccessTokenError)
    await expect(verifyAccessToken(tokens.access_token, { issuer: ISSUER, audience: API, jwks, requiredScopes: ["read"] })).rejects.toMatchObject({ code: "insufficient_scope", status: 403 })
    await expect(verifyAccessToken(tokens.access_token, { issuer: "https://evil.example", audience: API, jwks })).rejects.toMatchObject({ code: "invalid_token" })
  })
})

describe("the remote JWKS", () => {
  let server: TestServer
  let bed: ReturnType<typeof testbed>
  beforeAll(async () => {
    bed = testbed()
    server = await httpServer(bed.config as AuthConfig)
  })
  afterAll(() => server?.close())

  it("is fetched from <issuer>/jwks and kept by the verifier", async () => {
    const issuer = `${server.origin}/auth/oidc`
    await bed.adapter.createUser!({ id: "user-ada", email: "ada@example.com", name: "Ada", emailVerified: new Date() })
    const browser = new Browser(server.transport, server.origin)
    await browser.signIn({ email: "ada@example.com" })
    const first = await browser.request(`/auth/oidc/authorize?response_type=code&client_id=first&redirect_uri=${encodeURIComponent(RP)}&scope=openid&resource=${encodeURIComponent(API)}`)
    const code = new URL(first.headers.get("location")!).searchParams.get("code")!
    const answer = await fetch(`${issuer}/token`, { method: "POST", headers: { ...basic("first", SECRET_WEB), "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: RP }) })
    const tokens = (await answer.json()) as { access_token: string }
    const verify = accessTokenVerifier({ issuer, audience: API })
    expect((await verify(tokens.access_token)).sub).toBe("user-ada")
    expect((await verify(tokens.access_token)).client_id).toBe("first")
  })
})

describe("protected-resource metadata (RFC 9728) and the Bearer challenge", () => {
  it("builds the document, its URL and the WWW-Authenticate value MCP clients follow", () => {
    expect(protectedResourceMetadata({ resource: API, authorizationServers: [ISSUER], scopesSupported: ["mcp"] })).toEqual({ resource: API, authorization_servers: [ISSUER], bearer_methods_supported: ["header"], scopes_supported: ["mcp"] })
    expect(protectedResourceMetadataUrl(API)).toBe("https://api.example/.well-known/oauth-protected-resource/mcp")
    expect(protectedResourceMetadataUrl("https://api.example/")).toBe("https://api.example/.well-known/oauth-protected-resource")
    expect(bearerChallenge({ resource: API })).toBe('Bearer resource_metadata="https://api.example/.well-known/oauth-protected-resource/mcp"')
    const challenge = bearerChallenge({ resource: API, error: new AccessTokenError("invalid_token", 'bad "token"\r\nX: y') })
    expect(challenge).toContain('error="invalid_token"')
    expect(challenge).not.toMatch(/[\r\n]|bad "/)
  })
})

describe("the in-process verifyAccessToken server function", () => {
  it("checks revocation in the store too", async () => {
    const bed = testbed()
    const { ada, tokens } = await tokenFor(bed)
    const functions = (await extensionFunctions({ origin: ada.browser.origin, method: "GET", headers: new Headers() }, bed.config)) as any
    expect((await functions.oidc.verifyAccessToken(tokens.access_token)).sub).toBe(ada.id)
    await bed.call("/auth/oidc/revoke", { form: { token: tokens.access_token }, headers: basic("web", SECRET_WEB) })
    expect(await functions.oidc.verifyAccessToken(tokens.access_token)).toBeNull()
  })
})
