/**
 * Attack suite for introspection's `serves` (2026-11-29): `introspect` shows a client an
 * access token only when it was issued to that client, when the token's audience names the
 * client's id, or when the audience names a resource a *static, confidential* client is
 * configured to `serve`. `resources` (what a client may ask tokens for) no longer counts, and
 * a dynamically registered client serves nothing. Attacked here: registration metadata that
 * claims the trait (and RFC 7592 to update it), odd `serves` configurations, audience arrays,
 * refresh tokens, a client id that is a resource URI, revoked tokens and deleted clients,
 * `token_type_hint`, private_key_jwt resource servers, and a stored (non-dynamic) client record
 * carrying `serves`.
 */
import { createHash } from "node:crypto"
import { SignJWT, exportJWK, generateKeyPair } from "jose"
import { describe, expect, it } from "vitest"
import { Auth } from "@portcullis/core"
import { oidcProvider, type StaticClientOptions } from "@portcullis/oidc-provider"
import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import { CLIENTS, ISSUER, SECRET_WEB, basic, codeFor, testbed, type Testbed } from "../support.js"
import { decodeJwt, exchange, first, introspect } from "./kit.js"

const MCP = "https://api.example/mcp"
const OTHER = "https://api.example/other"
const RS_CLIENT: StaticClientOptions = { clientId: "mcp-server", clientSecret: SECRET_WEB, redirectUris: [], grantTypes: ["client_credentials"], scope: "read", serves: [MCP] }
const rs = basic("mcp-server", SECRET_WEB)

async function tokensFor(bed: Testbed, params: Record<string, string | string[]> = {}) {
  const ada = await bed.person(`ada${Math.random().toString(36).slice(2, 8)}`)
  const { code } = await codeFor(ada, { scope: "openid email offline_access", ...params })
  const answer = await exchange(bed, code)
  expect(answer.status).toBe(200)
  return answer.body as { access_token: string; id_token: string; refresh_token: string }
}

async function registerClient(bed: Testbed, metadata: Record<string, unknown>) {
  const response = await Auth(
    new Request(new URL("/auth/oidc/register", ISSUER), {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.9" },
      body: JSON.stringify({ redirect_uris: ["https://rp2.example/cb"], token_endpoint_auth_method: "client_secret_basic", ...metadata }),
    }),
    bed.config,
  )
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

/** The usual clients, with "web" allowed to ask tokens for `resources`. */
const webMay = (resources: string[]) => CLIENTS.map((c) => (c.clientId === "web" ? { ...c, resources } : c))

const withRegistration = (clients: StaticClientOptions[] = [...CLIENTS, RS_CLIENT]) => testbed({ provider: { clients, registration: { open: true, maxClients: 5 } } })

describe("registration metadata cannot make a client a resource server", () => {
  it("serves, resources, dynamic:false, first_party and a chosen client_id are ignored: the client sees no one else's token", async () => {
    const bed = withRegistration()
    const registered = await registerClient(bed, { serves: [MCP], resources: [MCP], dynamic: false, firstParty: true, first_party: true, client_id: MCP, clientId: MCP })
    expect(registered.status).toBe(201)
    expect(registered.body.client_id).toMatch(/^dyn_/)
    expect(registered.body.serves).toBeUndefined()
    const stored = await bed.store.getClient(registered.body.client_id)
    expect(stored?.dynamic).toBe(true)
    expect((stored as Record<string, unknown> | null)?.serves).toBeUndefined()
    const tokens = await tokensFor(bed, { resource: MCP })
    const asRegistered = basic(registered.body.client_id, registered.body.client_secret)
    expect((await introspect(bed, tokens.access_token, asRegistered)).body).toEqual({ active: false })
    expect((await introspect(bed, tokens.refresh_token, asRegistered)).body).toEqual({ active: false })
    // The static resource server still sees it: the registration changed nothing for it.
    expect((await introspect(bed, tokens.access_token, rs)).body).toMatchObject({ active: true, aud: MCP })
  })

  it("has no RFC 7592 update: PUT and PATCH on the registration change nothing", async () => {
    const bed = withRegistration()
    const registered = await registerClient(bed, {})
    expect(registered.status).toBe(201)
    const path = new URL(`/auth/oidc/register/${registered.body.client_id}`, ISSUER)
    for (const method of ["PUT", "PATCH"]) {
      const response = await Auth(
        new Request(path, {
          method,
          headers: { "content-type": "application/json", authorization: `Bearer ${registered.body.registration_access_token}` },
          body: JSON.stringify({ client_id: registered.body.client_id, redirect_uris: ["https://rp2.example/cb"], serves: [MCP], resources: [MCP], dynamic: false }),
        }),
        bed.config,
      )
      expect(response.status, method).toBeGreaterThanOrEqual(400)
      expect(response.status, method).toBeLessThan(500)
    }
    const stored = await bed.store.getClient(registered.body.client_id)
    expect(stored?.dynamic).toBe(true)
    expect((stored as Record<string, unknown> | null)?.serves).toBeUndefined()
    const tokens = await tokensFor(bed, { resource: MCP })
    expect((await introspect(bed, tokens.access_token, basic(registered.body.client_id, registered.body.client_secret))).body).toEqual({ active: false })
  })
})

describe("a stored client record carrying serves", () => {
  /** A testbed whose store holds client `clientId` (secret SECRET_WEB) with `serves: [MCP]` in its record. */
  async function withStoredServer(clientId: string, dynamic: boolean) {
    const store = memoryOidcProviderStore()
    const secretHash = createHash("sha256").update(SECRET_WEB).digest("hex")
    await store.createClient({ clientId, secretHash, tokenEndpointAuthMethod: "client_secret_basic", redirectUris: [], postLogoutRedirectUris: [], grantTypes: ["client_credentials"], scope: "read", dynamic, createdAt: new Date(), serves: [MCP] } as never)
    return testbed({ store })
  }

  it("is ignored when the record is dynamic", async () => {
    const bed = await withStoredServer("stored-dyn", true)
    const tokens = await tokensFor(bed, { resource: MCP })
    // The client authenticates (so the refusal below is introspection's, not client auth's).
    const own = await bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials" }, headers: basic("stored-dyn", SECRET_WEB) })
    expect(own.status).toBe(200)
    expect((await introspect(bed, tokens.access_token, basic("stored-dyn", SECRET_WEB))).body).toEqual({ active: false })
  })

  // Found by the attack pass of 2026-11-29 and fixed: introspect.ts read `serves` from any client
  // whose record said `dynamic: false`, so a stored record (an admin tool, a migration, an edited
  // row, a store round-tripping unknown fields) could make a client the resource server of
  // anything. `serves` is now read from the static configuration only.
  it("is ignored when the record says dynamic:false (serves is configuration only)", async () => {
    const bed = await withStoredServer("stored-static", false)
    const tokens = await tokensFor(bed, { resource: MCP })
    expect((await introspect(bed, tokens.access_token, basic("stored-static", SECRET_WEB))).body).toEqual({ active: false })
  })
})

describe("static serves configuration", () => {
  const provider = (client: StaticClientOptions) => () => oidcProvider({ store: memoryOidcProviderStore(), clients: [client], scopes: ["read"], resources: [MCP] })

  it("refuses serves on a public client, implicit or explicit", () => {
    expect(provider({ clientId: "pub-rs", redirectUris: ["https://rs.example/cb"], serves: [MCP] })).toThrow(/serves is for confidential clients/)
    expect(provider({ clientId: "pub-rs", redirectUris: ["https://rs.example/cb"], tokenEndpointAuthMethod: "none", serves: [MCP] })).toThrow(/serves is for confidential clients/)
  })

  it("refuses serves that is not an array of absolute URIs without a fragment", () => {
    const base = { clientId: "rs", clientSecret: SECRET_WEB, redirectUris: [], grantTypes: ["client_credentials"] as StaticClientOptions["grantTypes"], scope: "read" }
    expect(provider({ ...base, serves: MCP as unknown as string[] })).toThrow(/serves must be an array/)
    expect(provider({ ...base, serves: ["api.example/mcp"] })).toThrow(/serves/)
    expect(provider({ ...base, serves: ["/mcp"] })).toThrow(/serves/)
    expect(provider({ ...base, serves: [`${MCP}#frag`] })).toThrow(/fragment/)
    expect(provider({ ...base, serves: [MCP] })).not.toThrow()
  })

  it("matches the audience exactly: a trailing slash, other case or a prefix serves nothing", async () => {
    const variants = [`${MCP}/`, MCP.toUpperCase(), "HTTPS://api.example/mcp", "https://api.example", "https://api.example/mcp?x=1"]
    const clients = [...CLIENTS, ...variants.map((v, i) => ({ ...RS_CLIENT, clientId: `rs-${i}`, serves: [v] }))]
    const bed = testbed({ provider: { clients } })
    const tokens = await tokensFor(bed, { resource: MCP })
    for (let i = 0; i < variants.length; i++) {
      expect((await introspect(bed, tokens.access_token, basic(`rs-${i}`, SECRET_WEB))).body, variants[i]).toEqual({ active: false })
    }
  })

  it("is separate from resources: a client that may ask for X and serves Y sees Y's tokens, not X's", async () => {
    const clients = [...webMay([MCP, OTHER]), { ...RS_CLIENT, clientId: "both", resources: [MCP], serves: [OTHER] }]
    const bed = testbed({ provider: { clients, resources: [MCP, OTHER] } })
    const forMcp = await tokensFor(bed, { resource: MCP })
    const forOther = await tokensFor(bed, { resource: OTHER })
    expect((await introspect(bed, forMcp.access_token, basic("both", SECRET_WEB))).body).toEqual({ active: false })
    expect((await introspect(bed, forOther.access_token, basic("both", SECRET_WEB))).body).toMatchObject({ active: true, aud: OTHER, client_id: "web" })
  })
})

describe("audience arrays", () => {
  it("show the token to a server of any one of its audiences, and to no one serving none of them", async () => {
    const clients = [...webMay([MCP, OTHER, "https://api.example/third"]), { ...RS_CLIENT, clientId: "other-server", serves: [OTHER] }, { ...RS_CLIENT, clientId: "third", serves: ["https://api.example/third"] }]
    const bed = testbed({ provider: { clients, resources: [MCP, OTHER, "https://api.example/third"] } })
    const tokens = await tokensFor(bed, { resource: [MCP, OTHER] })
    const aud = decodeJwt(tokens.access_token).payload.aud
    expect(Array.isArray(aud) ? [...aud].sort() : [aud]).toEqual([OTHER, MCP].sort())
    expect((await introspect(bed, tokens.access_token, basic("other-server", SECRET_WEB))).body).toMatchObject({ active: true, client_id: "web" })
    expect((await introspect(bed, tokens.access_token, basic("third", SECRET_WEB))).body).toEqual({ active: false })
    expect((await introspect(bed, tokens.access_token, first)).body).toEqual({ active: false })
  })
})

describe("refresh tokens", () => {
  it("stay inactive for a resource server serving the access token's audience, whatever token_type_hint says", async () => {
    const bed = testbed({ provider: { clients: [...CLIENTS, RS_CLIENT] } })
    const tokens = await tokensFor(bed, { resource: MCP })
    expect((await introspect(bed, tokens.access_token, rs)).body.active).toBe(true)
    for (const hint of [undefined, "refresh_token", "access_token", "bogus"]) {
      const answer = await bed.call("/auth/oidc/introspect", { form: { token: tokens.refresh_token, ...(hint && { token_type_hint: hint }) }, headers: rs })
      expect(answer.body, String(hint)).toEqual({ active: false })
    }
    // The client it was issued to still sees it.
    expect((await introspect(bed, tokens.refresh_token)).body).toMatchObject({ active: true, token_type: "refresh_token", client_id: "web" })
  })

  it("a hint of refresh_token does not hide an access token from its resource server, nor show it to anyone else", async () => {
    const bed = testbed({ provider: { clients: [...CLIENTS, RS_CLIENT] } })
    const tokens = await tokensFor(bed, { resource: MCP })
    const as = (headers: Record<string, string>) => bed.call("/auth/oidc/introspect", { form: { token: tokens.access_token, token_type_hint: "refresh_token" }, headers })
    expect((await as(rs)).body).toMatchObject({ active: true, aud: MCP })
    expect((await as(first)).body).toEqual({ active: false })
  })
})

describe("a client id that is a resource URI", () => {
  it("a static confidential client named by the resource URI sees that resource's tokens (the audience names it), and only those", async () => {
    const clients = [...webMay([MCP, OTHER]), { clientId: MCP, clientSecret: SECRET_WEB, redirectUris: [], grantTypes: ["client_credentials"] as StaticClientOptions["grantTypes"], scope: "read" }]
    const bed = testbed({ provider: { clients, resources: [MCP, OTHER] } })
    const forMcp = await tokensFor(bed, { resource: MCP })
    const forOther = await tokensFor(bed, { resource: OTHER })
    expect((await introspect(bed, forMcp.access_token, basic(MCP, SECRET_WEB))).body).toMatchObject({ active: true, aud: MCP })
    expect((await introspect(bed, forOther.access_token, basic(MCP, SECRET_WEB))).body).toEqual({ active: false })
    expect((await introspect(bed, forMcp.refresh_token, basic(MCP, SECRET_WEB))).body).toEqual({ active: false })
  })
})

describe("revoked tokens and deleted clients", () => {
  it("a revoked access token is inactive for its resource server too", async () => {
    const bed = testbed({ provider: { clients: [...CLIENTS, RS_CLIENT] } })
    const tokens = await tokensFor(bed, { resource: MCP })
    expect((await introspect(bed, tokens.access_token, rs)).body.active).toBe(true)
    expect((await bed.call("/auth/oidc/revoke", { form: { token: tokens.access_token, token_type_hint: "access_token" }, headers: basic("web", SECRET_WEB) })).status).toBe(200)
    expect((await introspect(bed, tokens.access_token, rs)).body).toEqual({ active: false })
  })

  it("a resource server cannot revoke another client's token for its resource (revocation stays the owner's)", async () => {
    const bed = testbed({ provider: { clients: [...CLIENTS, RS_CLIENT] } })
    const tokens = await tokensFor(bed, { resource: MCP })
    expect((await bed.call("/auth/oidc/revoke", { form: { token: tokens.access_token }, headers: rs })).status).toBe(200)
    expect((await introspect(bed, tokens.access_token)).body.active).toBe(true)
  })

  it("a deleted dynamic client's access token is inactive for the resource server", async () => {
    const bed = withRegistration()
    const registered = await registerClient(bed, {})
    expect(registered.status).toBe(201)
    const dyn = registered.body.client_id as string
    const ada = await bed.person(`ada${Math.random().toString(36).slice(2, 8)}`)
    const { code } = await codeFor(ada, { client_id: dyn, redirect_uri: "https://rp2.example/cb", scope: "openid", resource: MCP })
    const answer = await exchange(bed, code, { redirect_uri: "https://rp2.example/cb" }, basic(dyn, registered.body.client_secret))
    expect(answer.status).toBe(200)
    const token = answer.body.access_token as string
    expect(decodeJwt(token).payload.aud).toBe(MCP)
    expect((await introspect(bed, token, rs)).body).toMatchObject({ active: true, client_id: dyn })
    const deleted = await Auth(new Request(new URL(`/auth/oidc/register/${dyn}`, ISSUER), { method: "DELETE", headers: { authorization: `Bearer ${registered.body.registration_access_token}` } }), bed.config)
    expect(deleted.status).toBe(204)
    expect((await introspect(bed, token, rs)).body).toEqual({ active: false })
  })
})

describe("private_key_jwt resource servers", () => {
  it("a private_key_jwt client that serves X sees X's tokens; one that does not, does not", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256")
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" }
    const signer = (clientId: string, serves?: string[]): StaticClientOptions => ({ clientId, jwks: { keys: [jwk] }, redirectUris: [], grantTypes: ["client_credentials"], scope: "read", ...(serves && { serves }) })
    const bed = testbed({ provider: { clients: [...CLIENTS, signer("signer-rs", [MCP]), signer("signer-plain")] } })
    const tokens = await tokensFor(bed, { resource: MCP })
    let n = 0
    const asSigner = async (clientId: string) => {
      const assertion = await new SignJWT({ jti: `j${++n}` }).setProtectedHeader({ alg: "ES256", kid: "k1" }).setIssuer(clientId).setSubject(clientId).setAudience(ISSUER).setIssuedAt().setExpirationTime("2m").sign(privateKey)
      return bed.call("/auth/oidc/introspect", { form: { token: tokens.access_token, client_id: clientId, client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", client_assertion: assertion } })
    }
    expect((await asSigner("signer-rs")).body).toMatchObject({ active: true, aud: MCP, client_id: "web" })
    expect((await asSigner("signer-plain")).body).toEqual({ active: false })
  })
})
