/**
 * openid-client (panva, an OpenID-certified relying party) against the provider on a real
 * socket: discovery, the code flow with PKCE and nonce, userinfo, refresh with rotation,
 * introspection, revocation and the end-session URL.
 */
import * as oidc from "openid-client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { Browser } from "../../core/test/helpers.js"
import { httpServer, type TestServer } from "../../core/test/http-server.js"
import { RP, SECRET_WEB, field, testbed } from "./support.js"

let server: TestServer
let bed: ReturnType<typeof testbed>

beforeAll(async () => {
  bed = testbed()
  server = await httpServer(bed.config as AuthConfig)
  void Auth
})
afterAll(() => server?.close())

describe("openid-client against the provider", () => {
  it("discovers, runs the code flow with PKCE, reads userinfo, refreshes, introspects and revokes", async () => {
    const issuer = `${server.origin}/auth/oidc`
    const config = await oidc.discovery(new URL(issuer), "web", SECRET_WEB, oidc.ClientSecretBasic(SECRET_WEB), { execute: [oidc.allowInsecureRequests] })
    expect(config.serverMetadata().issuer).toBe(issuer)

    await bed.adapter.createUser!({ id: "user-ada", email: "ada@example.com", name: "Ada", emailVerified: new Date() })
    const browser = new Browser(server.transport, server.origin)
    expect((await browser.signIn({ email: "ada@example.com" })).status).toBe(302)

    const verifier = oidc.randomPKCECodeVerifier()
    const state = oidc.randomState()
    const nonce = oidc.randomNonce()
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: RP,
      scope: "openid email offline_access",
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
      nonce,
    })
    const consent = await browser.request(url.pathname + url.search)
    expect(consent.status).toBe(200)
    const page = await consent.text()
    const allowed = await browser.request("/auth/oidc/consent", { form: { csrfToken: field(page, "csrfToken"), interaction: field(page, "interaction"), decision: "allow" } })
    const callback = new URL(allowed.headers.get("location")!)

    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true })
    const claims = tokens.claims()!
    expect(claims.sub).toBe("user-ada")
    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)
    expect(info.email).toBe("ada@example.com")

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
    const introspected = await oidc.tokenIntrospection(config, refreshed.access_token)
    expect(introspected.active).toBe(true)
    await oidc.tokenRevocation(config, refreshed.refresh_token!)
    expect((await oidc.tokenIntrospection(config, refreshed.access_token)).active).toBe(false)

    const end = oidc.buildEndSessionUrl(config, { id_token_hint: refreshed.id_token!, post_logout_redirect_uri: "https://rp.example/bye" })
    expect((await browser.request(end.pathname + end.search)).status).toBe(200)
  })
})
