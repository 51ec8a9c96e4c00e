import { describe, expect, it } from "vitest"
import { ISSUER, RP, authorizeAs, authorizeUrl, codeFor, field, pkce, testbed } from "./support.js"

describe("authorize: the client and its redirect URI come first", () => {
  it("shows an error page, never a redirect, for an unknown client or a redirect URI not registered exactly", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    for (const redirect_uri of [`${RP}/../evil`, `${RP}x`, "https://rp.example/callback?x=1", "https://rp.example/callback#f", "https://evil.example/callback", "https://user@rp.example/callback", "https://rp.example/Callback", "https://rp.example/callback%2F..%2Fevil"]) {
      const response = await ada.browser.request(authorizeUrl({ redirect_uri }))
      expect(response.status, redirect_uri).toBe(400)
      expect(response.headers.get("location")).toBeNull()
      expect(await response.text()).toContain("did not register")
    }
    const unknown = await ada.browser.request(authorizeUrl({ client_id: "nobody" }))
    expect(unknown.status).toBe(400)
    expect(unknown.headers.get("location")).toBeNull()
    const missing = await ada.browser.request(authorizeUrl({ redirect_uri: "" }))
    expect(missing.status).toBe(400)
  })

  it("lets a native app's loopback redirect URI vary its port only (RFC 8252 §7.3)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { challenge } = pkce()
    const ok = await ada.browser.request(authorizeUrl({ client_id: "native", redirect_uri: "http://127.0.0.1:51234/callback", code_challenge: challenge, code_challenge_method: "S256" }))
    expect(ok.status).toBe(200)
    for (const redirect_uri of ["http://127.0.0.1:51234/callbackx", "http://127.0.0.2:51234/callback", "http://localhost:51234/callback", "https://127.0.0.1:51234/callback"]) {
      const refused = await ada.browser.request(authorizeUrl({ client_id: "native", redirect_uri, code_challenge: challenge, code_challenge_method: "S256" }))
      expect(refused.status, redirect_uri).toBe(400)
    }
  })
})

describe("authorize: refusals go back to the registered redirect URI with state and iss", () => {
  const cases: [string, Record<string, string | string[]>, string][] = [
    ["a response type other than code", { response_type: "token" }, "unsupported_response_type"],
    ["the implicit hybrid", { response_type: "code id_token" }, "unsupported_response_type"],
    ["PKCE plain", { code_challenge: "a".repeat(43), code_challenge_method: "plain" }, "invalid_request"],
    ["an unknown scope", { scope: "openid admin" }, "invalid_scope"],
    ["a resource the client may not use", { resource: "https://other.example/api" }, "invalid_target"],
    ["prompt=none with another value", { prompt: "none login" }, "invalid_request"],
    ["a request object", { request: "eyJ.x.y" }, "request_not_supported"],
    ["a fragment response mode", { response_mode: "fragment" }, "invalid_request"],
  ]
  for (const [name, params, error] of cases) {
    it(`answers ${error} for ${name}`, async () => {
      const bed = testbed()
      const ada = await bed.person("ada")
      const { location } = await authorizeAs(ada, params)
      expect(location!.origin + location!.pathname).toBe(RP)
      expect(location!.searchParams.get("error")).toBe(error)
      expect(location!.searchParams.get("state")).toBe("st-1")
      expect(location!.searchParams.get("iss")).toBe(ISSUER)
      expect(location!.searchParams.get("code")).toBeNull()
    })
  }

  it("requires PKCE S256 of a public client", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { location } = await authorizeAs(ada, { client_id: "native", redirect_uri: "http://127.0.0.1/callback" })
    expect(location!.searchParams.get("error")).toBe("invalid_request")
    expect(location!.searchParams.get("error_description")).toMatch(/PKCE/)
  })
})

describe("authorize: prompt and max_age", () => {
  it("prompt=none answers login_required to a signed-out browser and, the same, before consent (no session oracle), never a page", async () => {
    const bed = testbed()
    const out = await bed.person("out", { signedIn: false })
    const first = await authorizeAs(out, { prompt: "none" })
    expect(first.location!.searchParams.get("error")).toBe("login_required")
    const ada = await bed.person("ada")
    const second = await authorizeAs(ada, { prompt: "none" })
    expect(second.location!.searchParams.get("error")).toBe("login_required")
    expect(second.location!.searchParams.get("error_description")).toBe(first.location!.searchParams.get("error_description"))
    await codeFor(ada)
    const third = await authorizeAs(ada, { prompt: "none" })
    expect(third.location!.searchParams.get("code")).toBeTruthy()
  })

  it("prompt=login sends to the re-authentication page and accepts only an authentication made after the request (no loop)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await codeFor(ada)
    const first = await ada.browser.request(authorizeUrl({ prompt: "login" }))
    expect(first.status).toBe(302)
    const reauth = new URL(first.headers.get("location")!)
    expect(reauth.pathname).toBe("/auth/reauthenticate")
    const back = reauth.searchParams.get("callbackUrl")!
    // Coming back without re-authenticating: asked again.
    const again = await ada.browser.request(back)
    expect(new URL(again.headers.get("location")!).pathname).toBe("/auth/reauthenticate")
    await ada.browser.signIn({ email: ada.email }, back)
    const done = await ada.browser.request(back)
    expect(new URL(done.headers.get("location")!).searchParams.get("code")).toBeTruthy()
  })

  it("max_age=0 asks for a fresh authentication; prompt=none with it answers login_required", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await codeFor(ada)
    const none = await authorizeAs(ada, { prompt: "none", max_age: "0" })
    expect(none.location!.searchParams.get("error")).toBe("login_required")
    const asked = await ada.browser.request(authorizeUrl({ max_age: "0" }))
    expect(new URL(asked.headers.get("location")!).pathname).toBe("/auth/reauthenticate")
  })
})

describe("consent", () => {
  it("is remembered per user and client, asked again for a new scope or prompt=consent", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const first = await ada.browser.request(authorizeUrl({}))
    const page = await first.text()
    expect(page).toContain("See your email address")
    expect(page).toContain("Web App")
    await codeFor(ada)
    const remembered = await ada.browser.request(authorizeUrl({}))
    expect(remembered.status).toBe(302)
    const wider = await ada.browser.request(authorizeUrl({ scope: "openid email profile offline_access" }))
    expect(wider.status).toBe(200)
    const forced = await ada.browser.request(authorizeUrl({ prompt: "consent" }))
    expect(forced.status).toBe(200)
    expect(bed.events()).toContain("consentGiven/success")
  })

  it("is skipped for a first-party client", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const response = await ada.browser.request(authorizeUrl({ client_id: "first" }))
    expect(response.status).toBe(302)
    expect(new URL(response.headers.get("location")!).searchParams.get("code")).toBeTruthy()
  })

  it("Deny answers access_denied to the client", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { location } = await authorizeAs(ada, {}, "deny")
    expect(location!.searchParams.get("error")).toBe("access_denied")
    expect(location!.searchParams.get("state")).toBe("st-1")
  })

  it("refuses a consent post without the CSRF token (403), and one for another user's request", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const eve = await bed.person("eve")
    const page = await (await eve.browser.request(authorizeUrl({}))).text()
    const interaction = field(page, "interaction")
    const noToken = await eve.browser.request("/auth/oidc/consent", { form: { interaction, decision: "allow" } })
    expect(noToken.status).toBe(403)
    // Ada is sent Eve's consent form (her own CSRF token, Eve's request): refused.
    const adaPage = await (await ada.browser.request(authorizeUrl({ state: "ada" }))).text()
    const forged = await ada.browser.request("/auth/oidc/consent", { form: { csrfToken: field(adaPage, "csrfToken"), interaction, decision: "allow" } })
    expect(forged.status).toBe(403)
    expect(forged.headers.get("location")).toBeNull()
  })

  it("serves the consent page framed by nobody (core's frame-ancestors 'none')", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const response = await ada.browser.request(authorizeUrl({}))
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
  })

  it("a request is answered once: the consent form sent twice issues one code", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const page = await (await ada.browser.request(authorizeUrl({}))).text()
    const form = { csrfToken: field(page, "csrfToken"), interaction: field(page, "interaction"), decision: "allow" }
    const first = await ada.browser.request("/auth/oidc/consent", { form })
    expect(new URL(first.headers.get("location")!).searchParams.get("code")).toBeTruthy()
    const second = await ada.browser.request("/auth/oidc/consent", { form })
    expect(second.status).toBe(400)
  })
})

describe("authorize by POST", () => {
  it("parks a form-posted request and continues it as a GET in the browser", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const posted = await ada.browser.request("/auth/oidc/authorize", { form: { response_type: "code", client_id: "first", redirect_uri: RP, scope: "openid", state: "p" } })
    expect(posted.status).toBe(302)
    const resume = posted.headers.get("location")!
    expect(resume).toContain("/auth/oidc/authorize/resume?id=")
    const done = await ada.browser.request(resume)
    expect(new URL(done.headers.get("location")!).searchParams.get("state")).toBe("p")
  })
})

describe("authorize: each parameter once", () => {
  it("shows an error page for a repeated redirect_uri or client_id, never a redirect", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    for (const extra of [{ redirect_uri: [RP, "https://evil.example/cb"] }, { client_id: ["web", "first"] }, { state: ["a", "b"] }]) {
      const response = await ada.browser.request(authorizeUrl(extra))
      expect(response.status).toBe(400)
      expect(response.headers.get("location")).toBeNull()
    }
  })

  it("accepts several resource parameters (RFC 8707) and audiences the token to all", async () => {
    const bed = testbed({ provider: { resources: ["https://api.example/mcp", "https://api.example/files"], clients: [{ clientId: "web", clientSecret: "web-client-secret-with-plenty-of-entropy-0123456789", redirectUris: [RP], firstParty: true }] } })
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada, { resource: ["https://api.example/mcp", "https://api.example/files"] })
    const answer = await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP }, headers: { authorization: `Basic ${Buffer.from("web:web-client-secret-with-plenty-of-entropy-0123456789").toString("base64")}` } })
    const payload = JSON.parse(Buffer.from(answer.body.access_token.split(".")[1], "base64url").toString())
    expect(payload.aud).toEqual(["https://api.example/mcp", "https://api.example/files"])
  })
})

describe("clients registered in the store", () => {
  it("are found by authorize, and never skip consent even when their record claims first party", async () => {
    const bed = testbed()
    await bed.store.createClient({ clientId: "dyn-1", tokenEndpointAuthMethod: "none", redirectUris: ["https://dyn.example/cb"], postLogoutRedirectUris: [], grantTypes: ["authorization_code"], scope: "openid", firstParty: true, dynamic: true, createdAt: new Date() })
    const ada = await bed.person("ada")
    const { challenge } = pkce()
    const response = await ada.browser.request(authorizeUrl({ client_id: "dyn-1", redirect_uri: "https://dyn.example/cb", scope: "openid", code_challenge: challenge, code_challenge_method: "S256" }))
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('name="interaction"')
  })
})
