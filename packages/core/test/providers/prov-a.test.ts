/**
 * Provider presets of group prov-a: 42-school, asgardeo, azure-ad, azure-ad-b2c,
 * bankid-no, battlenet, beyondidentity, boxyhq-saml, bungie, click-up, coinbase, concept2,
 * descope, dribbble, duende-identity-server6, eventbrite, eveonline, faceit, figma,
 * forwardemail and foursquare.
 *
 * The real services (Battle.net, Bungie.net, Microsoft Graph, ClickUp, Foursquare, Forward
 * Email…) cannot be reached from the test environment. So:
 * - each preset's shape and its `profile()` mapping are checked against sample responses
 *   taken from the provider's API documentation;
 * - custom `userinfo.request` functions run against a fake `fetch` that serves canned JSON
 *   and checks the URL, method and headers each request sends, with the global `fetch`
 *   stubbed to fail, so a preset that bypasses the context's `fetch` is caught;
 * - Battle.net (region-dependent issuer) and Bungie (API key header) are driven through
 *   `Auth()` from the sign-in start to a session, against local HTTP servers on 127.0.0.1
 *   shaped like them (`prov-a-fixtures/`), which stand in for the real services;
 * - Forward Email's sender posts to a local stand-in of its API, reached via `customFetch`.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { UnsecuredJWT } from "jose"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { customFetch, type AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import FortyTwo from "@portcullis/core/providers/42-school"
import Asgardeo from "@portcullis/core/providers/asgardeo"
import AzureAD from "@portcullis/core/providers/azure-ad"
import AzureADB2C from "@portcullis/core/providers/azure-ad-b2c"
import BankIDNorge from "@portcullis/core/providers/bankid-no"
import BattleNet from "@portcullis/core/providers/battlenet"
import BeyondIdentity from "@portcullis/core/providers/beyondidentity"
import BoxyHQSAML from "@portcullis/core/providers/boxyhq-saml"
import Bungie from "@portcullis/core/providers/bungie"
import ClickUp from "@portcullis/core/providers/click-up"
import Coinbase from "@portcullis/core/providers/coinbase"
import Concept2 from "@portcullis/core/providers/concept2"
import Descope from "@portcullis/core/providers/descope"
import Dribbble from "@portcullis/core/providers/dribbble"
import DuendeIdentityServer6 from "@portcullis/core/providers/duende-identity-server6"
import Eventbrite from "@portcullis/core/providers/eventbrite"
import EVEOnline from "@portcullis/core/providers/eveonline"
import FACEIT from "@portcullis/core/providers/faceit"
import Figma from "@portcullis/core/providers/figma"
import ForwardEmail from "@portcullis/core/providers/forwardemail"
import Foursquare from "@portcullis/core/providers/foursquare"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, captureLogger, direct, SECRET } from "../helpers.js"
import { extractLink, newBrowser, openLink, redirectOf, requestLink } from "../email/support.js"
import { checkCookies, location, signInThrough, startSignIn } from "../oauth/flow.js"
import { startBattleNetServer, type BattleNetServer } from "./prov-a-fixtures/battlenet-server.js"
import { guardian, startBungieServer, type BungieServer } from "./prov-a-fixtures/bungie-server.js"

type AnyConfig = OAuthConfig<any>
type Mapped = { id: string; name: string | null; email: string | null; image: string | null }

const url = (e: unknown) => (typeof e === "string" ? e : (e as { url?: string } | undefined)?.url)
const params = (config: AnyConfig) => (typeof config.authorization === "object" ? (config.authorization.params ?? {}) : {}) as Record<string, string>

/** Runs a preset's `userinfo.request` the way the core does, with the normalised provider. */
async function fetchProfile(config: AnyConfig, fetch: typeof globalThis.fetch, tokens: Record<string, unknown> = {}) {
  const userinfo = config.userinfo
  if (typeof userinfo !== "object" || !userinfo.request) throw new Error(`${config.id} has no custom userinfo request`)
  const provider = {
    ...config,
    userinfo: { url: userinfo.url ? new URL(userinfo.url) : undefined, request: userinfo.request },
    callbackUrl: `https://app.example/auth/callback/${config.id}`,
    signinUrl: `https://app.example/auth/signin/${config.id}`,
    checks: ["pkce", "state"],
  } as any
  return userinfo.request({ provider, tokens: { access_token: TOKEN, token_type: "bearer", ...tokens }, fetch })
}

const TOKEN = "at-0123456789"

/** A `fetch` serving canned answers by exact URL (404 otherwise), recording every call. */
function fakeApi(routes: Record<string, unknown | ((init: RequestInit | undefined) => Response)>) {
  const calls: Array<{ url: string; method: string; headers: Headers }> = []
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const target = input instanceof Request ? input.url : String(input)
    calls.push({ url: target, method: init?.method ?? "GET", headers: new Headers(init?.headers) })
    if (!(target in routes)) return Response.json({ message: "Not Found" }, { status: 404 })
    const route = routes[target]
    return typeof route === "function" ? (route as (i?: RequestInit) => Response)(init) : Response.json(route)
  }) as typeof globalThis.fetch
  return { fetch, calls }
}

/** The checks every preset gets: id/name/type, options untouched, https only, a button style. */
function basics(factory: (o?: any) => AnyConfig, id: string, name: string, type: "oauth" | "oidc", required: Record<string, unknown> = {}) {
  it("has its id, name and kind, and returns the user's options untouched", () => {
    const options = { clientId: "id", clientSecret: "secret", ...required }
    const config = factory(options)
    expect(config).toMatchObject({ id, name, type })
    expect(config.options).toBe(options)
    expect(config.clientId).toBeUndefined()
    expect(config.clientSecret).toBeUndefined()
    expect(config.style?.bg).toMatch(/^#/)
    expect(config.style?.text).toMatch(/^#/)
    for (const u of [url(config.authorization), url(config.token), url(config.userinfo), config.issuer, config.wellKnown]) {
      if (u) expect(new URL(u).protocol, u).toBe("https:")
    }
  })
}

async function mapped(config: AnyConfig, sample: unknown): Promise<Mapped> {
  const user = await config.profile!(structuredClone(sample) as any, {})
  expect(typeof user.id).toBe("string")
  return user as Mapped
}

// Presets must use the context's fetch (customFetch); the global one is off-limits in the
// unit tests below. The flow tests at the end use real HTTP and restore it.
function noGlobalFetch() {
  beforeEach(() => {
    vi.stubGlobal("fetch", () => {
      throw new Error("a preset used the global fetch instead of the context's fetch")
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
  })
}

// ---------------------------------------------------------------------------------------

describe("42-school", () => {
  basics(FortyTwo, "42-school", "42 School", "oauth")
  it("uses the intra API with scope public", () => {
    const c = FortyTwo()
    expect([url(c.authorization), url(c.token), url(c.userinfo)]).toEqual([
      "https://api.intra.42.fr/oauth/authorize", "https://api.intra.42.fr/oauth/token", "https://api.intra.42.fr/v2/me",
    ])
    expect(params(c).scope).toBe("public")
  })
  it("maps /v2/me", async () => {
    const me = {
      id: 2, email: "andre@42.fr", login: "andre", first_name: "André", last_name: "Aubin", usual_full_name: "André Aubin", usual_first_name: null,
      url: "https://api.intra.42.fr/v2/users/andre", phone: null, displayname: "André Aubin",
      image: { link: "https://cdn.intra.42.fr/users/1234567890/andre.jpg", versions: { large: "https://cdn.intra.42.fr/users/large_andre.jpg", medium: null, small: null, micro: null } },
      "staff?": false, correction_point: 4, pool_month: "july", pool_year: "2016", wallet: 0, cursus_users: [], campus: [],
    }
    expect(await mapped(FortyTwo(), me)).toEqual({ id: "2", name: "André Aubin", email: "andre@42.fr", image: "https://cdn.intra.42.fr/users/1234567890/andre.jpg" })
  })
})

describe("asgardeo", () => {
  basics(Asgardeo, "asgardeo", "Asgardeo", "oidc", { issuer: "https://api.asgardeo.io/t/acme/oauth2/token" })
  it("has no default issuer and asks for openid profile email", () => {
    expect(Asgardeo().issuer).toBeUndefined()
    expect(params(Asgardeo()).scope).toBe("openid profile email")
  })
  it("maps the ID token: given and family name joined", async () => {
    const claims = { sub: "2b6fd0a1-8b3e-4f44-9d4e-4a4d5cf1f0c1", given_name: "Ada", family_name: "Lovelace", email: "ada@example.com", picture: "https://example.com/ada.png", iss: "https://api.asgardeo.io/t/acme/oauth2/token", aud: "cid" }
    expect(await mapped(Asgardeo(), claims)).toEqual({ id: claims.sub, name: "Ada Lovelace", email: "ada@example.com", image: "https://example.com/ada.png" })
    expect(await mapped(Asgardeo(), { sub: "s" })).toEqual({ id: "s", name: null, email: null, image: null })
  })
})

describe("azure-ad (deprecated: Microsoft Entra ID)", () => {
  noGlobalFetch()
  basics(AzureAD, "azure-ad", "Azure Active Directory", "oidc")
  const claims = {
    ver: "2.0", iss: "https://login.microsoftonline.com/9122040d-6c67-4c5b-b112-36a304b66dad/v2.0", aud: "6cb04018-a3f5-46a7-b995-940c78f5aef3",
    sub: "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ", oid: "00000000-0000-0000-66f3-3332eca7ea81", tid: "9122040d-6c67-4c5b-b112-36a304b66dad",
    name: "Ada Lovelace", preferred_username: "ada@contoso.onmicrosoft.com", email: "ada@contoso.com", iat: 1700000000, exp: 1700003600,
  }
  const idToken = new UnsecuredJWT(claims).encode()

  it("defaults to the common v2.0 issuer; tenantId picks a tenant; User.Read for the photo", () => {
    expect(AzureAD().issuer).toBe("https://login.microsoftonline.com/common/v2.0")
    expect(AzureAD({ tenantId: claims.tid }).issuer).toBe(`https://login.microsoftonline.com/${claims.tid}/v2.0`)
    expect(params(AzureAD()).scope).toBe("openid profile email User.Read")
    expect(AzureAD().idToken).toBe(false)
  })

  it("profile: the ID token claims plus the Graph photo as a data URL, at profilePhotoSize", async () => {
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46])
    const api = fakeApi({ "https://graph.microsoft.com/v1.0/me/photos/96x96/$value": () => new Response(jpeg, { headers: { "content-type": "image/jpeg" } }) })
    const profile = await fetchProfile(AzureAD({ profilePhotoSize: 96 }), api.fetch, { id_token: idToken })
    expect(api.calls).toHaveLength(1)
    expect(api.calls[0]!.headers.get("authorization")).toBe(`Bearer ${TOKEN}`)
    expect(profile).toMatchObject({ sub: claims.sub, email: claims.email })
    expect(await mapped(AzureAD(), profile)).toEqual({ id: claims.sub, name: "Ada Lovelace", email: "ada@contoso.com", image: "data:image/jpeg;base64,/9j/4AAQSkY=" })
  })

  it("no photo (Graph 404) leaves image null and still signs in", async () => {
    const api = fakeApi({})
    const profile = await fetchProfile(AzureAD(), api.fetch, { id_token: idToken })
    expect(api.calls[0]!.url).toBe("https://graph.microsoft.com/v1.0/me/photos/48x48/$value")
    expect((await mapped(AzureAD(), profile)).image).toBeNull()
  })
})

describe("azure-ad-b2c", () => {
  basics(AzureADB2C, "azure-ad-b2c", "Azure Active Directory B2C", "oidc", { issuer: "https://contoso.b2clogin.com/7e4c5f4a-0000-4000-8000-000000000000/v2.0/" })
  it("maps the user flow's claims: email is the first of emails", async () => {
    const claims = {
      exp: 1700003600, nbf: 1700000000, ver: "1.0", iss: "https://contoso.b2clogin.com/7e4c5f4a-0000-4000-8000-000000000000/v2.0/", sub: "b1e2a3c4-0000-4000-8000-000000000001",
      aud: "90c0fe63-bcf2-44d5-8fb7-b8bbc0b29dc6", iat: 1700000000, auth_time: 1700000000, oid: "b1e2a3c4-0000-4000-8000-000000000001", name: "Ada Lovelace",
      emails: ["ada@example.com", "ada@work.example"], tfp: "B2C_1_signupsignin",
    }
    expect(AzureADB2C().issuer).toBeUndefined()
    expect(await mapped(AzureADB2C(), claims)).toEqual({ id: claims.sub, name: "Ada Lovelace", email: "ada@example.com", image: null })
  })
})

describe("bankid-no", () => {
  basics(BankIDNorge, "bankid-no", "BankID Norge", "oidc")
  it("production issuer, client_secret_post, signed userinfo as the profile, BankID app hint", () => {
    const c = BankIDNorge()
    expect(c.issuer).toBe("https://auth.bankid.no/auth/realms/prod")
    expect(c.client).toEqual({ token_endpoint_auth_method: "client_secret_post", userinfo_signed_response_alg: "RS256" })
    expect(c.idToken).toBe(false)
    expect(params(c)).toEqual({ ui_locales: "no", login_hint: "BIS" })
    expect(c.checks).toBeUndefined() // the core's OIDC default: pkce, state, nonce
  })
  it("maps the userinfo claims", async () => {
    const userinfo = {
      sub: "9578-6000-4-365161", iss: "https://auth.bankid.no/auth/realms/prod", aud: "client", name: "Kari Nordmann", given_name: "Kari", family_name: "Nordmann",
      birthdate: "1990-02-17", updated_at: 1708682096, email: "kari@example.no", phone_number: "+4791234567", amr: "BIS", acr: "urn:bankid:bis;LOA=4",
    }
    expect(await mapped(BankIDNorge(), userinfo)).toEqual({ id: "9578-6000-4-365161", name: "Kari Nordmann", email: "kari@example.no", image: null })
  })
})

describe("battlenet", () => {
  basics(BattleNet, "battlenet", "Battle.net", "oidc")
  it("defaults to the global issuer, accepts a regional one, asks only for openid", () => {
    expect(BattleNet().issuer).toBe("https://oauth.battle.net")
    const eu = { issuer: "https://eu.battle.net/oauth" as const }
    expect(BattleNet(eu).options).toBe(eu)
    expect(params(BattleNet()).scope).toBe("openid")
  })
  it("maps the ID token: the BattleTag is the name", async () => {
    const claims = { iss: "https://oauth.battle.net", sub: "123456789", aud: "cid", exp: 1700003600, iat: 1700000000, battle_tag: "Ada#1815" }
    expect(await mapped(BattleNet(), claims)).toEqual({ id: "123456789", name: "Ada#1815", email: null, image: null })
  })
})

describe("beyondidentity", () => {
  basics(BeyondIdentity, "beyondidentity", "Beyond Identity", "oidc", {
    issuer: "https://auth-us.beyondidentity.com/v1/tenants/00011f1183c67b69/realms/a4e7d5fe2d1bd2a3/applications/3f4a9b7c-0000-4000-8000-000000000000",
  })
  it("maps the ID token", async () => {
    const claims = { sub: "8c0d3a6b-1f1e-4e8a-9b7c-2d3e4f5a6b7c", name: "Ada Lovelace", preferred_username: "ada", email: "ada@example.com" }
    expect(BeyondIdentity().issuer).toBeUndefined()
    expect(await mapped(BeyondIdentity(), claims)).toEqual({ id: claims.sub, name: "Ada Lovelace", email: "ada@example.com", image: null })
  })
})

describe("boxyhq-saml", () => {
  basics(BoxyHQSAML, "boxyhq-saml", "BoxyHQ SAML", "oauth", { issuer: "https://jackson.example.com" })
  afterEach(() => vi.unstubAllEnvs())
  it("endpoints under the Jackson base URL (options or AUTH_BOXYHQ_SAML_ISSUER); OAuth 2.0 flow, no openid", () => {
    const c = BoxyHQSAML({ issuer: "https://jackson.example.com/" })
    expect([url(c.authorization), url(c.token), url(c.userinfo)]).toEqual([
      "https://jackson.example.com/api/oauth/authorize", "https://jackson.example.com/api/oauth/token", "https://jackson.example.com/api/oauth/userinfo",
    ])
    expect(params(c)).toEqual({ provider: "saml", scope: "profile email" })
    expect(c.checks).toEqual(["pkce", "state"])
    vi.stubEnv("AUTH_BOXYHQ_SAML_ISSUER", "https://sso.example.org")
    expect(url(BoxyHQSAML().token)).toBe("https://sso.example.org/api/oauth/token")
  })
  it("maps Jackson's userinfo: first and last name joined", async () => {
    const userinfo = { id: "ada@acme.com", email: "ada@acme.com", firstName: "Ada", lastName: "Lovelace", requested: { tenant: "acme.com", product: "demo" }, raw: {} }
    expect(await mapped(BoxyHQSAML(), userinfo)).toEqual({ id: "ada@acme.com", name: "Ada Lovelace", email: "ada@acme.com", image: null })
  })
})

describe("bungie", () => {
  noGlobalFetch()
  basics(Bungie, "bungie", "Bungie", "oauth")
  const account = { Response: { bungieNetUser: guardian, destinyMemberships: [] }, ErrorCode: 1, ThrottleSeconds: 0, ErrorStatus: "Success", Message: "Ok", MessageData: {} }
  const endpoint = `https://www.bungie.net/Platform/User/GetBungieAccount/${guardian.membershipId}/254/`

  it("Bungie's endpoints; reauth on the authorization URL", () => {
    const c = Bungie()
    expect([url(c.authorization), url(c.token)]).toEqual(["https://www.bungie.net/en/OAuth/Authorize", "https://www.bungie.net/Platform/App/OAuth/token/"])
    expect(params(c)).toEqual({ reauth: "true" })
  })

  it("reads GetBungieAccount for the token's membership_id with the bearer token and X-API-Key", async () => {
    const api = fakeApi({ [endpoint]: account })
    const profile = await fetchProfile({ ...Bungie(), apiKey: "key-1" } as unknown as AnyConfig, api.fetch, { membership_id: guardian.membershipId })
    expect(api.calls).toHaveLength(1)
    expect(api.calls[0]).toMatchObject({ url: endpoint, method: "GET" })
    expect(api.calls[0]!.headers.get("x-api-key")).toBe("key-1")
    expect(api.calls[0]!.headers.get("authorization")).toBe(`Bearer ${TOKEN}`)
    expect(await mapped(Bungie(), profile)).toEqual({ id: guardian.membershipId, name: "Ada", email: null, image: "https://www.bungie.net/img/profile/avatars/bungieday_27.jpg" })
  })

  it("takes the key from AUTH_BUNGIE_KEY; refuses to call without one, or without membership_id", async () => {
    const api = fakeApi({ [endpoint]: account })
    vi.stubEnv("AUTH_BUNGIE_KEY", "key-env")
    await fetchProfile(Bungie(), api.fetch, { membership_id: guardian.membershipId })
    expect(api.calls[0]!.headers.get("x-api-key")).toBe("key-env")
    vi.unstubAllEnvs()
    await expect(fetchProfile(Bungie(), api.fetch, { membership_id: guardian.membershipId })).rejects.toThrow(/AUTH_BUNGIE_KEY/)
    await expect(fetchProfile(Bungie({ apiKey: "k" }), api.fetch)).rejects.toThrow(/membership_id/)
    expect(api.calls).toHaveLength(1)
  })

  it("an envelope with an ErrorCode other than 1 is a failure, even on a 200", async () => {
    const api = fakeApi({ [endpoint]: { Response: undefined, ErrorCode: 217, ErrorStatus: "UserCannotResolveCentralAccount", Message: "…" } })
    await expect(fetchProfile(Bungie({ apiKey: "k" }), api.fetch, { membership_id: guardian.membershipId })).rejects.toThrow(/UserCannotResolveCentralAccount/)
  })
})

describe("click-up", () => {
  noGlobalFetch()
  basics(ClickUp, "click-up", "ClickUp", "oauth")
  const user = { user: { id: 123, username: "John Doe", email: "johndoe@gmail.com", color: "#000000", profilePicture: "https://attachments.clickup.com/profilePictures/123_abc.jpg", initials: "JD", week_start_day: 0, global_font_support: false, timezone: "Europe/Paris" } }

  it("ClickUp's endpoints, state only, client_secret_post", () => {
    const c = ClickUp()
    expect([url(c.authorization), url(c.token), url(c.userinfo)]).toEqual(["https://app.clickup.com/api", "https://api.clickup.com/api/v2/oauth/token", "https://api.clickup.com/api/v2/user"])
    expect(c.checks).toEqual(["state"])
    expect(c.client?.token_endpoint_auth_method).toBe("client_secret_post")
  })
  it("reads /api/v2/user with the token as the Authorization header, no Bearer prefix", async () => {
    const api = fakeApi({ "https://api.clickup.com/api/v2/user": user })
    const profile = await fetchProfile(ClickUp(), api.fetch)
    expect(api.calls[0]!.headers.get("authorization")).toBe(TOKEN)
    expect(await mapped(ClickUp(), profile)).toEqual({ id: "123", name: "John Doe", email: "johndoe@gmail.com", image: "https://attachments.clickup.com/profilePictures/123_abc.jpg" })
  })
  it("a refused token is an error", async () => {
    const api = fakeApi({ "https://api.clickup.com/api/v2/user": () => Response.json({ err: "Token invalid", ECODE: "OAUTH_025" }, { status: 401 }) })
    await expect(fetchProfile(ClickUp(), api.fetch)).rejects.toThrow(/401/)
  })
})

describe("coinbase", () => {
  basics(Coinbase, "coinbase", "Coinbase", "oauth")
  it("endpoints and scopes", () => {
    const c = Coinbase()
    expect([url(c.authorization), url(c.token), url(c.userinfo)]).toEqual(["https://login.coinbase.com/oauth2/auth", "https://login.coinbase.com/oauth2/token", "https://api.coinbase.com/v2/user"])
    expect(params(c).scope).toBe("wallet:user:email wallet:user:read")
  })
  it("maps /v2/user's data", async () => {
    const me = { data: { id: "9da7a204-544e-5fd1-9a12-61176c5d4cd8", name: "User One", username: "user1", profile_location: null, profile_bio: null, profile_url: "https://coinbase.com/user1", avatar_url: "https://images.coinbase.com/avatar?h=vR%2FY8igBoPwuwGren5JMwvDNGpURAY%2F0nRIOgH%2FY2Qh%2BQ6nomR3qusA%2Bh6o2%0Af9rH&s=128", resource: "user", resource_path: "/v2/user", email: "user1@example.com" } }
    expect(await mapped(Coinbase(), me)).toEqual({ id: me.data.id, name: "User One", email: "user1@example.com", image: me.data.avatar_url })
  })
})

describe("concept2", () => {
  basics(Concept2, "concept2", "Concept2", "oauth")
  it("endpoints, comma-separated scopes, client_secret_post", () => {
    const c = Concept2()
    expect([url(c.authorization), url(c.token), url(c.userinfo)]).toEqual(["https://log.concept2.com/oauth/authorize", "https://log.concept2.com/oauth/access_token", "https://log.concept2.com/api/users/me"])
    expect(params(c).scope).toBe("user:read,results:write")
    expect(c.client?.token_endpoint_auth_method).toBe("client_secret_post")
  })
  it("maps /api/users/me's data: the username is the name", async () => {
    const me = { data: { id: 1, username: "david", first_name: "David", last_name: "Hart", gender: "M", dob: "1970-01-01", email: "david@example.com", country: "USA", profile_image: "https://log.concept2.com/uploads/profile/1.jpg", age_restricted: false, email_permission: null, max_heart_rate: null, weight: 7500, logbook_privacy: "private" } }
    expect(await mapped(Concept2(), me)).toEqual({ id: "1", name: "david", email: "david@example.com", image: "https://log.concept2.com/uploads/profile/1.jpg" })
  })
})

describe("descope", () => {
  basics(Descope, "descope", "Descope", "oidc")
  afterEach(() => vi.unstubAllEnvs())
  it("the issuer is derived from the project id (clientId, else AUTH_DESCOPE_ID); an explicit issuer stays in options", () => {
    expect(Descope({ clientId: "P2abcDEF" }).issuer).toBe("https://api.descope.com/P2abcDEF")
    vi.stubEnv("AUTH_DESCOPE_ID", "P2fromEnv")
    expect(Descope().issuer).toBe("https://api.descope.com/P2fromEnv")
    const custom = { issuer: "https://auth.example.com/P2abcDEF" }
    expect(Descope(custom).options).toBe(custom)
  })
  it("maps the ID token", async () => {
    const claims = { sub: "U2abcDEFghi", name: "Ada Lovelace", email: "ada@example.com", email_verified: true, picture: "https://example.com/ada.png", iss: "https://api.descope.com/P2abcDEF", aud: "P2abcDEF" }
    expect(await mapped(Descope(), claims)).toEqual({ id: "U2abcDEFghi", name: "Ada Lovelace", email: "ada@example.com", image: "https://example.com/ada.png" })
  })
})

describe("dribbble", () => {
  basics(Dribbble, "dribbble", "Dribbble", "oauth")
  it("endpoints and scope", () => {
    const c = Dribbble()
    expect([url(c.authorization), url(c.token), url(c.userinfo)]).toEqual(["https://dribbble.com/oauth/authorize", "https://dribbble.com/oauth/token", "https://api.dribbble.com/v2/user"])
    expect(params(c).scope).toBe("public")
  })
  it("maps /v2/user (no email in the documented response)", async () => {
    const me = { id: 1, name: "Dan Cederholm", login: "simplebits", html_url: "https://dribbble.com/simplebits", avatar_url: "https://d13yacurqjgara.cloudfront.net/users/1/avatars/normal/dc.jpg?1371679243", bio: "Co-founder &amp; designer of <a href=\"https://dribbble.com/dribbble\">@Dribbble</a>.", location: "Salem, MA", links: { web: "http://simplebits.com", twitter: "https://twitter.com/simplebits" }, can_upload_shot: true, pro: true, followers_count: 29262, created_at: "2009-07-08T02:51:22Z", type: "Player", teams: [] }
    expect(await mapped(Dribbble(), me)).toEqual({ id: "1", name: "Dan Cederholm", email: null, image: me.avatar_url })
  })
})

describe("duende-identity-server6", () => {
  basics(DuendeIdentityServer6, "duende-identity-server6", "DuendeIdentityServer6", "oidc", { issuer: "https://demo.duendesoftware.com" })
  it("maps the ID token", async () => {
    const claims = { iss: "https://demo.duendesoftware.com", sub: "1", idp: "local", name: "Alice Smith", given_name: "Alice", family_name: "Smith", email: "AliceSmith@email.com", email_verified: true, website: "http://alice.com" }
    expect(DuendeIdentityServer6().issuer).toBeUndefined()
    expect(await mapped(DuendeIdentityServer6(), claims)).toEqual({ id: "1", name: "Alice Smith", email: "AliceSmith@email.com", image: null })
  })
})

describe("eventbrite", () => {
  basics(Eventbrite, "eventbrite", "Eventbrite", "oauth")
  it("endpoints, scope, client_secret_post", () => {
    const c = Eventbrite()
    expect([url(c.authorization), url(c.token), url(c.userinfo)]).toEqual(["https://www.eventbrite.com/oauth/authorize", "https://www.eventbrite.com/oauth/token", "https://www.eventbriteapi.com/v3/users/me/"])
    expect(params(c).scope).toBe("user.profile")
    expect(c.client?.token_endpoint_auth_method).toBe("client_secret_post")
  })
  it("maps /v3/users/me/: the primary email, the image from image_id", async () => {
    const me = { emails: [{ email: "old@example.com", verified: true, primary: false }, { email: "ada@example.com", verified: true, primary: true }], id: "1234567890", name: "Ada Lovelace", first_name: "Ada", last_name: "Lovelace", is_public: false, image_id: "105233011" }
    expect(await mapped(Eventbrite(), me)).toEqual({
      id: "1234567890", name: "Ada Lovelace", email: "ada@example.com",
      image: "https://img.evbuc.com/https%3A%2F%2Fcdn.evbuc.com%2Fimages%2F105233011%2F1%2Foriginal.jpg",
    })
    expect(await mapped(Eventbrite(), { ...me, emails: [], image_id: null })).toMatchObject({ email: null, image: null })
  })
})

describe("eveonline", () => {
  basics(EVEOnline, "eveonline", "EVE Online", "oauth")
  it("EVE SSO v2 endpoints, publicData, /oauth/verify", () => {
    const c = EVEOnline()
    expect([url(c.authorization), url(c.token), url(c.userinfo)]).toEqual(["https://login.eveonline.com/v2/oauth/authorize", "https://login.eveonline.com/v2/oauth/token", "https://login.eveonline.com/oauth/verify"])
    expect(params(c).scope).toBe("publicData")
  })
  it("maps the character: id, name, portrait", async () => {
    const verify = { CharacterID: 95465499, CharacterName: "CCP Bartender", ExpiresOn: "2017-07-05T14:34:16.5857101", Scopes: "publicData", TokenType: "Character", CharacterOwnerHash: "lots_of_letters_and_numbers", IntellectualProperty: "EVE" }
    expect(await mapped(EVEOnline(), verify)).toEqual({ id: "95465499", name: "CCP Bartender", email: null, image: "https://images.evetech.net/characters/95465499/portrait?size=128" })
  })
})

describe("faceit", () => {
  basics(FACEIT, "faceit", "FACEIT", "oauth")
  it("endpoints, popup-free page, Basic client auth", () => {
    const c = FACEIT()
    expect([url(c.authorization), url(c.token), url(c.userinfo)]).toEqual(["https://accounts.faceit.com/accounts", "https://api.faceit.com/auth/v1/oauth/token", "https://api.faceit.com/auth/v1/resources/userinfo"])
    expect(params(c)).toEqual({ redirect_popup: "true" })
    expect(c.client?.token_endpoint_auth_method).toBe("client_secret_basic")
  })
  it("maps the userinfo: guid and nickname", async () => {
    const userinfo = { guid: "a1b2c3d4-0000-4000-8000-000000000001", nickname: "s1mple", email: "player@example.com", picture: "https://distribution.faceit-cdn.net/images/avatar.jpeg", locale: "en", membership: "free" }
    expect(await mapped(FACEIT(), userinfo)).toEqual({ id: userinfo.guid, name: "s1mple", email: "player@example.com", image: userinfo.picture })
  })
})

describe("figma", () => {
  basics(Figma, "figma", "Figma", "oauth")
  it("endpoints (the current token URL) and Auth.js's scope", () => {
    const c = Figma()
    expect([url(c.authorization), url(c.token), url(c.userinfo)]).toEqual(["https://www.figma.com/oauth", "https://api.figma.com/v1/oauth/token", "https://api.figma.com/v1/me"])
    expect(params(c).scope).toBe("files:read")
  })
  it("maps /v1/me: the handle is the name", async () => {
    const me = { id: "1234567890123456789", handle: "Ada", img_url: "https://s3-alpha.figma.com/profile/ada.png", email: "ada@example.com" }
    expect(await mapped(Figma(), me)).toEqual({ id: me.id, name: "Ada", email: "ada@example.com", image: me.img_url })
  })
})

describe("foursquare", () => {
  noGlobalFetch()
  basics(Foursquare, "foursquare", "Foursquare", "oauth")
  const self = {
    meta: { code: 200, requestId: "5ac51d7e6a607143d811cecb" },
    response: { user: { id: "1234567", firstName: "Ada", lastName: "Lovelace", gender: "female", photo: { prefix: "https://fastly.4sqi.net/img/user/", suffix: "/1234567-ABCDEF.jpg" }, contact: { email: "ada@example.com" }, homeCity: "London", canonicalUrl: "https://foursquare.com/user/1234567" } },
  }
  it("endpoints and client_secret_post", () => {
    const c = Foursquare()
    expect([url(c.authorization), url(c.token), url(c.userinfo)]).toEqual(["https://foursquare.com/oauth2/authenticate", "https://foursquare.com/oauth2/access_token", "https://api.foursquare.com/v2/users/self"])
    expect(c.client?.token_endpoint_auth_method).toBe("client_secret_post")
  })
  it("reads /v2/users/self with the version date and oauth_token, as Foursquare documents", async () => {
    const api = fakeApi({ [`https://api.foursquare.com/v2/users/self?v=20230131&oauth_token=${TOKEN}`]: self })
    const profile = await fetchProfile(Foursquare(), api.fetch)
    expect(api.calls).toHaveLength(1)
    expect(api.calls[0]!.method).toBe("GET")
    expect(await mapped(Foursquare(), profile)).toEqual({ id: "1234567", name: "Ada Lovelace", email: "ada@example.com", image: "https://fastly.4sqi.net/img/user/original/1234567-ABCDEF.jpg" })
  })
  it("apiVersion sets v", async () => {
    const api = fakeApi({ [`https://api.foursquare.com/v2/users/self?v=20240101&oauth_token=${TOKEN}`]: self })
    await fetchProfile(Foursquare({ apiVersion: "20240101" }), api.fetch)
    expect(api.calls).toHaveLength(1)
  })
  it("no photo, no last name", async () => {
    const user = { ...self, response: { user: { id: "1", firstName: "Ada" } } }
    expect(await mapped(Foursquare(), user)).toEqual({ id: "1", name: "Ada", email: null, image: null })
  })
})

// ---------------------------------------------------------------------------------------
// Flows through Auth(), against local servers shaped like the providers (see the header).

describe("battlenet flow (region-dependent issuer, Battle.net-shaped OP on loopback)", () => {
  let bnet: BattleNetServer
  beforeAll(async () => {
    bnet = await startBattleNetServer()
  })
  afterAll(() => bnet.close())
  beforeEach(() => {
    bnet.log.length = 0
    bnet.mintIssuer = undefined
  })

  function config(region: "eu" | "us", extra: Partial<AuthConfig> = {}): AuthConfig {
    return {
      secret: SECRET,
      trustHost: true,
      providers: [BattleNet({ issuer: bnet.issuer(region), clientId: bnet.clientId, clientSecret: bnet.clientSecret, allowInsecureLoopback: true })],
      ...extra,
    }
  }

  it("signs in through the configured region: discovery, openid scope, PKCE + nonce, Basic auth, BattleTag as name", async () => {
    const seen: unknown[] = []
    const browser = new Browser(direct(config("eu", {
      callbacks: {
        jwt({ token, account, profile, trigger }) {
          if (trigger === "signIn") seen.push({ sub: token.sub, account, profile })
          return token
        },
      },
    })))
    const authorize = location(await startSignIn(browser, "battlenet", { callbackUrl: "/armory" }))
    expect(authorize.origin + authorize.pathname).toBe(`${bnet.issuer("eu")}/authorize`)
    expect(authorize.searchParams.get("scope")).toBe("openid")
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256")
    expect(authorize.searchParams.get("nonce")).toBeTruthy()
    expect(authorize.searchParams.get("redirect_uri")).toBe("http://localhost:3000/auth/callback/battlenet")

    const back = new URL((await fetch(authorize, { redirect: "manual" })).headers.get("location")!)
    const done = await browser.request(back.pathname + back.search)
    expect(done.headers.get("location")).toBe("http://localhost:3000/armory")
    for (const name of checkCookies) expect(browser.jar.has(name)).toBe(false)

    expect((await browser.session()).user).toEqual({ name: "Ada#1815", email: null, image: null }) // no email or picture at Battle.net
    expect(seen).toEqual([{
      sub: "battlenet:123456789",
      account: expect.objectContaining({ provider: "battlenet", type: "oidc", providerAccountId: "123456789", token_type: "bearer" }),
      profile: expect.objectContaining({ sub: "123456789", battle_tag: "Ada#1815", iss: bnet.issuer("eu") }),
    }])
    // Only the EU region was asked; the token request used HTTP Basic; no userinfo call (ID token profile).
    expect(new Set(bnet.log.map((r) => r.region))).toEqual(new Set(["eu"]))
    expect(bnet.log.find((r) => r.path.endsWith("/token"))!.headers.authorization).toMatch(/^Basic /)
    expect(bnet.log.some((r) => r.path.endsWith("/userinfo"))).toBe(false)
  })

  it("another region's issuer is another provider: the US server signs in too, with its own discovery", async () => {
    const browser = new Browser(direct(config("us")))
    expect((await signInThrough(browser, "battlenet")).headers.get("location")).toBe("http://localhost:3000")
    expect(bnet.log.map((r) => r.region)).not.toContain("eu")
    expect(bnet.log[0]!.path).toBe("/us/oauth/.well-known/openid-configuration")
  })

  it("an ID token issued by another region is refused (OAuthCallbackError, no session)", async () => {
    bnet.mintIssuer = bnet.issuer("us")
    const browser = new Browser(direct(config("eu")))
    const response = await signInThrough(browser, "battlenet")
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/signin?error=OAuthCallbackError")
    expect(await browser.session()).toBeNull()
  })

  it("the issuer must be exactly the region's (a trailing slash is another issuer)", async () => {
    const cfg = config("eu")
    cfg.providers = [BattleNet({ issuer: `${bnet.issuer("eu")}/`, clientId: bnet.clientId, clientSecret: bnet.clientSecret, allowInsecureLoopback: true })]
    const browser = new Browser(direct(cfg))
    const response = await startSignIn(browser, "battlenet")
    expect(response.headers.get("location")).toMatch(/\/auth\/(error|signin)\?error=/)
  })
})

describe("bungie flow (API key header, Bungie.net-shaped server on loopback)", () => {
  let bungie: BungieServer
  beforeAll(async () => {
    bungie = await startBungieServer()
  })
  afterAll(() => bungie.close())
  beforeEach(() => {
    bungie.log.length = 0
  })

  function provider(extra: Record<string, unknown> = {}) {
    const base = bungie.origin
    return Bungie({
      clientId: bungie.clientId,
      clientSecret: bungie.clientSecret,
      apiKey: bungie.apiKey,
      allowInsecureLoopback: true,
      authorization: { url: `${base}/en/OAuth/Authorize` },
      token: `${base}/Platform/App/OAuth/token/`,
      userinfo: { url: `${base}/Platform/User/GetBungieAccount/{membershipId}/254/` },
      ...extra,
    })
  }

  it("signs in: reauth, Basic client auth, membership_id from the token, X-API-Key on the Platform call", async () => {
    const adapter = MemoryAdapter()
    const browser = new Browser(direct({ secret: SECRET, trustHost: true, adapter, providers: [provider()] }))
    const authorize = location(await startSignIn(browser, "bungie", { callbackUrl: "/vault" }))
    expect(authorize.origin + authorize.pathname).toBe(`${bungie.origin}/en/OAuth/Authorize`)
    expect(authorize.searchParams.get("reauth")).toBe("true")
    expect(authorize.searchParams.get("state")).toBeTruthy()

    const back = new URL((await fetch(authorize, { redirect: "manual" })).headers.get("location")!)
    const done = await browser.request(back.pathname + back.search)
    expect(done.headers.get("location")).toBe("http://localhost:3000/vault")

    expect((await browser.session()).user).toMatchObject({ name: "Ada", email: null, image: "https://www.bungie.net/img/profile/avatars/bungieday_27.jpg" })
    const token = bungie.log.find((r) => r.path === "/Platform/App/OAuth/token/")!
    expect(token.method).toBe("POST")
    expect(token.headers.authorization).toMatch(/^Basic /)
    const account = bungie.log.find((r) => r.path.startsWith("/Platform/User/"))!
    expect(account.path).toBe(`/Platform/User/GetBungieAccount/${guardian.membershipId}/254/`)
    expect(account.method).toBe("GET")
    expect(account.headers["x-api-key"]).toBe(bungie.apiKey)
    expect(account.headers.authorization).toMatch(/^Bearer CK/)

    const user = await adapter.getUserByAccount!({ provider: "bungie", providerAccountId: guardian.membershipId })
    expect(user).toMatchObject({ name: "Ada" })
    expect(await adapter.getAccount!(guardian.membershipId, "bungie")).toMatchObject({ type: "oauth", token_type: "bearer" })
  })

  it("a wrong API key (ErrorCode 2101) fails the sign-in: OAuthCallbackError, no session", async () => {
    const browser = new Browser(direct({ secret: SECRET, trustHost: true, providers: [provider({ apiKey: "not-the-key" })] }))
    const response = await signInThrough(browser, "bungie")
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/signin?error=OAuthCallbackError")
    expect(await browser.session()).toBeNull()
    expect(bungie.log.find((r) => r.path.startsWith("/Platform/User/"))!.headers["x-api-key"]).toBe("not-the-key")
  })
})

// ---------------------------------------------------------------------------------------
// Forward Email: the sender against a local stand-in of its API.

describe("forwardemail (sender, against a local stand-in for api.forwardemail.net)", () => {
  interface Captured { url: string; path: string; method: string; headers: IncomingHttpHeaders; body: any }
  const requests: Captured[] = []
  const pending: string[] = []
  let status = 200
  let server: Server
  let origin = ""
  // Reroutes any https URL to the stand-in, remembering the original.
  const reroute = (async (input: string | URL | Request, init?: RequestInit) => {
    const target = new URL(input instanceof Request ? input.url : input)
    pending.push(target.href)
    return fetch(`${origin}${target.pathname}`, init)
  }) as typeof fetch

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        requests.push({ url: pending.shift()!, path: req.url!, method: req.method!, headers: req.headers, body: text ? JSON.parse(text) : undefined })
        const auth = req.headers.authorization ?? ""
        const [user] = Buffer.from(auth.replace(/^Basic /, ""), "base64").toString().split(":")
        if (!auth.startsWith("Basic ") || !user) {
          res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ statusCode: 401, error: "Unauthorized", message: "Invalid API token." }))
          return
        }
        res.writeHead(status, { "content-type": "application/json" })
        res.end(JSON.stringify(status === 200 ? { id: "6505df0d5e0e6b2f9b1a8f9a", object: "email", status: "queued" } : { statusCode: status, error: "Bad Request", message: "Domain is not verified." }))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
  afterEach(() => {
    status = 200
    vi.unstubAllEnvs()
  })

  function configFor(apiKey?: string) {
    const log = captureLogger()
    const config: AuthConfig = {
      secret: SECRET, trustHost: true, adapter: MemoryAdapter(), logger: log.logger, [customFetch]: reroute,
      providers: [ForwardEmail({ from: "Example <no-reply@example.com>", ...(apiKey && { apiKey }) })],
    }
    return { browser: newBrowser(direct(config)), log }
  }

  it("is an email provider named Forward Email", () => {
    expect(ForwardEmail()).toMatchObject({ id: "forwardemail", name: "Forward Email", type: "email" })
  })

  it("POSTs /v1/emails with Basic auth (token as user, empty password) and JSON; the mailed link signs in", async () => {
    const { browser } = configFor("fe_token_123")
    const before = requests.length
    const sent = await requestLink(browser, "Fe.User@Example.com", {}, "forwardemail")
    expect(sent.headers.get("location")).toBe("http://localhost:3000/auth/verify-request?provider=forwardemail&type=email")
    expect(requests).toHaveLength(before + 1)
    const request = requests.at(-1)!
    expect(request).toMatchObject({ url: "https://api.forwardemail.net/v1/emails", method: "POST" })
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from("fe_token_123:").toString("base64")}`)
    expect(request.headers["content-type"]).toBe("application/json")
    expect(request.body).toMatchObject({ from: "Example <no-reply@example.com>", to: "fe.user@example.com", subject: "Sign in to localhost:3000" })
    expect(request.body.html).toContain("Sign in</a>")
    await openLink(browser, extractLink(request.body.text))
    expect((await browser.session()).user.email).toBe("fe.user@example.com")
  })

  it("reads the token from AUTH_FORWARDEMAIL_KEY; without one nothing is sent (EmailSignin)", async () => {
    vi.stubEnv("AUTH_FORWARDEMAIL_KEY", "fe_from_env")
    await requestLink(configFor().browser, "env@example.com", {}, "forwardemail")
    expect(requests.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from("fe_from_env:").toString("base64")}`)
    vi.unstubAllEnvs()
    const before = requests.length
    const { browser, log } = configFor()
    expect(redirectOf(await requestLink(browser, "nokey@example.com", {}, "forwardemail"))).toMatchObject({ path: "/auth/signin", error: "EmailSignin" })
    expect(requests).toHaveLength(before)
    expect(log.lines.join("\n")).toContain("AUTH_FORWARDEMAIL_KEY")
  })

  it("a non-2xx answer is EmailSignin", async () => {
    status = 400
    const { browser, log } = configFor("fe_token_123")
    expect(redirectOf(await requestLink(browser, "fail@example.com", {}, "forwardemail"))).toMatchObject({ path: "/auth/signin", error: "EmailSignin" })
    expect(log.lines.join("\n")).toContain("Forward Email answered 400")
  })
})
