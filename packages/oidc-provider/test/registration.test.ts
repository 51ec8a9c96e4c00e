import { Auth } from "@portcullis/core"
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import type { OidcProviderStore } from "@portcullis/oidc-provider"
import { connectRedis } from "@portcullis/adapter-test/redis"
import { redisOidcProviderStore } from "@portcullis/oidc-provider/redis"
import { ISSUER, ORIGIN, authorizeAs, pkce, testbed, type Testbed } from "./support.js"
import { openRedisStore, redisGate } from "./store-harness.js"

const INITIAL = "initial-access-token-with-plenty-of-entropy-0123456789"
const sha256 = (v: string) => createHash("sha256").update(v).digest("hex")

/** A JSON request to the provider, as a registering client sends it. */
async function send(bed: Testbed, path: string, init: { json?: unknown; raw?: string; headers?: Record<string, string>; method?: string; ip?: string } = {}) {
  const headers = new Headers(init.headers)
  const body = init.raw ?? (init.json !== undefined ? JSON.stringify(init.json) : undefined)
  if (body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json")
  headers.set("x-forwarded-for", init.ip ?? "203.0.113.7")
  const response = await Auth(new Request(new URL(path, ORIGIN), { method: init.method ?? (body !== undefined ? "POST" : "GET"), headers, body }), bed.config)
  const text = await response.text()
  let parsed: any = text
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: response.status, body: parsed, headers: response.headers }
}

const NATIVE = { redirect_uris: ["http://127.0.0.1/callback"], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], client_name: "Some MCP Client" }
const openBed = (extra: Record<string, unknown> = {}, store?: OidcProviderStore) => testbed({ ...(store && { store }), provider: { registration: { open: true, ...extra } } })

describe("registration is off by default", () => {
  it("has no registration endpoint in discovery and no route", async () => {
    const bed = testbed()
    const discovery = await send(bed, "/auth/oidc/.well-known/openid-configuration")
    expect(discovery.body.registration_endpoint).toBeUndefined()
    expect((await send(bed, "/auth/oidc/register", { json: NATIVE })).status).toBe(404)
  })
})

describe("open registration", () => {
  it("is advertised, registers a public client once, and the client signs a user in through an unverified consent page", async () => {
    const bed = openBed()
    expect((await send(bed, "/auth/oidc/.well-known/openid-configuration")).body.registration_endpoint).toBe(`${ISSUER}/register`)
    const reg = await send(bed, "/auth/oidc/register", { json: NATIVE })
    expect(reg.status).toBe(201)
    expect(reg.headers.get("cache-control")).toBe("no-store")
    expect(reg.body.client_id).toMatch(/^dyn_/)
    expect(reg.body.client_secret).toBeUndefined()
    expect(reg.body.registration_access_token).toMatch(/^[\w-]{43}$/)
    expect(reg.body.scope).toBe("openid profile email offline_access")
    const stored = await bed.store.getClient(reg.body.client_id)
    expect(stored).toMatchObject({ dynamic: true, tokenEndpointAuthMethod: "none", registrationTokenHash: sha256(reg.body.registration_access_token) })
    expect(JSON.stringify(stored)).not.toContain(reg.body.registration_access_token)

    const ada = await bed.person("ada")
    const { challenge } = pkce()
    const first = await ada.browser.request(`/auth/oidc/authorize?${new URLSearchParams({ response_type: "code", client_id: reg.body.client_id, redirect_uri: "http://127.0.0.1:4711/callback", scope: "openid email", state: "s", code_challenge: challenge, code_challenge_method: "S256" })}`)
    const page = await first.text()
    expect(page).toContain("Some MCP Client registered itself here")
    expect(page).toContain("127.0.0.1:4711")
    const { location } = await authorizeAs(ada, { client_id: reg.body.client_id, redirect_uri: "http://127.0.0.1:4711/callback", scope: "openid email", code_challenge: challenge, code_challenge_method: "S256" })
    expect(location?.searchParams.get("code")).toBeTruthy()
    expect(bed.events()).toContain("clientRegistered/success")
  })

  it("hands a confidential client its secret once, keeps only its hash, and dates its expiry", async () => {
    const bed = openBed({ secretTtl: 3600 })
    const reg = await send(bed, "/auth/oidc/register", { json: { redirect_uris: ["https://app.example/cb"], client_name: "App" } })
    expect(reg.status).toBe(201)
    expect(reg.body.token_endpoint_auth_method).toBe("client_secret_basic")
    expect(reg.body.client_secret).toMatch(/^[\w-]{43}$/)
    expect(reg.body.client_secret_expires_at).toBeGreaterThan(Date.now() / 1000 + 3500)
    const stored = await bed.store.getClient(reg.body.client_id)
    expect(stored?.secretHash).toBe(sha256(reg.body.client_secret))
    expect(JSON.stringify(stored)).not.toContain(reg.body.client_secret)
    const read = await send(bed, `/auth/oidc/register/${reg.body.client_id}`, { headers: { authorization: `Bearer ${reg.body.registration_access_token}` } })
    expect(read.status).toBe(200)
    expect(read.body.client_secret).toBeUndefined()
    expect(read.body.client_name).toBe("App")
  })

  it("never takes firstParty (or any trait of the provider's) from the request: consent is still asked", async () => {
    const bed = openBed()
    const reg = await send(bed, "/auth/oidc/register", { json: { ...NATIVE, firstParty: true, first_party: true, dynamic: false } })
    expect(reg.status).toBe(201)
    const stored = await bed.store.getClient(reg.body.client_id)
    expect(stored?.firstParty).toBeUndefined()
    expect(stored?.dynamic).toBe(true)
    const ada = await bed.person("ada")
    const { challenge } = pkce()
    const page = await (await ada.browser.request(`/auth/oidc/authorize?${new URLSearchParams({ response_type: "code", client_id: reg.body.client_id, redirect_uri: "http://127.0.0.1/callback", scope: "openid", code_challenge: challenge, code_challenge_method: "S256" })}`)).text()
    expect(page).toContain('name="interaction"')
  })
})

describe("what a registration may not hold (the attacker's metadata)", () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["a javascript: redirect URI", { ...NATIVE, redirect_uris: ["javascript:alert(1)//"] }, "invalid_redirect_uri"],
    ["a data: redirect URI", { ...NATIVE, redirect_uris: ["data:text/html,<script>alert(1)</script>"] }, "invalid_redirect_uri"],
    ["a plain http redirect URI off loopback", { ...NATIVE, redirect_uris: ["http://evil.example/cb"] }, "invalid_redirect_uri"],
    ["a redirect URI with a fragment", { ...NATIVE, redirect_uris: ["https://app.example/cb#x"] }, "invalid_redirect_uri"],
    ["no redirect URI for the code grant", { ...NATIVE, redirect_uris: [] }, "invalid_redirect_uri"],
    ["a javascript: logo_uri", { ...NATIVE, logo_uri: "javascript:alert(1)" }, "invalid_client_metadata"],
    ["a data: client_uri", { ...NATIVE, client_uri: "data:text/html,hi" }, "invalid_client_metadata"],
    ["an http policy_uri", { ...NATIVE, policy_uri: "http://app.example/privacy" }, "invalid_client_metadata"],
    ["a tos_uri that is no URL", { ...NATIVE, tos_uri: "not a url" }, "invalid_client_metadata"],
    ["a huge client_name", { ...NATIVE, client_name: "A".repeat(5000) }, "invalid_client_metadata"],
    ["a name with a bidirectional override", { ...NATIVE, client_name: "Good\u202eelgooG" }, "invalid_client_metadata"],
    ["huge metadata", { ...NATIVE, extra: "x".repeat(40_000) }, "invalid_client_metadata"],
    ["too many redirect URIs", { ...NATIVE, redirect_uris: Array.from({ length: 50 }, (_, i) => `https://app.example/${i}`) }, "invalid_client_metadata"],
    ["a scope outside the allowed set", { ...NATIVE, scope: "openid read" }, "invalid_client_metadata"],
    ["private_key_jwt", { ...NATIVE, token_endpoint_auth_method: "private_key_jwt" }, "invalid_client_metadata"],
    ["inline keys", { ...NATIVE, jwks: { keys: [] } }, "invalid_client_metadata"],
    ["client_credentials", { ...NATIVE, grant_types: ["client_credentials"] }, "invalid_client_metadata"],
    ["an implicit response type", { ...NATIVE, response_types: ["token"] }, "invalid_client_metadata"],
    ["a software statement", { ...NATIVE, software_statement: "eyJhbGciOiJub25lIn0.e30." }, "invalid_software_statement"],
  ]
  for (const [what, metadata, error] of cases) {
    it(`refuses ${what} (400 ${error}), storing nothing`, async () => {
      const bed = openBed()
      const answer = await send(bed, "/auth/oidc/register", { json: metadata })
      expect(answer.status).toBe(400)
      expect(answer.body.error).toBe(error)
      expect(await bed.store.countDynamicClients()).toBe(0)
    })
  }

  it("refuses a form body: metadata is JSON", async () => {
    const bed = openBed()
    const answer = await send(bed, "/auth/oidc/register", { raw: "redirect_uris=https%3A%2F%2Fapp.example%2Fcb", headers: { "content-type": "application/x-www-form-urlencoded" } })
    expect(answer.status).toBe(400)
    expect(answer.body.error).toBe("invalid_client_metadata")
  })

  it("allows private-use schemes only when the policy does", async () => {
    const scheme = { ...NATIVE, redirect_uris: ["com.example.app:/cb"] }
    expect((await send(openBed(), "/auth/oidc/register", { json: scheme })).status).toBe(201)
    expect((await send(openBed({ privateUseSchemes: false }), "/auth/oidc/register", { json: scheme })).body.error).toBe("invalid_redirect_uri")
  })
})

describe("open registration's limits", () => {
  it("stops at the cap on dynamic clients (503), and counts deleted ones out", async () => {
    const bed = openBed({ maxClients: 2 })
    const a = await send(bed, "/auth/oidc/register", { json: NATIVE })
    expect((await send(bed, "/auth/oidc/register", { json: NATIVE })).status).toBe(201)
    const over = await send(bed, "/auth/oidc/register", { json: NATIVE })
    expect(over.status).toBe(503)
    expect(over.body.error).toBe("temporarily_unavailable")
    expect(await bed.store.countDynamicClients()).toBe(2)
    expect(bed.events()).toContain("clientRegistration/failure")
    const deleted = await send(bed, `/auth/oidc/register/${a.body.client_id}`, { method: "DELETE", headers: { authorization: `Bearer ${a.body.registration_access_token}` } })
    expect(deleted.status).toBe(204)
    expect((await send(bed, "/auth/oidc/register", { json: NATIVE })).status).toBe(201)
  })

  it("holds the cap under 50 concurrent registrations: never more clients than the cap, and every 201 is a client that exists", async () => {
    const bed = openBed({ maxClients: 10 })
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => send(bed, "/auth/oidc/register", { json: NATIVE, ip: `198.51.100.${i}` })))
    const created = answers.filter((r) => r.status === 201)
    expect(answers.every((r) => r.status === 201 || r.status === 503)).toBe(true)
    expect(created.length).toBeLessThanOrEqual(10)
    expect(await bed.store.countDynamicClients()).toBe(created.length)
    for (const r of created) expect(await bed.store.getClient(r.body.client_id)).not.toBeNull()
    // Racers at the edge may all have withdrawn: the room left is there for the next ones.
    for (let n = created.length; n < 10; n++) expect((await send(bed, "/auth/oidc/register", { json: NATIVE, ip: "192.0.2.1" })).status).toBe(201)
    expect((await send(bed, "/auth/oidc/register", { json: NATIVE, ip: "192.0.2.1" })).status).toBe(503)
  })

  it("limits registrations per client address (429), another address is not held back", async () => {
    const bed = testbed({ config: { rateLimit: {} }, provider: { registration: { open: true, rateLimit: { max: 3, window: 3600 } } } })
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push((await send(bed, "/auth/oidc/register", { json: NATIVE, ip: "198.51.100.1" })).status)
    expect(statuses).toEqual([201, 201, 201, 429, 429])
    expect((await send(bed, "/auth/oidc/register", { json: NATIVE, ip: "198.51.100.2" })).status).toBe(201)
    expect(await bed.store.countDynamicClients()).toBe(4)
  })
})

describe("registration with an initial access token", () => {
  const bed = () => testbed({ provider: { registration: { initialAccessToken: INITIAL, scopes: ["openid", "read"] } } })
  it("refuses a missing or wrong token with 401 and a Bearer challenge", async () => {
    const b = bed()
    for (const headers of [{}, { authorization: "Bearer wrong-token" }, { authorization: `Basic ${Buffer.from(`x:${INITIAL}`).toString("base64")}` }, { authorization: `Bearer ${INITIAL}x` }] as Record<string, string>[]) {
      const answer = await send(b, "/auth/oidc/register", { json: NATIVE, headers })
      expect(answer.status).toBe(401)
      expect(answer.body.error).toBe("invalid_token")
      expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer /)
    }
    expect(await b.store.countDynamicClients()).toBe(0)
  })
  it("registers with the right one, within the configured scopes", async () => {
    const b = bed()
    const answer = await send(b, "/auth/oidc/register", { json: { ...NATIVE, scope: "openid read" }, headers: { authorization: `Bearer ${INITIAL}` } })
    expect(answer.status).toBe(201)
    expect(answer.body.scope).toBe("openid read")
    expect((await send(b, "/auth/oidc/register", { json: { ...NATIVE, scope: "email" }, headers: { authorization: `Bearer ${INITIAL}` } })).body.error).toBe("invalid_client_metadata")
  })
})

describe("reading and deleting a registration (RFC 7592)", () => {
  it("answers only the client's own registration access token, the same 401 for a wrong token or another client", async () => {
    const bed = openBed()
    const a = await send(bed, "/auth/oidc/register", { json: NATIVE })
    const b = await send(bed, "/auth/oidc/register", { json: NATIVE })
    expect((await send(bed, `/auth/oidc/register/${a.body.client_id}`, { headers: { authorization: `Bearer ${b.body.registration_access_token}` } })).status).toBe(401)
    expect((await send(bed, `/auth/oidc/register/${a.body.client_id}`)).status).toBe(401)
    expect((await send(bed, "/auth/oidc/register/web", { headers: { authorization: `Bearer ${a.body.registration_access_token}` } })).status).toBe(401)
    expect((await send(bed, `/auth/oidc/register/${a.body.client_id}`, { method: "DELETE", headers: { authorization: `Bearer ${b.body.registration_access_token}` } })).status).toBe(401)
    expect(await bed.store.getClient(a.body.client_id)).not.toBeNull()
    expect((await send(bed, `/auth/oidc/register/${a.body.client_id}`, { method: "DELETE", headers: { authorization: `Bearer ${a.body.registration_access_token}` } })).status).toBe(204)
    expect(await bed.store.getClient(a.body.client_id)).toBeNull()
    expect((await send(bed, `/auth/oidc/register/${a.body.client_id}`, { headers: { authorization: `Bearer ${a.body.registration_access_token}` } })).status).toBe(401)
  })
})

describe("deleting a registration, 50 times at once", () => {
  it("deletes it once: one 204, the rest 401, one event", async () => {
    const bed = openBed()
    const a = await send(bed, "/auth/oidc/register", { json: NATIVE })
    const answers = await Promise.all(Array.from({ length: 50 }, () => send(bed, `/auth/oidc/register/${a.body.client_id}`, { method: "DELETE", headers: { authorization: `Bearer ${a.body.registration_access_token}` } })))
    expect(answers.filter((r) => r.status === 204)).toHaveLength(1)
    expect(answers.filter((r) => r.status === 401)).toHaveLength(49)
    expect(bed.events().filter((e) => e === "clientDeleted/success")).toHaveLength(1)
    expect(await bed.store.getClient(a.body.client_id)).toBeNull()
  })
})

describe("registration when the store fails", () => {
  it("answers 503 and leaves no client behind", async () => {
    const inner = memoryOidcProviderStore()
    const failing: OidcProviderStore = Object.create(inner, { createClient: { value: async () => { throw new Error("connection reset") } } })
    for (const key of Object.getOwnPropertyNames(Object.getPrototypeOf(inner))) if (key !== "constructor" && key !== "createClient") (failing as any)[key] = (inner as any)[key].bind(inner)
    const bed = openBed({}, failing)
    const answer = await send(bed, "/auth/oidc/register", { json: NATIVE })
    expect(answer.status).toBe(503)
    expect(answer.body.client_id).toBeUndefined()
    expect(await inner.countDynamicClients()).toBe(0)
  })
})

describe("the added sentences", () => {
  it("exist in the eight languages with the same placeholders, merged into the provider's catalog", async () => {
    const { extraMessages } = await import("../src/messages-extra.js")
    const en = extraMessages.en!
    expect(Object.keys(extraMessages).sort()).toEqual(["ar", "de", "en", "es", "fr", "ja", "pt", "zh"])
    for (const [lang, catalog] of Object.entries(extraMessages)) {
      expect(Object.keys(catalog).sort(), lang).toEqual(Object.keys(en).sort())
      for (const [key, text] of Object.entries(catalog)) expect(text.match(/\{\w+\}/g)?.sort() ?? [], `${lang} ${key}`).toEqual(en[key as keyof typeof en].match(/\{\w+\}/g)?.sort() ?? [])
    }
  })
})

redisGate.describe("registrations shared by two instances on one Redis", () => {
  it("a client registered on one instance is read, counted and deleted on the other", async () => {
    const harness = await openRedisStore()
    const second = connectRedis()
    try {
      const a = openBed({ maxClients: 2 }, harness.store)
      const b = openBed({ maxClients: 2 }, redisOidcProviderStore(second, { prefix: harness.prefix }))
      const reg = await send(a, "/auth/oidc/register", { json: NATIVE })
      expect(reg.status).toBe(201)
      const read = await send(b, `/auth/oidc/register/${reg.body.client_id}`, { headers: { authorization: `Bearer ${reg.body.registration_access_token}` } })
      expect(read.status).toBe(200)
      expect(read.body.client_name).toBe("Some MCP Client")
      expect((await send(b, "/auth/oidc/register", { json: NATIVE })).status).toBe(201)
      // The cap counts both instances' registrations.
      expect((await send(a, "/auth/oidc/register", { json: NATIVE })).status).toBe(503)
      expect((await send(b, `/auth/oidc/register/${reg.body.client_id}`, { method: "DELETE", headers: { authorization: `Bearer ${reg.body.registration_access_token}` } })).status).toBe(204)
      expect((await send(a, `/auth/oidc/register/${reg.body.client_id}`, { headers: { authorization: `Bearer ${reg.body.registration_access_token}` } })).status).toBe(401)
    } finally {
      second.disconnect()
      await harness.cleanup()
    }
  })
})
