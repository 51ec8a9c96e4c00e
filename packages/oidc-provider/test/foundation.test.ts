import { createRemoteJWKSet, createLocalJWKSet, jwtVerify, decodeProtectedHeader } from "jose"
import { describe, expect, it } from "vitest"
import { ISSUER, RP, SECRET_WEB, authorizeAs, basic, codeFor, pkce, testbed } from "./support.js"

describe("discovery", () => {
  it("publishes the endpoints under the issuer, only what is implemented, with RFC 9207 iss support", async () => {
    const bed = testbed()
    const { status, body } = await bed.call("/auth/oidc/.well-known/openid-configuration")
    expect(status).toBe(200)
    expect(body.issuer).toBe(ISSUER)
    expect(body.authorization_endpoint).toBe(`${ISSUER}/authorize`)
    expect(body.token_endpoint).toBe(`${ISSUER}/token`)
    expect(body.response_types_supported).toEqual(["code"])
    expect(body.code_challenge_methods_supported).toEqual(["S256"])
    expect(body.authorization_response_iss_parameter_supported).toBe(true)
    const rfc8414 = await bed.call("/auth/oidc/.well-known/oauth-authorization-server")
    expect(rfc8414.body).toEqual(body)
  })
})

describe("the code flow end to end", () => {
  it("signs in, consents, redeems the code, verifies the tokens against the JWKS and reads userinfo", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { verifier, challenge } = pkce()
    const { code, location } = await codeFor(ada, { code_challenge: challenge, code_challenge_method: "S256", nonce: "n-1" })
    expect(location.origin + location.pathname).toBe(RP)
    expect(location.searchParams.get("state")).toBe("st-1")
    expect(location.searchParams.get("iss")).toBe(ISSUER)

    const token = await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP, code_verifier: verifier }, headers: basic("web", SECRET_WEB) })
    expect(token.status).toBe(200)
    expect(token.body.token_type).toBe("Bearer")
    expect(token.headers.get("cache-control")).toContain("no-store")

    const jwks = await bed.call("/auth/oidc/jwks")
    const keys = createLocalJWKSet(jwks.body)
    const id = await jwtVerify(token.body.id_token, keys, { issuer: ISSUER, audience: "web" })
    expect(id.payload.sub).toBe(ada.id)
    expect(id.payload.nonce).toBe("n-1")
    expect(typeof id.payload.at_hash).toBe("string")
    expect(typeof id.payload.auth_time).toBe("number")
    const access = await jwtVerify(token.body.access_token, keys, { issuer: ISSUER, typ: "at+jwt" })
    expect(decodeProtectedHeader(token.body.access_token).typ).toBe("at+jwt")
    expect(access.payload.client_id).toBe("web")
    expect(access.payload.aud).toBe(ISSUER)

    const info = await bed.call("/auth/oidc/userinfo", { headers: { authorization: `Bearer ${token.body.access_token}` } })
    expect(info.status).toBe(200)
    expect(info.body).toEqual({ sub: ada.id, name: "Ada", email: "ada@example.com", email_verified: true })
    void createRemoteJWKSet
  })

  it("sends a signed-out browser to the sign-in page and comes back to the parked request", async () => {
    const bed = testbed()
    const bob = await bed.person("bob", { signedIn: false })
    const { response } = await authorizeAs(bob, { login_hint: "bob@example.com" })
    expect(response.status).toBe(302)
    const signIn = new URL(response.headers.get("location")!)
    expect(signIn.pathname).toBe("/auth/signin")
    expect(signIn.searchParams.get("email")).toBe("bob@example.com")
    const back = signIn.searchParams.get("callbackUrl")!
    expect(back).toMatch(/\/auth\/oidc\/authorize\/resume\?id=/)
    const signedIn = await bob.browser.signIn({ email: bob.email }, back)
    expect(signedIn.headers.get("location")).toBe(back)
    const resumed = await bob.browser.request(back)
    expect(resumed.status).toBe(200)
    expect(await resumed.text()).toContain("Web App")
  })
})
