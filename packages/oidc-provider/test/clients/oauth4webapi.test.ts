/**
 * oauth4webapi (panva; the library under core's and Auth.js's OAuth clients) as a PUBLIC
 * client — a native app with no secret, PKCE only, `token_endpoint_auth_method: none` — on a
 * real socket: discovery, the authorization URL, the callback validated by oauth4webapi
 * (state and RFC 9207 `iss`, which it requires because the metadata advertises
 * `authorization_response_iss_parameter_supported`), the code exchange, userinfo and refresh.
 * `allowInsecureRequests` is set because the issuer is http on loopback (the provider accepts
 * http only there); every other check is oauth4webapi's own.
 */
import * as o from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { Browser } from "../../../core/test/helpers.js"
import { httpServer, type TestServer } from "../../../core/test/http-server.js"
import { field, testbed } from "../support.js"

let server: TestServer
let bed: ReturnType<typeof testbed>
let as: o.AuthorizationServer
const client: o.Client = { client_id: "native", token_endpoint_auth_method: "none" }
// RFC 8252 §7.3: the loopback redirect URI registered without a port takes any port.
const REDIRECT = "http://127.0.0.1:49152/callback"
const insecure = { [o.allowInsecureRequests]: true }

beforeAll(async () => {
  bed = testbed()
  server = await httpServer(bed.config as AuthConfig)
  const issuer = new URL(`${server.origin}/auth/oidc`)
  as = await o.processDiscoveryResponse(issuer, await o.discoveryRequest(issuer, insecure))
})
afterAll(() => server?.close())

async function signedIn(name: string) {
  const email = `${name}@example.com`
  const user = await bed.adapter.createUser!({ id: `user-${name}`, email, name: name[0]!.toUpperCase() + name.slice(1), emailVerified: new Date() })
  const browser = new Browser(server.transport, server.origin)
  expect((await browser.signIn({ email })).status).toBe(302)
  return { browser, email, id: user.id }
}

/** Opens `url` in `browser`, allows on the consent page: the redirect back to the app. */
async function visit(browser: Browser, url: URL): Promise<URL> {
  let response = await browser.request(url.pathname + url.search)
  if (response.status === 200) {
    const page = await response.text()
    response = await browser.request("/auth/oidc/consent", { form: { csrfToken: field(page, "csrfToken"), interaction: field(page, "interaction"), decision: "allow" } })
  }
  expect(response.status).toBe(302)
  return new URL(response.headers.get("location")!)
}

function authorizationUrl(params: Record<string, string>): URL {
  const url = new URL(as.authorization_endpoint!)
  for (const [k, v] of Object.entries({ client_id: client.client_id, response_type: "code", redirect_uri: REDIRECT, ...params })) url.searchParams.set(k, v)
  return url
}

describe("oauth4webapi: a public client through discovery, the code flow with PKCE, userinfo and refresh", () => {
  it("completes with no secret, and refreshes with rotation", async () => {
    expect(as.authorization_response_iss_parameter_supported).toBe(true)
    expect(as.code_challenge_methods_supported).toEqual(["S256"])
    expect(as.token_endpoint_auth_methods_supported).toContain("none")

    const ada = await signedIn("ada")
    const verifier = o.generateRandomCodeVerifier()
    const state = o.generateRandomState()
    const nonce = o.generateRandomNonce()
    const callback = await visit(ada.browser, authorizationUrl({ scope: "openid email offline_access", code_challenge: await o.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256", state, nonce }))
    expect(callback.origin + callback.pathname).toBe(REDIRECT)

    const params = o.validateAuthResponse(as, client, callback, state)
    const exchanged = await o.processAuthorizationCodeResponse(as, client, await o.authorizationCodeGrantRequest(as, client, o.None(), params, REDIRECT, verifier, insecure), { expectedNonce: nonce, requireIdToken: true })
    const claims = o.getValidatedIdTokenClaims(exchanged)!
    expect(claims.sub).toBe(ada.id)
    expect(claims.aud).toBe("native")

    const info = await o.processUserInfoResponse(as, client, claims.sub, await o.userInfoRequest(as, client, exchanged.access_token, insecure))
    expect(info).toMatchObject({ sub: ada.id, email: ada.email, email_verified: true })

    const refreshed = await o.processRefreshTokenResponse(as, client, await o.refreshTokenGrantRequest(as, client, o.None(), exchanged.refresh_token!, insecure))
    expect(refreshed.refresh_token).toBeTruthy()
    expect(refreshed.refresh_token).not.toBe(exchanged.refresh_token)
    const again = await o.processUserInfoResponse(as, client, claims.sub, await o.userInfoRequest(as, client, refreshed.access_token, insecure))
    expect(again.email).toBe(ada.email)
    // The rotated token is spent.
    const reused = await o.processRefreshTokenResponse(as, client, await o.refreshTokenGrantRequest(as, client, o.None(), exchanged.refresh_token!, insecure)).catch((e: unknown) => e)
    expect(reused).toBeInstanceOf(o.ResponseBodyError)
    expect((reused as o.ResponseBodyError).error).toBe("invalid_grant")
  })
})

describe("oauth4webapi: RFC 9207 iss on the authorization response", () => {
  it("accepts the provider's iss, and refuses a callback with another issuer or none (mix-up)", async () => {
    const bob = await signedIn("bob")
    const verifier = o.generateRandomCodeVerifier()
    const state = o.generateRandomState()
    const callback = await visit(bob.browser, authorizationUrl({ scope: "openid", code_challenge: await o.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256", state }))
    expect(callback.searchParams.get("iss")).toBe(as.issuer)
    expect(() => o.validateAuthResponse(as, client, callback, state)).not.toThrow()

    const mixedUp = new URL(callback)
    mixedUp.searchParams.set("iss", "https://other-idp.example")
    expect(() => o.validateAuthResponse(as, client, mixedUp, state)).toThrow(/iss/)
    const stripped = new URL(callback)
    stripped.searchParams.delete("iss")
    expect(() => o.validateAuthResponse(as, client, stripped, state)).toThrow(/iss/)
  })

  it("an error response carries iss too, and oauth4webapi surfaces the provider's refusal of a public client without PKCE", async () => {
    const cleo = await signedIn("cleo")
    const state = o.generateRandomState()
    const callback = await visit(cleo.browser, authorizationUrl({ scope: "openid", state }))
    expect(callback.searchParams.get("iss")).toBe(as.issuer)
    const refused = (() => {
      try {
        o.validateAuthResponse(as, client, callback, state)
      } catch (error) {
        return error
      }
    })()
    expect(refused).toBeInstanceOf(o.AuthorizationResponseError)
    expect((refused as o.AuthorizationResponseError).error).toBe("invalid_request")
  })
})
