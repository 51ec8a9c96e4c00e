import { Auth } from "@portcullis/core"
import { describe, expect, it } from "vitest"
import { ORIGIN, SECRET_WEB, authorizeUrl, basic, codeFor, pkce, testbed, type Testbed } from "../support.js"
import { dead, refused } from "./kit.js"

const INITIAL = "initial-access-token-with-plenty-of-entropy-0123456789"
const NATIVE = { redirect_uris: ["http://127.0.0.1/callback"], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], client_name: "Some MCP Client" }

async function register(bed: Testbed, body: unknown, headers: Record<string, string> = {}, raw?: string) {
  const response = await Auth(new Request(new URL("/auth/oidc/register", ORIGIN), { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.9", ...headers }, body: raw ?? JSON.stringify(body) }), bed.config)
  const text = await response.text()
  let parsed: any = text
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: response.status, body: parsed, headers: response.headers }
}

const openBed = () => testbed({ provider: { registration: { open: true } } })

describe("attack: registration metadata", () => {
  it("script and data URIs in every spelling are refused, storing nothing", async () => {
    const bed = openBed()
    for (const uri of ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)", "data:text/html,x", "file:///etc/passwd", "vbscript:msgbox(1)", "blob:https://app.example/x", "about:blank"]) {
      for (const field of ["redirect_uris", "post_logout_redirect_uris"]) {
        const answer = await register(bed, { ...NATIVE, [field]: [uri] })
        expect(answer.status, `${field} ${uri}`).toBe(400)
        expect(answer.body.error).toBe("invalid_redirect_uri")
      }
      expect((await register(bed, { ...NATIVE, logo_uri: uri })).body.error).toBe("invalid_client_metadata")
    }
    expect(await bed.store.countDynamicClients()).toBe(0)
  })

  // Issue 34, found by this suite: the provider's own origin (loopback http in development, https in
  // production) was accepted as a registered client's redirect and post-logout URI.
  it("redirect URIs to the OP itself are refused (a code or a logout bounced through the provider's own pages)", async () => {
    const bed = openBed()
    for (const uri of [`${ORIGIN}/auth/oidc/authorize`, `${ORIGIN}/auth/signin?callbackUrl=https://evil.example`, `${ORIGIN}/`, `${ORIGIN}/auth/oidc/logout`]) {
      for (const field of ["redirect_uris", "post_logout_redirect_uris"]) {
        const answer = await register(bed, { ...NATIVE, [field]: [uri] })
        expect(answer.status, `${field} ${uri}`).toBe(400)
        expect(answer.body.error).toBe("invalid_redirect_uri")
      }
    }
    expect(await bed.store.countDynamicClients()).toBe(0)
    // Loopback on another port is a native app's, not the provider's.
    expect((await register(bed, { ...NATIVE, redirect_uris: ["http://localhost:4000/cb"] })).status).toBe(201)
  })

  it("a self-chosen client_id, secret, resources or trust fields are ignored; a static client cannot be overwritten", async () => {
    const bed = openBed()
    const answer = await register(bed, { ...NATIVE, client_id: "web", client_secret: "mine-mine-mine-mine-mine-mine-mine", client_secret_hash: "00", secretHash: "00", registrationTokenHash: "00", resources: ["https://api.example/mcp"], firstParty: true, dynamic: false, scope: "openid" })
    expect(answer.status).toBe(201)
    expect(answer.body.client_id).toMatch(/^dyn_/)
    const stored = await bed.store.getClient(answer.body.client_id)
    expect(stored).toMatchObject({ dynamic: true, tokenEndpointAuthMethod: "none" })
    expect(stored?.firstParty).toBeUndefined()
    expect(stored?.resources).toBeUndefined()
    expect(stored?.secretHash).toBeUndefined()
    expect(await bed.store.getClient("web")).toBeNull()
    // The static web client still authenticates with its own secret only.
    expect((await bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials" }, headers: basic("web", "mine-mine-mine-mine-mine-mine-mine") })).status).toBe(401)
    expect((await bed.call("/auth/oidc/token", { form: { grant_type: "refresh_token", refresh_token: "x" }, headers: basic("web", SECRET_WEB) })).body.error).toBe("invalid_grant")
  })

  it("a client named like a trusted one is still shown as self-registered, with where it returns to", async () => {
    const bed = openBed()
    const reg = await register(bed, { ...NATIVE, client_name: "Web App" })
    const ada = await bed.person("ada")
    const { challenge } = pkce()
    const page = await (await ada.browser.request(authorizeUrl({ client_id: reg.body.client_id, redirect_uri: "http://127.0.0.1/callback", scope: "openid", code_challenge: challenge, code_challenge_method: "S256" }))).text()
    expect(page).toContain('name="interaction"')
    expect(page).toContain("registered itself here")
    expect(page).toContain("127.0.0.1")
  })

  it("markup in the client name or its URIs is shown as text on the consent page", async () => {
    const bed = openBed()
    const name = `<img src=x onerror="alert(1)"><script>alert(2)</script>`
    const reg = await register(bed, { ...NATIVE, client_name: name, redirect_uris: ["http://127.0.0.1/cb?<script>=1"], client_uri: "https://app.example/\"><script>alert(3)</script>" })
    expect(reg.status).toBe(201)
    const ada = await bed.person("ada")
    const { challenge } = pkce()
    const page = await (await ada.browser.request(authorizeUrl({ client_id: reg.body.client_id, redirect_uri: "http://127.0.0.1/cb?<script>=1", scope: "openid", code_challenge: challenge, code_challenge_method: "S256" }))).text()
    expect(page).toContain('name="interaction"')
    expect(page).not.toContain("<script>alert")
    expect(page).not.toContain("<img src=x")
    expect(page).toContain("&lt;script&gt;")
  })

  it("deep JSON and a huge body are refused before the metadata is read", async () => {
    const bed = openBed()
    const deep = `{"redirect_uris":["https://app.example/cb"],"x":${"[".repeat(5000)}${"]".repeat(5000)}}`
    const nested = await register(bed, undefined, {}, deep)
    expect(nested.status).toBe(400)
    const huge = await register(bed, { ...NATIVE, pad: "x".repeat(1_200_000) })
    expect(huge.status).toBe(413)
    const wide = await register(bed, { ...NATIVE, ...Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])) })
    expect(wide.status).toBe(400)
    expect(await bed.store.countDynamicClients()).toBe(0)
  })
})

describe("attack: the registration gate", () => {
  it("a missing, wrong, prefixed or non-Bearer initial access token is 401, audited, storing nothing", async () => {
    const bed = testbed({ provider: { registration: { initialAccessToken: INITIAL } } })
    for (const authorization of [undefined, `Bearer ${INITIAL.slice(0, -1)}`, `Bearer ${INITIAL}x`, `Basic ${Buffer.from(`x:${INITIAL}`).toString("base64")}`, `Bearer ${INITIAL.toUpperCase()}`, `Bearer  ${INITIAL}`, INITIAL]) {
      const answer = await register(bed, NATIVE, authorization ? { authorization } : {})
      expect(answer.status).toBe(401)
      expect(answer.body.error).toBe("invalid_token")
    }
    expect(await bed.store.countDynamicClients()).toBe(0)
    expect(bed.audit.filter((e) => e.type === "oidc.clientRegistration" && e.outcome === "failure").length).toBeGreaterThanOrEqual(7)
    expect((await register(bed, NATIVE, { authorization: `Bearer ${INITIAL}` })).status).toBe(201)
  })

  it("one client's registration access token opens no other registration, and the initial token none at all", async () => {
    const bed = testbed({ provider: { registration: { initialAccessToken: INITIAL } } })
    const a = (await register(bed, NATIVE, { authorization: `Bearer ${INITIAL}` })).body
    const b = (await register(bed, NATIVE, { authorization: `Bearer ${INITIAL}` })).body
    const manage = (id: string, token: string, method = "GET") => Auth(new Request(new URL(`/auth/oidc/register/${id}`, ORIGIN), { method, headers: { authorization: `Bearer ${token}` } }), bed.config)
    expect((await manage(b.client_id, a.registration_access_token)).status).toBe(401)
    expect((await manage(b.client_id, a.registration_access_token, "DELETE")).status).toBe(401)
    expect((await manage(b.client_id, INITIAL, "DELETE")).status).toBe(401)
    expect((await manage("web", a.registration_access_token)).status).toBe(401)
    expect(await bed.store.getClient(b.client_id)).not.toBeNull()
  })

  // Issue 34, found by this suite: the access token of a deleted client still opened userinfo and
  // introspection until it expired (RFC 7592 §2.3 asks for its tokens to end).
  it("a deleted registration's tokens die with it: access token, refresh token, codes in flight", async () => {
    const bed = openBed()
    const reg = (await register(bed, NATIVE)).body
    const ada = await bed.person("ada")
    const { verifier, challenge } = pkce()
    const params = { client_id: reg.client_id, redirect_uri: "http://127.0.0.1/callback", scope: "openid offline_access", code_challenge: challenge, code_challenge_method: "S256" }
    const { code } = await codeFor(ada, params)
    const tokens = (await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, client_id: reg.client_id, redirect_uri: "http://127.0.0.1/callback", code_verifier: verifier } })).body
    const inFlight = await codeFor(ada, params)
    const gone = await Auth(new Request(new URL(`/auth/oidc/register/${reg.client_id}`, ORIGIN), { method: "DELETE", headers: { authorization: `Bearer ${reg.registration_access_token}` } }), bed.config)
    expect(gone.status).toBe(204)
    const asPublic = (form: Record<string, string>) => bed.call("/auth/oidc/token", { form: { client_id: reg.client_id, ...form } })
    refused(await asPublic({ grant_type: "refresh_token", refresh_token: tokens.refresh_token }), "invalid_client", 401)
    refused(await asPublic({ grant_type: "authorization_code", code: inFlight.code, redirect_uri: "http://127.0.0.1/callback", code_verifier: verifier }), "invalid_client", 401)
    await dead(bed, tokens.access_token)
  })
})
