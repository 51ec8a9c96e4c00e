/**
 * The MCP TypeScript SDK against the provider, both on real sockets: an MCP server (the SDK's
 * McpServer over Streamable HTTP) accepts only the provider's access tokens for its own URL
 * (RFC 8707 audience), answers 401 with `resource_metadata` (RFC 9728); the SDK's client
 * follows the whole MCP authorization flow — protected-resource metadata, AS metadata,
 * dynamic registration (open mode), PKCE with `resource`, the person's sign-in and consent,
 * the code exchange — and calls a tool.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { wellKnownPath } from "@portcullis/oidc-provider"
import { AccessTokenError, accessTokenVerifier, bearerChallenge, protectedResourceMetadata, protectedResourceMetadataUrl } from "@portcullis/oidc-provider/resource"
import { Browser } from "../../core/test/helpers.js"
import { httpServer, type TestServer } from "../../core/test/http-server.js"
import { CLIENTS, SECRET_WEB, basic, field, testbed } from "./support.js"

const OTHER_API = "https://other.example/api"

/** An MCP server protected by the provider's tokens for `resource`. */
async function startMcpServer(issuerOf: () => string): Promise<{ url: string; seen: string[]; server: Server }> {
  const seen: string[] = []
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
  let verify: ((token: string) => Promise<{ sub: string; client_id: string; scope: string; exp: number }>) | undefined
  server.on("request", async (req: IncomingMessage & { auth?: any }, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`)
    if (req.url === new URL(protectedResourceMetadataUrl(url)).pathname) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(protectedResourceMetadata({ resource: url, authorizationServers: [issuerOf()], scopesSupported: ["openid", "email"] })))
      return
    }
    if (req.url !== "/mcp") return void res.writeHead(404).end()
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]
    try {
      if (!token) throw new AccessTokenError("invalid_token", "A bearer token is required")
      verify ??= accessTokenVerifier({ issuer: issuerOf(), audience: url })
      const claims = await verify(token)
      req.auth = { token, clientId: claims.client_id, scopes: claims.scope.split(" "), expiresAt: claims.exp, extra: { sub: claims.sub } }
    } catch (error) {
      const refusal = error instanceof AccessTokenError ? error : new AccessTokenError("invalid_token", "The token is not valid")
      res.writeHead(refusal.status, { "www-authenticate": bearerChallenge({ resource: url, ...(token && { error: refusal }) }), "content-type": "application/json" })
      res.end(JSON.stringify({ error: refusal.code }))
      return
    }
    // Stateless: one McpServer and transport per request.
    const mcp = new McpServer({ name: "notes", version: "1.0.0" })
    mcp.registerTool("whoami", { description: "Who the token is for" }, async (extra) => ({ content: [{ type: "text", text: `you are ${extra.authInfo?.extra?.sub} via ${extra.authInfo?.clientId}` }] }))
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    res.on("close", () => void transport.close())
    await mcp.connect(transport)
    await transport.handleRequest(req, res)
  })
  return { url, seen, server }
}

/** The MCP client's storage and its "browser": the authorization URL is handed to the test. */
class TestProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ""
  authorizationUrl: URL | undefined
  readonly redirectUrl = "http://127.0.0.1:33418/callback"
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "Test MCP Client", redirect_uris: [this.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none", scope: "openid email" }
  }
  clientInformation() {
    return this.info
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
}

describe("an MCP server protected by the provider, and the MCP SDK's client", () => {
  let op: TestServer
  let mcp: Awaited<ReturnType<typeof startMcpServer>>
  let bed: ReturnType<typeof testbed>
  const issuer = () => `${op.origin}/auth/oidc`
  const asPaths: string[] = []

  beforeAll(async () => {
    mcp = await startMcpServer(issuer)
    bed = testbed({ provider: { clients: CLIENTS, resources: [mcp.url, OTHER_API], registration: { open: true, maxClients: 50 } } })
    // The site root maps RFC 8414's path-issuer URL onto the provider's document (wellKnownPath).
    const handler = bed.config
    op = await httpServer(handler as AuthConfig)
    const inner = op.server.listeners("request")[0] as (req: IncomingMessage, res: ServerResponse) => void
    op.server.removeAllListeners("request")
    op.server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      const path = (req.url ?? "").split("?")[0]!
      if (path.startsWith("/.well-known/") || path.includes("/.well-known/")) asPaths.push(path)
      const to = wellKnownPath(path, "/auth/oidc")
      if (to) req.url = to
      inner(req, res)
    })
    await bed.adapter.createUser!({ id: "user-ada", email: "ada@example.com", name: "Ada", emailVerified: new Date() })
  }, 60_000)
  afterAll(async () => {
    await op?.close()
    await new Promise((resolve) => mcp?.server.close(resolve))
  })

  it("runs discovery, registration, PKCE with resource, sign-in and consent, the code exchange, then a tool call", async () => {
    const provider = new TestProvider()
    const client = new Client({ name: "test-client", version: "1.0.0" })
    const first = new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider })
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError)

    // It found the AS through the protected-resource metadata and registered itself.
    expect(mcp.seen).toContain("GET /.well-known/oauth-protected-resource/mcp")
    expect(asPaths[0]).toBe("/.well-known/oauth-authorization-server/auth/oidc")
    expect(provider.info?.client_id).toMatch(/^dyn_/)
    const registered = await bed.store.getClient(provider.info!.client_id)
    expect(registered).toMatchObject({ dynamic: true, name: "Test MCP Client", tokenEndpointAuthMethod: "none" })

    const url = provider.authorizationUrl!
    expect(url.searchParams.get("code_challenge_method")).toBe("S256")
    expect(url.searchParams.get("resource")).toBe(mcp.url)

    // The person signs in and consents (fetch with a cookie jar), and sees the client as unverified.
    const browser = new Browser(op.transport, op.origin)
    expect((await browser.signIn({ email: "ada@example.com" })).status).toBe(302)
    const consent = await browser.request(url.pathname + url.search)
    const page = await consent.text()
    expect(page).toContain("Test MCP Client registered itself here")
    expect(page).toContain("127.0.0.1:33418")
    const allowed = await browser.request("/auth/oidc/consent", { form: { csrfToken: field(page, "csrfToken"), interaction: field(page, "interaction"), decision: "allow" } })
    const callback = new URL(allowed.headers.get("location")!)
    expect(callback.origin + callback.pathname).toBe(provider.redirectUrl)
    await first.finishAuth(callback.searchParams.get("code")!)

    const payload = JSON.parse(Buffer.from(provider.saved!.access_token.split(".")[1]!, "base64url").toString())
    expect(payload.aud === mcp.url || (Array.isArray(payload.aud) && payload.aud.length === 1 && payload.aud[0] === mcp.url)).toBe(true)

    const second = new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider })
    await client.connect(second)
    const result = await client.callTool({ name: "whoami", arguments: {} })
    expect(result.content).toEqual([{ type: "text", text: `you are user-ada via ${provider.info!.client_id}` }])
    await client.close()
  }, 60_000)

  it("refuses a token for another audience, and a missing one, with the resource_metadata challenge", async () => {
    const grant = await fetch(`${op.origin}/auth/oidc/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...basic("service", SECRET_WEB) }, body: new URLSearchParams({ grant_type: "client_credentials", scope: "read", resource: OTHER_API }) })
    expect(grant.status).toBe(200)
    const { access_token } = (await grant.json()) as { access_token: string }
    const init = { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) }
    const other = await fetch(mcp.url, { ...init, headers: { ...init.headers, authorization: `Bearer ${access_token}` } })
    expect(other.status).toBe(401)
    expect(other.headers.get("www-authenticate")).toContain(`resource_metadata="${protectedResourceMetadataUrl(mcp.url)}"`)
    expect(other.headers.get("www-authenticate")).toContain('error="invalid_token"')
    const none = await fetch(mcp.url, init)
    expect(none.status).toBe(401)
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer resource_metadata="/)
  })
})
