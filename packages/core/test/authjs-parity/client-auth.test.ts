/**
 * The token endpoint client authentication methods of Auth.js (issue #16 C.11):
 * `client_secret_jwt` and `private_key_jwt` besides Basic, post and none. The token
 * request is captured through the provider's `customFetch`, as Auth.js's own test does.
 */
import { describe, expect, it } from "vitest"
import * as jose from "jose"
import { Auth, customFetch, type AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { captureLogger, SECRET } from "../helpers.js"

/** A provider whose token endpoint answers 400; the request it received is kept. */
function provider(extra: Partial<OAuthConfig<any>>) {
  const calls: { url: string; body: URLSearchParams; headers: Headers }[] = []
  const fetchMock: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input)
    calls.push({ url, body: new URLSearchParams(String(init?.body ?? "")), headers: new Headers(init?.headers) })
    return Response.json({ error: "stopped_by_test" }, { status: 400 })
  }
  const config = {
    id: "test-oauth",
    name: "Test OAuth",
    type: "oauth",
    clientId: "test-client-id",
    checks: ["none"],
    issuer: "https://auth.example.com",
    authorization: "https://auth.example.com/authorize",
    token: "https://auth.example.com/token",
    userinfo: "https://auth.example.com/userinfo",
    [customFetch]: fetchMock,
    ...extra,
  } as OAuthConfig<any>
  return { config, tokenCall: () => calls.find((c) => c.url.startsWith("https://auth.example.com/token")) }
}

async function callback(p: OAuthConfig<any>) {
  const log = captureLogger()
  const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [p], logger: log.logger }
  const response = await Auth(new Request("http://localhost:3000/auth/callback/test-oauth?code=auth-code"), config)
  return { response, log }
}

describe("client_secret_jwt and private_key_jwt authenticate at the token endpoint, as in Auth.js", () => {
  it("private_key_jwt: a client assertion signed with token.clientPrivateKey, audience issuer and token endpoint, no secret", async () => {
    const { privateKey, publicKey } = await jose.generateKeyPair("ES256")
    const { config, tokenCall } = provider({
      client: { token_endpoint_auth_method: "private_key_jwt" },
      token: { url: "https://auth.example.com/token", clientPrivateKey: privateKey },
    })
    await callback(config)
    const call = tokenCall()!
    expect(call.body.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
    expect(call.body.get("client_secret")).toBeNull()
    expect(call.headers.get("authorization")).toBeNull()
    const { payload } = await jose.jwtVerify(call.body.get("client_assertion")!, publicKey)
    expect(payload).toMatchObject({ iss: "test-client-id", sub: "test-client-id", aud: ["https://auth.example.com", "https://auth.example.com/token"] })
  })

  it("client_secret_jwt: a client assertion signed with the client secret", async () => {
    const { config, tokenCall } = provider({ clientSecret: "super-secret-super-secret-super-secret", client: { token_endpoint_auth_method: "client_secret_jwt" } })
    await callback(config)
    const call = tokenCall()!
    const assertion = call.body.get("client_assertion")!
    const { payload } = await jose.jwtVerify(assertion, new TextEncoder().encode("super-secret-super-secret-super-secret"))
    expect(payload.sub).toBe("test-client-id")
    expect(call.body.get("client_secret")).toBeNull()
  })

  it("with a client secret and no method: HTTP Basic, no assertion", async () => {
    const { config, tokenCall } = provider({ clientSecret: "super-secret" })
    await callback(config)
    expect(tokenCall()!.headers.get("authorization")).toMatch(/^Basic /)
    expect(tokenCall()!.body.get("client_assertion")).toBeNull()
  })

  it.each([
    ["private_key_jwt without a key", { client: { token_endpoint_auth_method: "private_key_jwt" } }],
    ["an unknown method", { client: { token_endpoint_auth_method: "tls_client_auth" } }],
  ])("hostile: %s is a configuration error on every request, before any fetch", async (_name, extra) => {
    const { config, tokenCall } = provider(extra as Partial<OAuthConfig<any>>)
    const response = await Auth(new Request("http://localhost:3000/auth/providers"), { secret: SECRET, trustHost: true, providers: [config], logger: captureLogger().logger })
    expect(response.status).toBe(500)
    expect(tokenCall()).toBeUndefined()
  })
})
