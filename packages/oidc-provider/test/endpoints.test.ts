import { describe, expect, it } from "vitest"
import { extensionFunctions } from "@portcullis/core/integration"
import { oidcProvider } from "@portcullis/oidc-provider"
import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import { ISSUER, RP, SECRET_WEB, basic, codeFor, field, testbed, type Person, type Testbed } from "./support.js"

async function tokensFor(bed: Testbed, who: Person, params: Record<string, string> = {}) {
  const { code } = await codeFor(who, { scope: "openid email profile offline_access", ...params })
  const answer = await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP }, headers: basic("web", SECRET_WEB) })
  expect(answer.status).toBe(200)
  return answer.body as { access_token: string; refresh_token: string; id_token: string }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

describe("userinfo", () => {
  it("answers GET and POST with the claims of the granted scopes", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { access_token } = await tokensFor(bed, ada, { scope: "openid email" })
    const get = await bed.call("/auth/oidc/userinfo", { headers: bearer(access_token) })
    expect(get.body).toEqual({ sub: ada.id, email: "ada@example.com", email_verified: true })
    const post = await bed.call("/auth/oidc/userinfo", { form: { access_token } })
    expect(post.body.sub).toBe(ada.id)
  })

  it("refuses a missing, malformed, forged or expired-looking token with 401 and a Bearer challenge (RFC 6750)", async () => {
    const bed = testbed()
    const none = await bed.call("/auth/oidc/userinfo")
    expect(none.status).toBe(401)
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/)
    const bad = await bed.call("/auth/oidc/userinfo", { headers: bearer("not.a.token") })
    expect(bad.status).toBe(401)
    expect(bad.headers.get("www-authenticate")).toContain('error="invalid_token"')
    const ada = await bed.person("ada")
    const { access_token, id_token } = await tokensFor(bed, ada)
    const [h, p] = access_token.split(".")
    const forged = `${h}.${p}.${"A".repeat(86)}`
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(forged) })).status).toBe(401)
    // An ID token is not an access token (typ at+jwt).
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(id_token) })).status).toBe(401)
  })

  it("adds organization claims with the organizations store, and the app's claims() on top", async () => {
    const organizations = { listOrganizations: async (userId: string) => [{ organization: { id: "org-1", slug: "acme" }, role: userId === "user-ada" ? "owner" : "member" }] }
    const bed = testbed({ provider: { organizations, claims: (user, scopes) => ({ locale: "en", sub: "hijack", ...(scopes.includes("profile") && { nickname: user.name }) }) } })
    const ada = await bed.person("ada")
    const { access_token } = await tokensFor(bed, ada, { scope: "openid profile organization" })
    const info = await bed.call("/auth/oidc/userinfo", { headers: bearer(access_token) })
    expect(info.body).toEqual({ sub: ada.id, name: "Ada", organizations: [{ id: "org-1", slug: "acme", role: "owner" }], locale: "en", nickname: "Ada" })
  })
})

describe("revoke (RFC 7009)", () => {
  it("a refresh token revokes its grant; an access token is revoked alone; unknown tokens answer 200", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const first = await tokensFor(bed, ada)
    expect((await bed.call("/auth/oidc/revoke", { form: { token: first.access_token, token_type_hint: "access_token" }, headers: basic("web", SECRET_WEB) })).status).toBe(200)
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(first.access_token) })).status).toBe(401)
    const refreshed = await bed.call("/auth/oidc/token", { form: { grant_type: "refresh_token", refresh_token: first.refresh_token }, headers: basic("web", SECRET_WEB) })
    expect(refreshed.status).toBe(200)
    expect((await bed.call("/auth/oidc/revoke", { form: { token: refreshed.body.refresh_token }, headers: basic("web", SECRET_WEB) })).status).toBe(200)
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(refreshed.body.access_token) })).status).toBe(401)
    expect((await bed.call("/auth/oidc/revoke", { form: { token: "garbage" }, headers: basic("web", SECRET_WEB) })).status).toBe(200)
  })

  it("another client cannot revoke a token (answered 200, nothing revoked), and an unauthenticated one gets 401", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const tokens = await tokensFor(bed, ada)
    expect((await bed.call("/auth/oidc/revoke", { form: { token: tokens.refresh_token }, headers: basic("first", SECRET_WEB) })).status).toBe(200)
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(tokens.access_token) })).status).toBe(200)
    expect((await bed.call("/auth/oidc/revoke", { form: { token: tokens.refresh_token } })).status).toBe(401)
  })
})

describe("introspect (RFC 7662)", () => {
  it("describes the client's own live tokens; anything else is active:false", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const tokens = await tokensFor(bed, ada)
    const live = await bed.call("/auth/oidc/introspect", { form: { token: tokens.access_token }, headers: basic("web", SECRET_WEB) })
    expect(live.body).toMatchObject({ active: true, client_id: "web", sub: ada.id, iss: ISSUER })
    const refresh = await bed.call("/auth/oidc/introspect", { form: { token: tokens.refresh_token }, headers: basic("web", SECRET_WEB) })
    expect(refresh.body).toMatchObject({ active: true, token_type: "refresh_token" })
    const other = await bed.call("/auth/oidc/introspect", { form: { token: tokens.access_token }, headers: basic("first", SECRET_WEB) })
    expect(other.body).toEqual({ active: false })
    expect((await bed.call("/auth/oidc/introspect", { form: { token: "nope" }, headers: basic("web", SECRET_WEB) })).body).toEqual({ active: false })
    const publicClient = await bed.call("/auth/oidc/introspect", { form: { token: tokens.access_token, client_id: "native" } })
    expect(publicClient.status).toBe(401)
  })
})

describe("RP-initiated logout", () => {
  it("confirms, signs out through core's sign-out, revokes the session's grants and returns to the registered URI with state", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const tokens = await tokensFor(bed, ada)
    const url = `/auth/oidc/logout?id_token_hint=${tokens.id_token}&post_logout_redirect_uri=${encodeURIComponent("https://rp.example/bye")}&state=s9`
    const page = await ada.browser.request(url)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('action="http://localhost:3000/auth/signout"')
    const signedOut = await ada.browser.request("/auth/signout", { form: { csrfToken: field(html, "csrfToken"), callbackUrl: field(html, "callbackUrl") } })
    const done = await ada.browser.request(signedOut.headers.get("location")!)
    expect(done.headers.get("location")).toBe("https://rp.example/bye?state=s9")
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(tokens.access_token) })).status).toBe(401)
    expect(await ada.browser.session()).toBeNull()
  })

  it("never redirects to an unregistered post-logout URI, nor without knowing the client", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const tokens = await tokensFor(bed, ada)
    const evil = await ada.browser.request(`/auth/oidc/logout?id_token_hint=${tokens.id_token}&post_logout_redirect_uri=${encodeURIComponent("https://evil.example/")}`)
    expect(evil.status).toBe(400)
    const anonymous = await ada.browser.request(`/auth/oidc/logout?post_logout_redirect_uri=${encodeURIComponent("https://rp.example/bye")}`)
    expect(anonymous.status).toBe(400)
    const mismatch = await ada.browser.request(`/auth/oidc/logout?id_token_hint=${tokens.id_token}&client_id=first`)
    expect(mismatch.status).toBe(400)
  })
})

describe("remembered consents", () => {
  it("lists the apps with access and revokes one (its tokens end, consent is asked again)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const tokens = await tokensFor(bed, ada)
    const page = await ada.browser.request("/auth/oidc/consents")
    const html = await page.text()
    expect(html).toContain("Web App")
    const revoked = await ada.browser.request("/auth/oidc/consents/revoke", { form: { csrfToken: field(html, "csrfToken"), clientId: "web" } })
    expect(revoked.status).toBe(302)
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(tokens.access_token) })).status).toBe(401)
    expect((await ada.browser.request("/auth/oidc/authorize?response_type=code&client_id=web&scope=openid&redirect_uri=" + encodeURIComponent(RP))).status).toBe(200)
    expect(bed.events()).toContain("consentRevoked/success")
  })

  it("server functions consents() and revokeConsent() act for the signed-in user", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await tokensFor(bed, ada)
    const functions = (await extensionFunctions({ origin: ada.browser.origin, method: "POST", headers: new Headers({ cookie: ada.browser.cookieHeader() }) }, bed.config)) as any
    expect((await functions.oidc.consents()).map((c: { clientId: string }) => c.clientId)).toEqual(["web"])
    expect(await functions.oidc.revokeConsent("web")).toBe(true)
    expect(await functions.oidc.consents()).toEqual([])
  })
})

describe("configuration", () => {
  const store = memoryOidcProviderStore()
  const cases: [string, Parameters<typeof oidcProvider>[0], RegExp][] = [
    ["an http redirect URI", { store, clients: [{ clientId: "a", redirectUris: ["http://rp.example/cb"] }] }, /client "a": redirectUris\[0\].*https/],
    ["a fragment", { store, clients: [{ clientId: "a", redirectUris: ["https://rp.example/cb#x"] }] }, /client "a": redirectUris\[0\].*fragment/],
    ["a short secret", { store, clients: [{ clientId: "a", clientSecret: "short", redirectUris: ["https://rp.example/cb"] }] }, /client "a": clientSecret/],
    ["client_credentials for a public client", { store, clients: [{ clientId: "a", redirectUris: [], grantTypes: ["client_credentials"] }] }, /client "a": client_credentials/],
    ["an unknown scope", { store, clients: [{ clientId: "a", redirectUris: ["https://rp.example/cb"], scope: "openid admin" }] }, /client "a": scope "admin"/],
    ["a duplicate client", { store, clients: [{ clientId: "a", redirectUris: ["https://rp.example/cb"] }, { clientId: "a", redirectUris: ["https://rp.example/cb"] }] }, /configured twice/],
    ["a public resource server", { store, clients: [{ clientId: "a", redirectUris: ["https://rp.example/cb"], serves: ["https://api.example/"] }] }, /client "a": serves is for confidential clients/],
    ["a served resource that is no URI", { store, clients: [{ clientId: "a", clientSecret: "a-client-secret-with-plenty-of-entropy-0123", redirectUris: [], grantTypes: ["client_credentials"], serves: ["api"] }] }, /client "a": serves/],
    ["an http issuer", { store, issuer: "http://idp.example" }, /issuer must be https/],
    ["no store", {} as never, /store is required/],
  ]
  for (const [name, options, message] of cases) {
    it(`refuses ${name} with InvalidConfig naming it`, () => {
      expect(() => oidcProvider(options)).toThrow(message)
    })
  }

  it("refuses to publish an issuer taken from an untrusted Host header in production", async () => {
    const bed = testbed({ provider: { development: false } })
    const forged = await bed.call("/auth/oidc/.well-known/openid-configuration", { headers: { host: "evil.example", "x-forwarded-host": "evil.example" } })
    expect(forged.status).toBe(500)
    expect(JSON.stringify(forged.body)).not.toContain("evil.example/auth/oidc")
  })
})

describe("audiences", () => {
  it("a token asked for a resource is refused at userinfo (a resource server cannot replay it there)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const tokens = await tokensFor(bed, ada, { resource: "https://api.example/mcp" })
    const answer = await bed.call("/auth/oidc/userinfo", { headers: bearer(tokens.access_token) })
    expect(answer.status).toBe(401)
    expect(answer.body.error).toBe("invalid_token")
  })

  it("the token endpoint takes form bodies only", async () => {
    const bed = testbed()
    const response = await bed.call("/auth/oidc/token", { headers: { ...basic("service", SECRET_WEB), "content-type": "application/json" }, method: "POST" })
    expect(response.body.error).toBe("invalid_request")
  })
})
