/**
 * Provider presets of group prov-c: osso, osu, passage, ping-id, pinterest, pipedrive, roblox,
 * salesforce, simplelogin, threads, tiktok, todoist, trakt, united-effects, vipps, vk, webex,
 * wechat, wikimedia, wordpress, yandex, zoho.
 *
 * The real SaaS APIs cannot be reached from the test environment, so:
 * - custom `token.request` / `userinfo.request` / `token.conform` functions run against a fake
 *   `fetch` serving canned answers shaped like each provider's documented response; it
 *   checks the URL, method and headers of each request, and the global `fetch` is stubbed to
 *   fail, so a preset that bypasses the context's fetch (and the app's `customFetch`) is caught;
 * - WeChat, TikTok and VK (the non-standard flows) are also driven through `Auth()` from the
 *   sign-in start to a session against loopback servers that stand in for the provider
 *   (`prov-c-fixtures/servers.ts`).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import Osso from "@portcullis/core/providers/osso"
import Osu from "@portcullis/core/providers/osu"
import Passage from "@portcullis/core/providers/passage"
import PingId from "@portcullis/core/providers/ping-id"
import Pinterest from "@portcullis/core/providers/pinterest"
import Pipedrive from "@portcullis/core/providers/pipedrive"
import Roblox from "@portcullis/core/providers/roblox"
import Salesforce from "@portcullis/core/providers/salesforce"
import SimpleLogin from "@portcullis/core/providers/simplelogin"
import Threads from "@portcullis/core/providers/threads"
import TikTok from "@portcullis/core/providers/tiktok"
import Todoist from "@portcullis/core/providers/todoist"
import Trakt from "@portcullis/core/providers/trakt"
import UnitedEffects from "@portcullis/core/providers/united-effects"
import Vipps from "@portcullis/core/providers/vipps"
import VK from "@portcullis/core/providers/vk"
import Webex from "@portcullis/core/providers/webex"
import WeChat from "@portcullis/core/providers/wechat"
import Wikimedia from "@portcullis/core/providers/wikimedia"
import WordPress from "@portcullis/core/providers/wordpress"
import Yandex from "@portcullis/core/providers/yandex"
import Zoho from "@portcullis/core/providers/zoho"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, direct, SECRET } from "../helpers.js"
import { checkCookies, location, signInThrough, startSignIn } from "../oauth/flow.js"
import { startTikTokServer, startVkServer, startWeChatServer, tiktokUser, vkUser, wechatUser, type ProviderServer } from "./prov-c-fixtures/servers.js"

type AnyConfig = OAuthConfig<any>
type Mapped = { id: string; name: string | null; email: string | null; image: string | null }

const TOKEN = "at-0123456789"

// ---------------------------------------------------------------------------------------
// Helpers

interface Shape {
  id: string
  name: string
  type: "oauth" | "oidc"
  /** OIDC: the default issuer; `null` when the user must give one. */
  issuer?: string | null
  /** OAuth: the three endpoints, as configured. */
  endpoints?: { authorization: string; token: string; userinfo: string }
  scope?: string
  checks?: string[]
  auth?: "client_secret_post" | "client_secret_basic"
}

/** The URL of a configured endpoint (string or `{ url }`). */
function urlOf(endpoint: unknown): string | undefined {
  if (typeof endpoint === "string") return endpoint
  return (endpoint as { url?: string } | undefined)?.url
}

function scopeOf(config: AnyConfig): string | undefined {
  const a = config.authorization
  if (!a) return undefined
  if (typeof a === "string") return new URL(a).searchParams.get("scope") ?? undefined
  return (a.params?.scope as string | undefined) ?? (a.url ? (new URL(a.url).searchParams.get("scope") ?? undefined) : undefined)
}

/** The checks every preset must pass: id, kind, options kept, https endpoints, scope, style. */
function itHasTheShape(factory: (o?: any) => AnyConfig, shape: Shape, required: Record<string, unknown> = {}) {
  it("has its id, name and kind, and keeps the user's options for the core to merge", () => {
    const options = { clientId: "id", clientSecret: "secret", ...required }
    const config = factory(options)
    expect(config.id).toBe(shape.id)
    expect(config.name).toBe(shape.name)
    expect(config.type).toBe(shape.type)
    expect(config.options).toBe(options)
    expect(config.clientId).toBeUndefined()
    expect(config.clientSecret).toBeUndefined()
    expect(factory().options).toEqual({})
  })

  it("points at the documented endpoints, over https", () => {
    const config = factory({ clientId: "id", ...required })
    if (shape.type === "oidc") {
      if (shape.issuer === null) expect(config.issuer).toBeUndefined()
      else expect(config.issuer).toBe(shape.issuer)
      for (const e of [config.authorization, config.token, config.userinfo]) expect(urlOf(e)).toBeUndefined()
      return
    }
    const got = { authorization: urlOf(config.authorization), token: urlOf(config.token), userinfo: urlOf(config.userinfo) }
    expect(got).toEqual(shape.endpoints)
    for (const u of Object.values(got)) expect(new URL(u!).protocol).toBe("https:")
  })

  it("asks for the scopes, checks and client authentication Auth.js users expect", () => {
    const config = factory({ clientId: "id", ...required })
    expect(scopeOf(config)).toBe(shape.scope)
    expect(config.checks).toEqual(shape.checks)
    expect(config.client?.token_endpoint_auth_method).toBe(shape.auth)
  })

  it("has a sign-in button style", () => {
    const config = factory({ ...required })
    expect(config.style?.bg).toMatch(/^#/)
    expect(config.style?.text).toMatch(/^#/)
  })
}

async function mapped(config: AnyConfig, sample: unknown, tokens: Record<string, unknown> = {}): Promise<Mapped> {
  const user = (await config.profile!(structuredClone(sample), tokens)) as Mapped
  expect(typeof user.id).toBe("string")
  return user
}

type Route = unknown | ((init: RequestInit | undefined, url: URL) => Response)

/** A fetch serving canned JSON by exact URL (404 otherwise), recording each call. */
function fakeApi(routes: Record<string, Route>) {
  const calls: Array<{ url: string; method: string; headers: Headers; body: string | undefined }> = []
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input)
    calls.push({ url, method: init?.method ?? "GET", headers: new Headers(init?.headers), body: init?.body === undefined ? undefined : String(init.body) })
    if (!(url in routes)) return Response.json({ message: "Not Found" }, { status: 404 })
    const route = routes[url]
    return typeof route === "function" ? (route as (i: RequestInit | undefined, u: URL) => Response)(init, new URL(url)) : Response.json(route)
  }) as typeof globalThis.fetch
  return { fetch, calls }
}

/** The provider as the core hands it to custom requests (`OAuthConfigInternal`). */
function internal(config: AnyConfig, extra: Record<string | symbol, unknown> = {}) {
  const merged = { ...config, ...(config.options ?? {}), ...extra } as any
  const token = typeof merged.token === "object" ? merged.token : {}
  const userinfo = typeof merged.userinfo === "object" ? merged.userinfo : {}
  return {
    ...merged,
    token: { ...token, url: urlOf(merged.token) ? new URL(urlOf(merged.token)!) : undefined },
    userinfo: { ...userinfo, url: urlOf(merged.userinfo) ? new URL(urlOf(merged.userinfo)!) : undefined },
    callbackUrl: `https://app.example/auth/callback/${config.id}`,
    signinUrl: `https://app.example/auth/signin/${config.id}`,
    checks: merged.checks ?? ["pkce", "state"],
  }
}

async function fetchProfile(config: AnyConfig, fetch: typeof globalThis.fetch, tokens: Record<string, unknown> = {}) {
  const userinfo = config.userinfo
  if (typeof userinfo !== "object" || !userinfo.request) throw new Error(`${config.id} has no custom userinfo request`)
  return userinfo.request({ provider: internal(config), tokens: { access_token: TOKEN, token_type: "bearer", ...tokens }, fetch })
}

/** Runs a custom token request as core does: with the provider's fetch and the redirect_uri sent. */
async function exchange(config: AnyConfig, context: { fetch: typeof globalThis.fetch; code?: string; verifier?: string }) {
  const token = config.token
  if (typeof token !== "object" || !token.request) throw new Error(`${config.id} has no custom token request`)
  const provider = internal(config, {})
  const params = new URLSearchParams({ code: context.code ?? "the-code", state: "s" })
  const ctx = { provider, params, checks: { code_verifier: context.verifier, state: "s" }, fetch: context.fetch, redirectUri: provider.callbackUrl }
  return token.request(ctx as any)
}

async function conform(config: AnyConfig, body: unknown, status = 200): Promise<Record<string, unknown>> {
  const token = config.token
  if (typeof token !== "object" || !token.conform) throw new Error(`${config.id} has no token.conform`)
  const original = Response.json(body, { status })
  const out = (await token.conform(original.clone())) ?? original
  expect(out.status).toBe(status)
  return (await out.json()) as Record<string, unknown>
}

// Custom requests must use the fetch they are given; the global one is off-limits here.
beforeEach(() => {
  vi.stubGlobal("fetch", () => {
    throw new Error("a preset used the global fetch instead of the context's fetch")
  })
})
afterEach(() => {
  vi.unstubAllGlobals()
})

// ---------------------------------------------------------------------------------------
// OpenID Connect presets: discovery, profile from the ID token claims

describe("ping-id", () => {
  itHasTheShape(PingId, { id: "ping-id", name: "Ping Identity", type: "oidc", issuer: null }, { issuer: "https://auth.pingone.com/9a4b2c3d-1e2f-4a5b-8c7d-6e5f4a3b2c1d/as" })
  it("maps the PingOne ID token claims", async () => {
    const claims = { iss: "https://auth.pingone.com/9a4b2c3d-1e2f-4a5b-8c7d-6e5f4a3b2c1d/as", sub: "3c6a5a4e-9b7d-4f3e-8a2b-1c0d9e8f7a6b", aud: "client", iat: 1700000000, exp: 1700003600, preferred_username: "ada", given_name: "Ada", family_name: "Lovelace", name: "Ada Lovelace", email: "ada@example.com", env: "9a4b2c3d-1e2f-4a5b-8c7d-6e5f4a3b2c1d", org: "b1c2", "p1.region": "NA" }
    expect(await mapped(PingId(), claims)).toEqual({ id: "3c6a5a4e-9b7d-4f3e-8a2b-1c0d9e8f7a6b", name: "Ada Lovelace", email: "ada@example.com", image: null })
  })
})

describe("passage", () => {
  itHasTheShape(Passage, { id: "passage", name: "Passage", type: "oidc", issuer: null, auth: "client_secret_basic" }, { issuer: "https://my-app-id.withpassage.com" })
  it("maps the Passage ID token claims: email only", async () => {
    const claims = { iss: "https://my-app-id.withpassage.com", sub: "5zMqJ4cJ3Qh2bF8JkzW7zY", aud: ["client"], exp: 1700003600, iat: 1700000000, email: "ada@example.com", email_verified: true }
    expect(await mapped(Passage(), claims)).toEqual({ id: "5zMqJ4cJ3Qh2bF8JkzW7zY", name: null, email: "ada@example.com", image: null })
  })
})

describe("united-effects", () => {
  const issuer = "https://auth.unitedeffects.com/k3vNj2Q"
  itHasTheShape(UnitedEffects, { id: "united-effects", name: "United Effects", type: "oidc", issuer: null, scope: "openid email profile" }, { issuer })
  it("sends the issuer as the resource indicator", () => {
    const a = UnitedEffects({ issuer }).authorization as { params: Record<string, unknown> }
    expect(a.params).toEqual({ scope: "openid email profile", resource: issuer })
    expect((UnitedEffects().authorization as { params: Record<string, unknown> }).params).toEqual({ scope: "openid email profile" })
  })
  it("maps the claims: email only", async () => {
    expect(await mapped(UnitedEffects(), { sub: "e2b1c4d6-7a8b-4c9d-a0e1-f2a3b4c5d6e7", email: "ada@example.com", email_verified: true })).toEqual({ id: "e2b1c4d6-7a8b-4c9d-a0e1-f2a3b4c5d6e7", name: null, email: "ada@example.com", image: null })
  })
})

describe("roblox", () => {
  itHasTheShape(Roblox, { id: "roblox", name: "Roblox", type: "oidc", issuer: "https://apis.roblox.com/oauth/", scope: "openid profile", checks: ["pkce", "state"] })
  it("maps the documented profile claims; no email", async () => {
    const claims = { sub: "1516563360", name: "exampleuser", nickname: "exampleuser", preferred_username: "exampleuser", created_at: 1584682495, profile: "https://www.roblox.com/users/1516563360/profile", picture: "https://tr.rbxcdn.com/30DAY-AvatarHeadshot-310966282D3529E36976BF6B07B1DC90-Png/150/150/AvatarHeadshot/Png/noFilter" }
    expect(await mapped(Roblox(), claims)).toEqual({ id: "1516563360", name: "exampleuser", email: null, image: claims.picture })
    expect((await mapped(Roblox(), { ...claims, picture: null })).image).toBeNull()
  })
})

describe("salesforce", () => {
  itHasTheShape(Salesforce, { id: "salesforce", name: "Salesforce", type: "oidc", issuer: "https://login.salesforce.com" })
  it("maps the ID token claims; id is the identity URL", async () => {
    const claims = { sub: "https://login.salesforce.com/id/00Dx0000000A9y0EAC/005x0000000UnYmAAK", nickname: "ada", name: "Ada Lovelace", email: "ada@example.com", email_verified: true, picture: "https://example.my.salesforce.com/profilephoto/005/F", preferred_username: "ada@example.com.org" }
    expect(await mapped(Salesforce(), claims)).toEqual({ id: claims.sub, name: "ada", email: "ada@example.com", image: claims.picture })
  })
  it("a sandbox is an issuer override", () => {
    expect(Salesforce({ issuer: "https://test.salesforce.com" }).options?.issuer).toBe("https://test.salesforce.com")
  })
})

describe("simplelogin", () => {
  itHasTheShape(SimpleLogin, { id: "simplelogin", name: "SimpleLogin", type: "oidc", issuer: "https://app.simplelogin.io" })
  it("maps the documented user: avatar_url is the image, the email may be an alias", async () => {
    const user = { sub: "1", client: "Continental", email: "john.wick@continental.com", email_verified: true, name: "John Wick", avatar_url: "https://app.simplelogin.io/avatar/1.png" }
    expect(await mapped(SimpleLogin(), user)).toEqual({ id: "1", name: "John Wick", email: "john.wick@continental.com", image: "https://app.simplelogin.io/avatar/1.png" })
    expect((await mapped(SimpleLogin(), { ...user, avatar_url: null })).image).toBeNull()
  })
})

describe("vipps", () => {
  itHasTheShape(Vipps, { id: "vipps", name: "Vipps", type: "oidc", issuer: "https://api.vipps.no/access-management-1.0/access/", scope: "openid name email" })
  it("reads the profile from userinfo (the ID token only has sub)", () => {
    expect(Vipps().idToken).toBe(false)
  })
  it("maps the documented userinfo", async () => {
    const info = { sub: "c06c4afe-d9e1-4c5d-939a-177d752a0944", sid: "7d78a726-af92-499e-b857-de263ef9a969", name: "Ada Lovelace", given_name: "Ada", family_name: "Lovelace", email: "ada@example.com", email_verified: true, phone_number: "4712345678" }
    expect(await mapped(Vipps(), info)).toEqual({ id: "c06c4afe-d9e1-4c5d-939a-177d752a0944", name: "Ada Lovelace", email: "ada@example.com", image: null })
  })
})

// ---------------------------------------------------------------------------------------
// OAuth 2 presets with standard endpoints

describe("osso", () => {
  const issuer = "https://osso.example.com/"
  itHasTheShape(Osso, { id: "osso", name: "Osso", type: "oauth", endpoints: { authorization: "https://osso.example.com/oauth/authorize", token: "https://osso.example.com/oauth/token", userinfo: "https://osso.example.com/oauth/me" } }, { issuer })
  it("builds the endpoints with or without the issuer's trailing slash; none without an issuer", () => {
    expect(Osso({ issuer: "https://osso.example.com" }).token).toBe("https://osso.example.com/oauth/token")
    const saved = process.env.AUTH_OSSO_ISSUER
    delete process.env.AUTH_OSSO_ISSUER
    try {
      expect(Osso().authorization).toBeUndefined()
      process.env.AUTH_OSSO_ISSUER = "https://sso.example.org/"
      expect(Osso().userinfo).toBe("https://sso.example.org/oauth/me")
    } finally {
      if (saved === undefined) delete process.env.AUTH_OSSO_ISSUER
      else process.env.AUTH_OSSO_ISSUER = saved
    }
  })
  it("maps /oauth/me", async () => {
    const me = { email: "ada@acme.com", id: "8a3f5c2e-6b1d-4e9f-a7c0-3d2b1e0f9a8c", idp: "Okta", requested: { domain: "acme.com", email: null } }
    expect(await mapped(Osso({ issuer }), me)).toEqual({ id: "8a3f5c2e-6b1d-4e9f-a7c0-3d2b1e0f9a8c", name: null, email: "ada@acme.com", image: null })
  })
})

describe("osu", () => {
  itHasTheShape(Osu, { id: "osu", name: "Osu!", type: "oauth", scope: "identify", endpoints: { authorization: "https://osu.ppy.sh/oauth/authorize", token: "https://osu.ppy.sh/oauth/token", userinfo: "https://osu.ppy.sh/api/v2/me" } })
  it("maps /api/v2/me; no email", async () => {
    const me = { avatar_url: "https://a.ppy.sh/2?1519081077.png", country_code: "AU", default_group: "default", id: 2, is_active: true, is_bot: false, is_online: false, is_supporter: true, username: "peppy", playmode: "osu" }
    expect(await mapped(Osu(), me)).toEqual({ id: "2", name: "peppy", email: null, image: "https://a.ppy.sh/2?1519081077.png" })
  })
})

describe("pinterest", () => {
  itHasTheShape(Pinterest, { id: "pinterest", name: "Pinterest", type: "oauth", scope: "user_accounts:read", checks: ["state"], endpoints: { authorization: "https://www.pinterest.com/oauth", token: "https://api.pinterest.com/v5/oauth/token", userinfo: "https://api.pinterest.com/v5/user_account" } })
  it("maps /v5/user_account with the username as id, as Auth.js", async () => {
    const account = { account_type: "PINNER", id: "549755885175", profile_image: "https://i.pinimg.com/280x280_RS/42/03/a5/4203a5.jpg", website_url: "https://www.pinterest.com", username: "pinterest", board_count: 12, pin_count: 300, follower_count: 10, following_count: 5, monthly_views: 0 }
    expect(await mapped(Pinterest(), account)).toEqual({ id: "pinterest", name: "pinterest", email: null, image: "https://i.pinimg.com/280x280_RS/42/03/a5/4203a5.jpg" })
  })
})

describe("pipedrive", () => {
  itHasTheShape(Pipedrive, { id: "pipedrive", name: "Pipedrive", type: "oauth", auth: "client_secret_basic", endpoints: { authorization: "https://oauth.pipedrive.com/oauth/authorize", token: "https://oauth.pipedrive.com/oauth/token", userinfo: "https://api.pipedrive.com/v1/users/me" } })
  it("maps data of /v1/users/me", async () => {
    const me = { success: true, data: { id: 123, name: "Ada Lovelace", default_currency: "EUR", locale: "et_EE", lang: 1, email: "ada@example.com", phone: null, activated: true, is_admin: 1, active_flag: true, timezone_name: "Europe/Tallinn", icon_url: "https://pipedrive-profile-pics.s3.example.com/abc_128_x_128.jpg", company_id: 456, company_name: "Acme", company_domain: "acme" } }
    expect(await mapped(Pipedrive(), me)).toEqual({ id: "123", name: "Ada Lovelace", email: "ada@example.com", image: "https://pipedrive-profile-pics.s3.example.com/abc_128_x_128.jpg" })
  })
})

describe("todoist", () => {
  itHasTheShape(Todoist, { id: "todoist", name: "Todoist", type: "oauth", scope: "data:read", auth: "client_secret_post", endpoints: { authorization: "https://todoist.com/oauth/authorize", token: "https://todoist.com/oauth/access_token", userinfo: "https://api.todoist.com/api/v1/user" } })
  it("maps /api/v1/user", async () => {
    const user = { id: "2671355", email: "ada@example.com", full_name: "Ada Lovelace", avatar_big: "https://dcff1xvirvpfp.cloudfront.net/abc_big.jpg", avatar_medium: "https://dcff1xvirvpfp.cloudfront.net/abc_medium.jpg", lang: "en", is_premium: true, tz_info: { timezone: "Europe/London", gmt_string: "+00:00", hours: 0, minutes: 0, is_dst: 0 } }
    expect(await mapped(Todoist(), user)).toEqual({ id: "2671355", name: "Ada Lovelace", email: "ada@example.com", image: "https://dcff1xvirvpfp.cloudfront.net/abc_big.jpg" })
    expect((await mapped(Todoist(), { id: "1", email: "x@example.com", full_name: "X" })).image).toBeNull()
  })
})

describe("webex", () => {
  itHasTheShape(Webex, { id: "webex", name: "Webex", type: "oauth", scope: "spark:kms spark:people_read", auth: "client_secret_post", endpoints: { authorization: "https://webexapis.com/v1/authorize", token: "https://webexapis.com/v1/access_token", userinfo: "https://webexapis.com/v1/people/me" } })
  it("apiBaseUrl moves every endpoint", () => {
    const config = Webex({ apiBaseUrl: "https://api-usgov.webex.com/v1/" })
    expect([urlOf(config.authorization), urlOf(config.token), urlOf(config.userinfo)]).toEqual(["https://api-usgov.webex.com/v1/authorize", "https://api-usgov.webex.com/v1/access_token", "https://api-usgov.webex.com/v1/people/me"])
  })
  it("maps /people/me: the first email", async () => {
    const me = { id: "Y2lzY29zcGFyazovL3VzL1BFT1BMRS9mNWIzNjE4Ny1jOGRkLTQ3MjctOGIyZi1mOWM0NDdmMjkwNDY", emails: ["john.andersen@example.com", "j.andersen@example.com"], displayName: "John Andersen", nickName: "John", firstName: "John", lastName: "Andersen", avatar: "https://1efa7a94ed21783e352-c62266528714497a17239ececf39e9e2.ssl.cf1.rackcdn.com/V1~54c844c89e678e5a7b16a81c2f0a5e40", orgId: "Y2lzY29zcGFyazovL3VzL09SR0FOSVpBVElPTi85NmFiYzJhYS0zZGNjLTExZTUtYTE1Mi1mZTM0ODE5Y2RjOWE", type: "person" }
    expect(await mapped(Webex(), me)).toEqual({ id: me.id, name: "John Andersen", email: "john.andersen@example.com", image: me.avatar })
  })
})

describe("wikimedia", () => {
  itHasTheShape(Wikimedia, { id: "wikimedia", name: "Wikimedia", type: "oauth", scope: "#default", endpoints: { authorization: "https://meta.wikimedia.org/w/rest.php/oauth2/authorize", token: "https://meta.wikimedia.org/w/rest.php/oauth2/access_token", userinfo: "https://meta.wikimedia.org/w/rest.php/oauth2/resource/profile" } })
  it("maps the profile resource: username as name, email only with the grant", async () => {
    const profile = { sub: 12345678, username: "Ada Lovelace", editcount: 42, confirmed_email: true, blocked: false, registered: "20200101000000", groups: ["*", "user", "autoconfirmed"], rights: ["read", "edit"], grants: ["mwoauth-authonlyprivate"], realname: "Ada King", email: "ada@example.com" }
    expect(await mapped(Wikimedia(), profile)).toEqual({ id: "12345678", name: "Ada Lovelace", email: "ada@example.com", image: null })
    const { email: _e, realname: _r, ...noEmail } = profile
    expect((await mapped(Wikimedia(), { ...noEmail, grants: ["mwoauth-authonly"] })).email).toBeNull()
  })
})

describe("wordpress", () => {
  itHasTheShape(WordPress, { id: "wordpress", name: "WordPress.com", type: "oauth", scope: "auth", auth: "client_secret_post", endpoints: { authorization: "https://public-api.wordpress.com/oauth2/authorize", token: "https://public-api.wordpress.com/oauth2/token", userinfo: "https://public-api.wordpress.com/rest/v1/me" } })
  it("maps /rest/v1/me", async () => {
    const me = { ID: 18342963, display_name: "Ada Lovelace", username: "adalovelace", email: "ada@example.com", primary_blog: 1234, language: "en", avatar_URL: "https://0.gravatar.com/avatar/abc?s=96&d=identicon", profile_URL: "https://gravatar.com/adalovelace", verified: true, email_verified: true }
    expect(await mapped(WordPress(), me)).toEqual({ id: "18342963", name: "Ada Lovelace", email: "ada@example.com", image: "https://0.gravatar.com/avatar/abc?s=96&d=identicon" })
  })
})

// ---------------------------------------------------------------------------------------
// OAuth 2 presets with a non-standard token answer or profile request

describe("threads", () => {
  itHasTheShape(Threads, { id: "threads", name: "Threads", type: "oauth", scope: "threads_basic", checks: ["state"], auth: "client_secret_post", endpoints: { authorization: "https://threads.net/oauth/authorize", token: "https://graph.threads.net/oauth/access_token", userinfo: "https://graph.threads.net/v1.0/me?fields=id,username,name,threads_profile_picture_url" } })
  it("token.conform adds the token_type Threads leaves out, and leaves errors alone", async () => {
    expect(await conform(Threads(), { access_token: "THQVJ...", user_id: 25032400289730 })).toEqual({ access_token: "THQVJ...", user_id: 25032400289730, token_type: "bearer" })
    const error = { error: { message: "Invalid verification code format.", type: "OAuthException", code: 100 } }
    expect(await conform(Threads(), error, 400)).toEqual(error)
  })
  it("maps /me: username as name, no email", async () => {
    const me = { id: "1234567", username: "threadsapitestuser", name: "Threads API Test User", threads_profile_picture_url: "https://scontent-sjc3-1.cdninstagram.com/link/to/profile/picture/on/threads/", threads_biography: "" }
    expect(await mapped(Threads(), me)).toEqual({ id: "1234567", name: "threadsapitestuser", email: null, image: "https://scontent-sjc3-1.cdninstagram.com/link/to/profile/picture/on/threads/" })
  })
})

describe("trakt", () => {
  const ME = "https://api.trakt.tv/users/me?extended=full"
  itHasTheShape(Trakt, { id: "trakt", name: "Trakt", type: "oauth", scope: "public", endpoints: { authorization: "https://trakt.tv/oauth/authorize", token: "https://api.trakt.tv/oauth/token", userinfo: ME } })
  const me = { username: "sean", private: false, name: "Sean Rudford", vip: true, vip_ep: false, ids: { slug: "sean" }, joined_at: "2010-09-25T17:49:25.000Z", location: "SF", about: "I have all your cassette tapes.", gender: "male", age: 35, images: { avatar: { full: "https://walter-r2.trakt.tv/images/users/000/000/001/avatars/large/cf2a7ea9d3.jpg" } } }
  it("reads /users/me with the trakt-api-key and trakt-api-version headers", async () => {
    const api = fakeApi({ [ME]: me })
    const profile = await fetchProfile(Trakt({ clientId: "trakt-client-id" }), api.fetch)
    expect(profile).toEqual(me)
    expect(api.calls).toHaveLength(1)
    const [call] = api.calls
    expect(call!.method).toBe("GET")
    expect(call!.headers.get("authorization")).toBe(`Bearer ${TOKEN}`)
    expect(call!.headers.get("trakt-api-key")).toBe("trakt-client-id")
    expect(call!.headers.get("trakt-api-version")).toBe("2")
  })
  it("a failing /users/me is an error", async () => {
    await expect(fetchProfile(Trakt({ clientId: "x" }), fakeApi({}).fetch)).rejects.toThrow(/404/)
  })
  it("maps the user with the slug as id; staging moves the endpoints", async () => {
    expect(await mapped(Trakt(), me)).toEqual({ id: "sean", name: "Sean Rudford", email: null, image: me.images.avatar.full })
    expect(await mapped(Trakt(), { ...me, name: null, images: undefined })).toEqual({ id: "sean", name: "sean", email: null, image: null })
    const staging = Trakt({ baseUrl: "https://staging.trakt.tv", apiUrl: "https://api-staging.trakt.tv" })
    expect([urlOf(staging.authorization), urlOf(staging.token), urlOf(staging.userinfo)]).toEqual(["https://staging.trakt.tv/oauth/authorize", "https://api-staging.trakt.tv/oauth/token", "https://api-staging.trakt.tv/users/me?extended=full"])
  })
})

describe("yandex", () => {
  const INFO = "https://login.yandex.ru/info?format=json"
  itHasTheShape(Yandex, { id: "yandex", name: "Yandex", type: "oauth", scope: "login:info login:email login:avatar", endpoints: { authorization: "https://oauth.yandex.ru/authorize", token: "https://oauth.yandex.ru/token", userinfo: INFO } })
  const info = { login: "vasya", old_social_login: "uid-mmzxrnry", default_email: "test@yandex.ru", id: "1000034426", client_id: "4760187d81bc4b7799476b42b5103713", emails: ["test@yandex.ru", "other-test@yandex.ru"], psuid: "1.AAceCw.tbHgw5DtJ9_zeqPrk-Ba2w.qPWSRC5v2t2IaksPJgnge", is_avatar_empty: false, default_avatar_id: "131652443", first_name: "Vasya", last_name: "Pupkin", display_name: "Vasya", real_name: "Vasya Pupkin", sex: "male" }
  it("reads /info with the documented `Authorization: OAuth` scheme", async () => {
    const api = fakeApi({ [INFO]: info })
    expect(await fetchProfile(Yandex(), api.fetch)).toEqual(info)
    expect(api.calls.map((c) => [c.method, c.url, c.headers.get("authorization")])).toEqual([["GET", INFO, `OAuth ${TOKEN}`]])
  })
  it("maps the profile: display name, default email, the islands-200 avatar", async () => {
    expect(await mapped(Yandex(), info)).toEqual({ id: "1000034426", name: "Vasya", email: "test@yandex.ru", image: "https://avatars.yandex.net/get-yapic/131652443/islands-200" })
    expect(await mapped(Yandex(), { id: "1", login: "anon", client_id: "c", psuid: "p", is_avatar_empty: true, default_avatar_id: "0/0-0" })).toEqual({ id: "1", name: "anon", email: null, image: null })
  })
})

describe("zoho", () => {
  const INFO = "https://accounts.zoho.com/oauth/user/info"
  itHasTheShape(Zoho, { id: "zoho", name: "Zoho", type: "oauth", scope: "AaaServer.profile.Read", auth: "client_secret_post", endpoints: { authorization: "https://accounts.zoho.com/oauth/v2/auth", token: "https://accounts.zoho.com/oauth/v2/token", userinfo: INFO } })
  const info = { First_Name: "Ada", Email: "ada@example.com", Last_Name: "Lovelace", Display_Name: "ada.lovelace", ZUID: 60012345678 }
  it("reads /oauth/user/info with Zoho's `Zoho-oauthtoken` scheme", async () => {
    const api = fakeApi({ [INFO]: info })
    expect(await fetchProfile(Zoho(), api.fetch)).toEqual(info)
    expect(api.calls.map((c) => [c.method, c.url, c.headers.get("authorization")])).toEqual([["GET", INFO, `Zoho-oauthtoken ${TOKEN}`]])
  })
  it("follows an overridden userinfo URL (another data center)", async () => {
    const eu = "https://accounts.zoho.eu/oauth/user/info"
    const api = fakeApi({ [eu]: info })
    expect(await fetchProfile(Zoho({ userinfo: { url: eu } }), api.fetch)).toEqual(info)
    expect(api.calls.map((c) => c.url)).toEqual([eu])
  })
  it("maps the user: ZUID as a string id, first and last name", async () => {
    expect(await mapped(Zoho(), info)).toEqual({ id: "60012345678", name: "Ada Lovelace", email: "ada@example.com", image: null })
  })
})

// ---------------------------------------------------------------------------------------
// FLOW providers: unit tests of the custom requests, then a full sign-in against a
// provider-shaped loopback server

/** A config with one provider, for the flow tests. */
function flowConfig(provider: AnyConfig, extra: Partial<AuthConfig> = {}): AuthConfig {
  return { secret: SECRET, trustHost: true, providers: [provider], ...extra }
}

describe("wechat", () => {
  const TOKEN_URL = "https://api.weixin.qq.com/sns/oauth2/access_token"
  const USERINFO = "https://api.weixin.qq.com/sns/userinfo"
  itHasTheShape(WeChat, { id: "wechat", name: "WeChat", type: "oauth", scope: "snsapi_userinfo", checks: ["state"], endpoints: { authorization: "https://open.weixin.qq.com/connect/oauth2/authorize#wechat_redirect", token: TOKEN_URL, userinfo: USERINFO } })

  it("puts the AppID in `appid`; WebsiteApp uses the QR code page and snsapi_login", () => {
    const website = WeChat({ clientId: "wx520c15f417810387", platformType: "WebsiteApp" })
    expect(website.authorization).toEqual({ url: "https://open.weixin.qq.com/connect/qrconnect#wechat_redirect", params: { appid: "wx520c15f417810387", scope: "snsapi_login" } })
    const saved = process.env.AUTH_WECHAT_ID
    process.env.AUTH_WECHAT_ID = "wx-from-env"
    try {
      expect((WeChat().authorization as { params: Record<string, unknown> }).params.appid).toBe("wx-from-env")
    } finally {
      if (saved === undefined) delete process.env.AUTH_WECHAT_ID
      else process.env.AUTH_WECHAT_ID = saved
    }
  })

  const tokenAnswer = { access_token: "ACCESS_TOKEN", expires_in: 7200, refresh_token: "REFRESH_TOKEN", openid: "OPENID", scope: "snsapi_userinfo", unionid: "o6_bmasdasdsad6_2sgVt7hMZOPfL" }
  const tokenRoute = (init: RequestInit | undefined, url: URL) => {
    expect(init?.method ?? "GET").toBe("GET")
    expect(Object.fromEntries(url.searchParams)).toEqual({ appid: "wxid", secret: "wxsecret", code: "the-code", grant_type: "authorization_code" })
    return Response.json(tokenAnswer)
  }
  const tokenUrl = `${TOKEN_URL}?appid=wxid&secret=wxsecret&code=the-code&grant_type=authorization_code`

  it("exchanges the code with GET appid/secret/code and keeps openid, adding token_type", async () => {
    const api = fakeApi({ [tokenUrl]: tokenRoute })
    const tokens = await exchange(WeChat({ clientId: "wxid", clientSecret: "wxsecret" }), { fetch: api.fetch })
    expect(tokens).toEqual({ ...tokenAnswer, token_type: "bearer" })
    expect(api.calls).toHaveLength(1)
    expect(api.calls[0]!.headers.get("authorization")).toBeNull()
  })

  it("an errcode answer (status 200) is an error", async () => {
    const api = fakeApi({ [tokenUrl]: { errcode: 40029, errmsg: "invalid code" } })
    await expect(exchange(WeChat({ clientId: "wxid", clientSecret: "wxsecret" }), { fetch: api.fetch })).rejects.toThrow(/40029/)
  })

  it("reads /sns/userinfo with access_token and openid as query parameters", async () => {
    const user = { openid: "OPENID", nickname: "NICKNAME", sex: 1, province: "PROVINCE", city: "CITY", country: "COUNTRY", headimgurl: "https://thirdwx.qlogo.cn/mmopen/g3MonUZtNHkdmzicIlibx6iaFqAc56vxLSUfpb6n5WKSYVY0ChQKkiaJSgQ1dZuTOgvLLrhJbERQQ4eMsv84eavHiaiceqxibJxCfHe/0", privilege: ["PRIVILEGE1", "PRIVILEGE2"], unionid: "o6_bmasdasdsad6_2sgVt7hMZOPfL" }
    const url = `${USERINFO}?access_token=${TOKEN}&openid=OPENID&lang=zh_CN`
    const api = fakeApi({ [url]: user })
    expect(await fetchProfile(WeChat(), api.fetch, { openid: "OPENID" })).toEqual(user)
    expect(api.calls.map((c) => [c.method, c.url])).toEqual([["GET", url]])
    const errors = fakeApi({ [url]: { errcode: 40003, errmsg: "invalid openid" } })
    await expect(fetchProfile(WeChat(), errors.fetch, { openid: "OPENID" })).rejects.toThrow(/40003/)
  })

  it("maps the profile: unionid as id (openid when the app has no Open Platform binding), no email", async () => {
    expect(await mapped(WeChat(), wechatUser)).toEqual({ id: wechatUser.unionid, name: "小明", email: null, image: wechatUser.headimgurl })
    const { unionid: _u, ...noUnion } = wechatUser
    expect(await mapped(WeChat(), { ...noUnion, headimgurl: "" })).toEqual({ id: wechatUser.openid, name: "小明", email: null, image: null })
  })

  describe("flow against a WeChat-shaped server", () => {
    let server: ProviderServer
    beforeAll(async () => {
      server = await startWeChatServer()
    })
    afterAll(() => server.close())
    beforeEach(() => vi.unstubAllGlobals())

    function provider() {
      return WeChat({
        clientId: server.clientId,
        clientSecret: server.clientSecret,
        platformType: "WebsiteApp",
        authorization: { url: `${server.baseUrl}/connect/qrconnect#wechat_redirect` },
        token: { url: `${server.baseUrl}/sns/oauth2/access_token` },
        userinfo: { url: `${server.baseUrl}/sns/userinfo` },
        allowInsecureLoopback: true,
      })
    }

    it("signs in: appid on the QR page, GET code exchange with appid/secret, userinfo by openid", async () => {
      const adapter = MemoryAdapter()
      const browser = new Browser(direct(flowConfig(provider(), { adapter })))
      const authorize = location(await startSignIn(browser, "wechat", { callbackUrl: "/home" }))
      expect(authorize.pathname).toBe("/connect/qrconnect")
      expect(authorize.hash).toBe("#wechat_redirect")
      expect(authorize.searchParams.get("appid")).toBe(server.clientId)
      expect(authorize.searchParams.get("scope")).toBe("snsapi_login")
      expect(authorize.searchParams.get("state")).toBeTruthy()
      expect(authorize.searchParams.has("code_challenge")).toBe(false)

      const back = await fetch(authorize, { redirect: "manual" })
      const callback = new URL(back.headers.get("location")!)
      const response = await browser.request(callback.pathname + callback.search)
      expect(response.headers.get("location")).toBe("http://localhost:3000/home")
      for (const name of checkCookies) expect(browser.jar.has(name)).toBe(false)

      const session = await browser.session()
      expect(session.user).toMatchObject({ name: "小明", email: null, image: wechatUser.headimgurl })
      const token = server.log.find((r) => r.path === "/sns/oauth2/access_token")!
      expect(token.method).toBe("GET")
      expect(token.query.get("secret")).toBe(server.clientSecret)
      const account = await adapter.getAccount!(wechatUser.unionid, "wechat")
      expect(account).toMatchObject({ provider: "wechat", type: "oauth", token_type: "bearer", scope: "snsapi_login" })
    })

    it("a code WeChat refuses (errcode) ends in OAuthCallbackError, no session", async () => {
      const browser = new Browser(direct(flowConfig(provider())))
      const authorize = location(await startSignIn(browser, "wechat"))
      const callback = new URL((await fetch(authorize, { redirect: "manual" })).headers.get("location")!)
      callback.searchParams.set("code", "forged")
      const response = await browser.request(callback.pathname + callback.search)
      expect(response.headers.get("location")).toBe("http://localhost:3000/auth/signin?error=OAuthCallbackError")
      expect(await browser.session()).toBeNull()
    })
  })
})

describe("tiktok", () => {
  const TOKEN_URL = "https://open.tiktokapis.com/v2/oauth/token/"
  const USERINFO = "https://open.tiktokapis.com/v2/user/info/?fields=open_id,avatar_url,display_name,username"
  itHasTheShape(TikTok, { id: "tiktok", name: "TikTok", type: "oauth", scope: "user.info.profile", endpoints: { authorization: "https://www.tiktok.com/v2/auth/authorize/", token: TOKEN_URL, userinfo: USERINFO } })

  it("names the client `client_key` on the authorization URL", () => {
    expect((TikTok({ clientId: "aw3kzqpxvfzx0wmd" }).authorization as { params: Record<string, unknown> }).params).toEqual({ client_key: "aw3kzqpxvfzx0wmd", scope: "user.info.profile" })
  })

  const answer = { access_token: "act.example12345Example12345Example", expires_in: 86400, open_id: "afd97af1-b87b-48b9-ac98-410aghda5344", refresh_expires_in: 31536000, refresh_token: "rft.example12345Example12345Example", scope: "user.info.basic,video.list", token_type: "Bearer" }

  it("exchanges the code by a form POST with client_key/client_secret and keeps open_id", async () => {
    const api = fakeApi({
      [TOKEN_URL]: (init: RequestInit | undefined) => {
        expect(init?.method).toBe("POST")
        expect(new Headers(init?.headers).get("content-type")).toBe("application/x-www-form-urlencoded")
        expect(Object.fromEntries(new URLSearchParams(String(init?.body)))).toEqual({
          client_key: "ck", client_secret: "cs", code: "the-code", grant_type: "authorization_code",
          redirect_uri: "https://app.example/auth/callback/tiktok", code_verifier: "verifier",
        })
        return Response.json(answer)
      },
    })
    expect(await exchange(TikTok({ clientId: "ck", clientSecret: "cs" }), { fetch: api.fetch, verifier: "verifier" })).toEqual(answer)
    expect(api.calls).toHaveLength(1)
  })

  it("an error answer is an error", async () => {
    const api = fakeApi({ [TOKEN_URL]: { error: "invalid_request", error_description: "The request parameters are malformed.", log_id: "20230525" } })
    await expect(exchange(TikTok({ clientId: "ck", clientSecret: "cs" }), { fetch: api.fetch })).rejects.toThrow(/invalid_request/)
    expect(api.calls).toHaveLength(1)
  })

  const info = { data: { user: { avatar_url: "https://p19-sign.tiktokcdn-us.com/tos-useast5-avt-0068-tx/b17f0e4b3a4f4a50993cf72cda8b88b8~c5_168x168.jpeg", open_id: "723f24d7-e717-40f8-a2b6-cb8464cd23b4", union_id: "c9c60f44-a68e-4f5d-84dd-ce22faeb0ba1", display_name: "Tik Toker", username: "tiktoker" } }, error: { code: "ok", message: "", log_id: "20220829194722CBE87ED59D524E727021" } }

  it("reads /v2/user/info/ with the fields and a bearer token; a non-ok error code fails", async () => {
    const api = fakeApi({ [USERINFO]: info })
    expect(await fetchProfile(TikTok(), api.fetch)).toEqual(info)
    expect(api.calls.map((c) => [c.method, c.url, c.headers.get("authorization")])).toEqual([["GET", USERINFO, `Bearer ${TOKEN}`]])
    const failing = fakeApi({ [USERINFO]: () => Response.json({ data: {}, error: { code: "scope_not_authorized", message: "", log_id: "x" } }, { status: 403 }) })
    await expect(fetchProfile(TikTok(), failing.fetch)).rejects.toThrow(/scope_not_authorized/)
  })

  it("maps data.user: open_id, display_name, avatar_url; no email", async () => {
    expect(await mapped(TikTok(), info)).toEqual({ id: "723f24d7-e717-40f8-a2b6-cb8464cd23b4", name: "Tik Toker", email: null, image: info.data.user.avatar_url })
  })

  describe("flow against a TikTok-shaped server", () => {
    let server: ProviderServer
    beforeAll(async () => {
      server = await startTikTokServer()
    })
    afterAll(() => server.close())
    beforeEach(() => vi.unstubAllGlobals())

    it("signs in: client_key, form POST exchange with PKCE, profile under data.user", async () => {
      const provider = TikTok({
        clientId: server.clientId,
        clientSecret: server.clientSecret,
        authorization: { url: `${server.baseUrl}/v2/auth/authorize/` },
        token: { url: `${server.baseUrl}/v2/oauth/token/` },
        userinfo: { url: `${server.baseUrl}/v2/user/info/?fields=open_id,avatar_url,display_name,username` },
        allowInsecureLoopback: true,
      })
      const tokens: unknown[] = []
      const config = flowConfig(provider, {
        callbacks: {
          jwt({ token, account, trigger }) {
            if (trigger === "signIn") tokens.push({ sub: token.sub, account })
            return token
          },
        },
      })
      const browser = new Browser(direct(config))
      const authorize = location(await startSignIn(browser, "tiktok"))
      expect(authorize.searchParams.get("client_key")).toBe(server.clientId)
      expect(authorize.searchParams.get("scope")).toBe("user.info.profile")
      expect(authorize.searchParams.get("code_challenge_method")).toBe("S256")

      const response = await signInThroughFrom(browser, authorize)
      expect(response.headers.get("location")).toBe("http://localhost:3000")
      const session = await browser.session()
      // No email from TikTok: the profile's null stays null in the session, as in Auth.js.
      expect(session.user).toEqual({ name: tiktokUser.display_name, email: null, image: tiktokUser.avatar_url })
      expect(tokens).toEqual([
        { sub: `tiktok:${tiktokUser.open_id}`, account: expect.objectContaining({ provider: "tiktok", providerAccountId: tiktokUser.open_id, open_id: tiktokUser.open_id, token_type: "bearer" }) },
      ])
      const token = server.log.find((r) => r.path === "/v2/oauth/token/")!
      expect(token.headers.authorization).toBeUndefined()
      expect(token.body.get("code_verifier")).toBeTruthy()
    })
  })
})

describe("vk", () => {
  const USERINFO = "https://api.vk.com/method/users.get?fields=photo_100&v=5.131"
  itHasTheShape(VK, { id: "vk", name: "VK", type: "oauth", scope: "email", checks: ["state"], auth: "client_secret_post", endpoints: { authorization: "https://oauth.vk.com/authorize?scope=email&v=5.131", token: "https://oauth.vk.com/access_token?v=5.131", userinfo: USERINFO } })

  it("token.conform adds token_type; a VK answer that has one, or an error, is left alone", async () => {
    const answer = { access_token: "533bacf01e11f55b536a565b57531ac114461ae8736d6506a3", expires_in: 43200, user_id: 66748, email: "ada@example.com" }
    expect(await conform(VK(), answer)).toEqual({ ...answer, token_type: "bearer" })
    expect(await conform(VK(), { ...answer, token_type: "Bearer" })).toEqual({ ...answer, token_type: "Bearer" })
    const error = { error: "invalid_grant", error_description: "Code is invalid or expired." }
    expect(await conform(VK(), error, 401)).toEqual(error)
  })

  const users = { response: [{ id: 210700286, first_name: "Lindsey", last_name: "Stirling", photo_100: "https://sun1-16.userapi.com/s/v1/ig2/abc.jpg?size=100x100", can_access_closed: true, is_closed: false }] }

  it("reads users.get with the API version and a bearer token, and adds the token answer's email", async () => {
    const api = fakeApi({ [USERINFO]: users })
    expect(await fetchProfile(VK(), api.fetch, { email: "lindsey@example.com", user_id: 210700286 })).toEqual({ ...users.response[0], email: "lindsey@example.com" })
    expect(api.calls.map((c) => [c.method, c.url, c.headers.get("authorization")])).toEqual([["GET", USERINFO, `Bearer ${TOKEN}`]])
    expect((await fetchProfile(VK(), fakeApi({ [USERINFO]: users }).fetch)).email).toBeNull()
  })

  it("a VK API error (status 200 with `error`) is an error", async () => {
    const api = fakeApi({ [USERINFO]: { error: { error_code: 5, error_msg: "User authorization failed: invalid access_token (4).", request_params: [] } } })
    await expect(fetchProfile(VK(), api.fetch)).rejects.toThrow(/error 5/)
  })

  it("maps the user: string id, first and last name, photo_100", async () => {
    expect(await mapped(VK(), { ...users.response[0], email: "lindsey@example.com" })).toEqual({ id: "210700286", name: "Lindsey Stirling", email: "lindsey@example.com", image: users.response[0]!.photo_100 })
  })

  describe("flow against a VK-shaped server", () => {
    let server: ProviderServer
    beforeAll(async () => {
      server = await startVkServer()
    })
    afterAll(() => server.close())
    beforeEach(() => vi.unstubAllGlobals())

    it("signs in: v on every URL, client_secret_post, token_type added, email from the token answer", async () => {
      const provider = VK({
        clientId: server.clientId,
        clientSecret: server.clientSecret,
        authorization: `${server.baseUrl}/authorize?scope=email&v=5.131`,
        token: { url: `${server.baseUrl}/access_token?v=5.131` },
        userinfo: { url: `${server.baseUrl}/method/users.get?fields=photo_100&v=5.131` },
        allowInsecureLoopback: true,
      })
      const adapter = MemoryAdapter()
      const browser = new Browser(direct(flowConfig(provider, { adapter })))
      const start = location(await startSignIn(browser, "vk"))
      expect(start.searchParams.get("v")).toBe("5.131")
      expect(start.searchParams.get("scope")).toBe("email")
      expect(start.searchParams.has("code_challenge")).toBe(false)
      const response = await signInThroughFrom(browser, start)
      expect(response.headers.get("location")).toBe("http://localhost:3000")

      const session = await browser.session()
      expect(session.user).toEqual({ name: "Lindsey Stirling", email: "lindsey@example.com", image: vkUser.photo_100 })
      const token = server.log.find((r) => r.path === "/access_token")!
      expect(token.body.get("client_secret")).toBe(server.clientSecret)
      expect(token.headers.authorization).toBeUndefined()
      const user = await adapter.getUserByAccount!({ provider: "vk", providerAccountId: String(vkUser.id) })
      expect(user).toMatchObject({ email: "lindsey@example.com", name: "Lindsey Stirling" })
      expect(await adapter.getAccount!(String(vkUser.id), "vk")).toMatchObject({ token_type: "bearer" })
    })

    it("signs in again with the same account (same user row)", async () => {
      const provider = VK({
        clientId: server.clientId,
        clientSecret: server.clientSecret,
        authorization: `${server.baseUrl}/authorize?scope=email&v=5.131`,
        token: { url: `${server.baseUrl}/access_token?v=5.131` },
        userinfo: { url: `${server.baseUrl}/method/users.get?fields=photo_100&v=5.131` },
        allowInsecureLoopback: true,
      })
      const adapter = MemoryAdapter()
      await signInThrough(new Browser(direct(flowConfig(provider, { adapter }))), "vk")
      await signInThrough(new Browser(direct(flowConfig(provider, { adapter }))), "vk")
      const user = await adapter.getUserByAccount!({ provider: "vk", providerAccountId: String(vkUser.id) })
      expect(user).toBeTruthy()
    })
  })
})

/** From an authorization URL: through the provider, then the callback into the app. */
async function signInThroughFrom(browser: Browser, authorize: URL): Promise<Response> {
  const back = await fetch(authorize, { redirect: "manual" })
  const callback = new URL(back.headers.get("location")!)
  return browser.request(callback.pathname + callback.search)
}
