/**
 * openid-client v6 (panva, an OpenID-certified relying party) against the provider on a real
 * socket, as a confidential client: discovery, the code flow with PKCE and nonce, the ID
 * token's claims, userinfo, refresh with rotation and reuse detection, introspection (active
 * and inactive), revocation, RP-initiated logout through to the client's URI with `state`,
 * and `private_key_jwt` client authentication. Every protocol check on the client side is
 * openid-client's own; the browser steps (sign-in, consent, the logout confirmation) are
 * form posts through the test's cookie jar.
 */
import * as oidc from "openid-client"
import { exportJWK, generateKeyPair } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { Browser } from "../../../core/test/helpers.js"
import { httpServer, type TestServer } from "../../../core/test/http-server.js"
import { CLIENTS, RP, SECRET_WEB, field, testbed } from "../support.js"

let server: TestServer
let bed: ReturnType<typeof testbed>
let issuer = ""
let keyClient: { privateKey: CryptoKey; kid: string }
const BYE = "https://rp.example/bye"

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true })
  keyClient = { privateKey: privateKey as CryptoKey, kid: "rp-key-1" }
  const jwk = { ...(await exportJWK(publicKey)), kid: keyClient.kid, alg: "ES256", use: "sig" }
  bed = testbed({
    provider: {
      clients: [...CLIENTS, { clientId: "keyed", jwks: { keys: [jwk] }, tokenEndpointAuthMethod: "private_key_jwt", redirectUris: [RP], name: "Keyed App" }],
    },
  })
  server = await httpServer(bed.config as AuthConfig)
  issuer = `${server.origin}/auth/oidc`
})
afterAll(() => server?.close())

const insecure = { execute: [oidc.allowInsecureRequests] }

/** Signs `name` in over the socket with the test's own cookie jar. */
async function signedIn(name: string): Promise<{ browser: Browser; email: string; id: string }> {
  const email = `${name}@example.com`
  const user = await bed.adapter.createUser!({ id: `user-${name}`, email, name: name[0]!.toUpperCase() + name.slice(1), emailVerified: new Date() })
  const browser = new Browser(server.transport, server.origin)
  expect((await browser.signIn({ email })).status).toBe(302)
  return { browser, email, id: user.id }
}

/** openid-client's authorization URL, opened in `browser`, consented to: the callback URL. */
async function authorize(config: oidc.Configuration, browser: Browser, params: Record<string, string>): Promise<URL> {
  const url = oidc.buildAuthorizationUrl(config, params)
  let response = await browser.request(url.pathname + url.search)
  if (response.status === 200) {
    const page = await response.text()
    response = await browser.request("/auth/oidc/consent", { form: { csrfToken: field(page, "csrfToken"), interaction: field(page, "interaction"), decision: "allow" } })
  }
  expect(response.status).toBe(302)
  return new URL(response.headers.get("location")!)
}

/** The code flow with PKCE, state and nonce: the token endpoint response, checked by openid-client. */
async function codeFlow(config: oidc.Configuration, browser: Browser, scope = "openid email profile offline_access") {
  const verifier = oidc.randomPKCECodeVerifier()
  const state = oidc.randomState()
  const nonce = oidc.randomNonce()
  const callback = await authorize(config, browser, {
    redirect_uri: RP,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
  })
  // RFC 9207: openid-client checks `iss` on the callback since the metadata says it is sent.
  expect(callback.searchParams.get("iss")).toBe(issuer)
  return oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true })
}

describe("openid-client: a confidential client (client_secret_basic) through the code flow with PKCE", () => {
  it("discovers, gets a code, exchanges it with the verifier, and the ID token and userinfo name the person", async () => {
    const config = await oidc.discovery(new URL(issuer), "web", SECRET_WEB, oidc.ClientSecretBasic(SECRET_WEB), insecure)
    expect(config.serverMetadata().issuer).toBe(issuer)
    expect(config.serverMetadata().authorization_response_iss_parameter_supported).toBe(true)
    const ada = await signedIn("ada")
    const tokens = await codeFlow(config, ada.browser)
    const claims = tokens.claims()!
    expect(claims.sub).toBe(ada.id)
    // Regression: the ID token carries the granted scopes' claims (relying parties such as
    // Auth.js read their profile from it alone).
    expect(claims.email).toBe(ada.email)
    expect(claims.name).toBe("Ada")
    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)
    expect(info).toMatchObject({ sub: ada.id, email: ada.email, email_verified: true, name: "Ada" })
    // userinfo for another subject than the ID token's is refused by openid-client itself.
    await expect(oidc.fetchUserInfo(config, tokens.access_token, "someone-else")).rejects.toThrow()
  })
})

describe("openid-client: refresh with rotation and reuse detection", () => {
  it("rotates; the old refresh token then fails, and presenting it again revoked the new one and its access tokens", async () => {
    const config = await oidc.discovery(new URL(issuer), "web", SECRET_WEB, oidc.ClientSecretBasic(SECRET_WEB), insecure)
    const bob = await signedIn("bob")
    const first = await codeFlow(config, bob.browser)
    const second = await oidc.refreshTokenGrant(config, first.refresh_token!)
    expect(second.refresh_token).toBeTruthy()
    expect(second.refresh_token).not.toBe(first.refresh_token)
    // openid-client validates the refreshed ID token against the original's subject.
    expect(second.claims()!.sub).toBe(bob.id)
    expect((await oidc.tokenIntrospection(config, second.access_token)).active).toBe(true)

    // Reuse of the rotated token: refused…
    const reuse = await oidc.refreshTokenGrant(config, first.refresh_token!).catch((e: unknown) => e)
    expect(reuse).toBeInstanceOf(oidc.ResponseBodyError)
    expect((reuse as oidc.ResponseBodyError).error).toBe("invalid_grant")
    // …and it revoked the family: the new refresh token and the access tokens issued from it.
    const after = await oidc.refreshTokenGrant(config, second.refresh_token!).catch((e: unknown) => e)
    expect((after as oidc.ResponseBodyError).error).toBe("invalid_grant")
    expect((await oidc.tokenIntrospection(config, second.access_token)).active).toBe(false)
    expect(bed.events()).toContain("refreshReuseDetected/failure")
  })
})

describe("openid-client: introspection and revocation", () => {
  it("an issued access token is active with its claims; revoked, unknown or garbage ones are inactive", async () => {
    const config = await oidc.discovery(new URL(issuer), "web", SECRET_WEB, oidc.ClientSecretBasic(SECRET_WEB), insecure)
    const cleo = await signedIn("cleo")
    const tokens = await codeFlow(config, cleo.browser)
    const active = await oidc.tokenIntrospection(config, tokens.access_token)
    expect(active).toMatchObject({ active: true, sub: cleo.id, client_id: "web" })
    expect(String(active.scope).split(" ")).toEqual(expect.arrayContaining(["openid", "email"]))
    expect((await oidc.tokenIntrospection(config, "not-a-token")).active).toBe(false)

    await oidc.tokenRevocation(config, tokens.refresh_token!)
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(false)
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!).catch((e: unknown) => e)
    expect((refreshed as oidc.ResponseBodyError).error).toBe("invalid_grant")
  })
})

describe("openid-client: RP-initiated logout", () => {
  it("buildEndSessionUrl → the confirmation page → core's sign-out → back at post_logout_redirect_uri with state, grants revoked", async () => {
    const config = await oidc.discovery(new URL(issuer), "web", SECRET_WEB, oidc.ClientSecretBasic(SECRET_WEB), insecure)
    const dana = await signedIn("dana")
    const tokens = await codeFlow(config, dana.browser)
    const state = oidc.randomState()
    const end = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: BYE, state })
    expect(end.href.startsWith(`${issuer}/logout?`)).toBe(true)

    const confirm = await dana.browser.request(end.pathname + end.search)
    expect(confirm.status).toBe(200)
    const page = await confirm.text()
    expect(page).toContain("Web App")
    const signedOut = await dana.browser.request("/auth/signout", { form: { csrfToken: field(page, "csrfToken"), callbackUrl: field(page, "callbackUrl") } })
    expect(signedOut.status).toBe(302)
    const doneUrl = new URL(signedOut.headers.get("location")!, server.origin)
    expect(doneUrl.pathname).toBe("/auth/oidc/logout/done")
    const done = await dana.browser.request(doneUrl.pathname + doneUrl.search)
    expect(done.status).toBe(302)
    const back = new URL(done.headers.get("location")!)
    expect(back.origin + back.pathname).toBe(BYE)
    expect(back.searchParams.get("state")).toBe(state)

    expect(await dana.browser.session()).toBeNull()
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(false)
  })

  it("an unregistered post_logout_redirect_uri is never redirected to", async () => {
    const config = await oidc.discovery(new URL(issuer), "web", SECRET_WEB, oidc.ClientSecretBasic(SECRET_WEB), insecure)
    const eve = await signedIn("eve")
    const tokens = await codeFlow(config, eve.browser, "openid")
    // Only what was granted rides in the ID token: `openid` alone releases no email or name.
    expect(tokens.claims()).not.toHaveProperty("email")
    expect(tokens.claims()).not.toHaveProperty("name")
    const end = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: "https://evil.example/bye", state: "s" })
    const response = await eve.browser.request(end.pathname + end.search)
    expect(response.status).toBe(400)
    expect(response.headers.get("location")).toBeNull()
  })
})

describe("openid-client: private_key_jwt client authentication", () => {
  it("exchanges the code and refreshes with signed assertions; a key the client did not register is invalid_client", async () => {
    const config = await oidc.discovery(new URL(issuer), "keyed", undefined, oidc.PrivateKeyJwt({ key: keyClient.privateKey, kid: keyClient.kid }), insecure)
    const finn = await signedIn("finn")
    const tokens = await codeFlow(config, finn.browser)
    expect(tokens.claims()!.sub).toBe(finn.id)
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)

    const { privateKey: stranger } = await generateKeyPair("ES256", { extractable: true })
    const forged = await oidc.discovery(new URL(issuer), "keyed", undefined, oidc.PrivateKeyJwt({ key: stranger as CryptoKey, kid: keyClient.kid }), insecure)
    const refused = await oidc.refreshTokenGrant(forged, refreshed.refresh_token!).catch((e: unknown) => e)
    // 401 invalid_client without a Basic challenge: the client signed an assertion, it did not
    // try the Authorization header (RFC 6749 §5.2), so openid-client reads the error from the body.
    expect(refused).toBeInstanceOf(oidc.ResponseBodyError)
    const error = refused as oidc.ResponseBodyError
    expect(error.status).toBe(401)
    expect(error.error).toBe("invalid_client")
    expect(error.response.headers.get("www-authenticate")).toBeNull()
    expect(bed.events()).toContain("clientAuthFailed/failure")
    // The refused call used nothing up: the rightful client still refreshes.
    expect((await oidc.refreshTokenGrant(config, refreshed.refresh_token!)).access_token).toBeTruthy()
  })
})
