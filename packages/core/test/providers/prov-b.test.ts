/**
 * The prov-b presets: freshbooks, frontegg, fusionauth, hubspot, huggingface,
 * identity-server4, instagram, kinde, line, logto, loops, mailchimp, mailgun, mailru,
 * mastodon, mattermost, medium, netlify, netsuite, nextcloud, onelogin, ory-hydra.
 *
 * The real SaaS APIs cannot be reached from the test machines, so stand-ins play them:
 *
 * - unit tests map realistic sample profiles (taken from each provider's API documentation)
 *   and run the presets' own `userinfo.request` / `token.conform` code against a fake fetch
 *   that checks URL, method and headers; the global fetch is stubbed to fail, so a preset that
 *   bypasses the context's fetch (and with it the app's `customFetch`) is caught;
 * - flow tests (LINE, Mail.ru, HubSpot, Mastodon) drive `Auth()` from the sign-in POST to a
 *   signed-in session against a local HTTP server on 127.0.0.1 shaped like the provider
 *   (`prov-b-fixtures/saas.ts`): its authorize redirect, its token endpoint's real answer and
 *   its profile endpoint. Fixed https origins are reached through a rerouting `customFetch`;
 * - the Loops and Mailgun senders post to the same local server, as `http-senders.test.ts`
 *   does for Resend, SendGrid and Postmark.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { customFetch, type AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import Freshbooks from "@portcullis/core/providers/freshbooks"
import Frontegg from "@portcullis/core/providers/frontegg"
import FusionAuth from "@portcullis/core/providers/fusionauth"
import HubSpot from "@portcullis/core/providers/hubspot"
import HuggingFace from "@portcullis/core/providers/huggingface"
import IdentityServer4 from "@portcullis/core/providers/identity-server4"
import Instagram from "@portcullis/core/providers/instagram"
import Kinde from "@portcullis/core/providers/kinde"
import Line from "@portcullis/core/providers/line"
import Logto from "@portcullis/core/providers/logto"
import Loops from "@portcullis/core/providers/loops"
import Mailchimp from "@portcullis/core/providers/mailchimp"
import Mailgun from "@portcullis/core/providers/mailgun"
import MailRu from "@portcullis/core/providers/mailru"
import Mastodon from "@portcullis/core/providers/mastodon"
import Mattermost from "@portcullis/core/providers/mattermost"
import Medium from "@portcullis/core/providers/medium"
import Netlify from "@portcullis/core/providers/netlify"
import NetSuite, { netSuiteHost } from "@portcullis/core/providers/netsuite"
import Nextcloud from "@portcullis/core/providers/nextcloud"
import OneLogin from "@portcullis/core/providers/onelogin"
import OryHydra from "@portcullis/core/providers/ory-hydra"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, captureLogger, direct, SECRET } from "../helpers.js"
import { extractLink, newBrowser, openLink, redirectOf, requestLink } from "../email/support.js"
import { checkCookies, location, startSignIn } from "../oauth/flow.js"
import {
  hubSpotMetadata, installHubSpot, installLine, installMailRu, installMastodon, json, lineUser, mailRuUser, mastodonAccount, startStandIn, type StandIn,
} from "./prov-b-fixtures/saas.js"

type AnyConfig = OAuthConfig<any>

const url = (e: unknown) => (typeof e === "string" ? e : (e as { url?: string } | undefined)?.url)
const paramsOf = (e: unknown) => (typeof e === "object" && e ? ((e as { params?: Record<string, unknown> }).params ?? {}) : {})
const scopeOf = (config: AnyConfig) => {
  const authorization = url(config.authorization)
  return paramsOf(config.authorization).scope ?? (authorization ? new URL(authorization).searchParams.get("scope") : undefined)
}

/** The shape every preset shares: its options untouched, no credentials copied in, a button style. */
function expectPreset(config: AnyConfig, id: string, name: string, type: "oauth" | "oidc", options: Record<string, unknown>) {
  expect(config.id).toBe(id)
  expect(config.name).toBe(name)
  expect(config.type).toBe(type)
  expect(config.options).toBe(options)
  expect(config.clientId).toBeUndefined()
  expect(config.clientSecret).toBeUndefined()
  expect(config.style?.bg).toMatch(/^#/)
  expect(config.style?.text).toMatch(/^#/)
}

/** Maps a sample through the preset's profile(), checking the id is a string. */
async function mapped(config: AnyConfig, sample: Record<string, unknown>, tokens: Record<string, unknown> = {}) {
  const user = await config.profile!(structuredClone(sample), tokens)
  expect(typeof user.id).toBe("string")
  return user
}

const TOKEN = "at-0123456789"

interface Call {
  url: string
  method: string
  headers: Headers
  body: unknown
}

/** A fetch serving canned answers by exact URL; 404 otherwise. Records every call. */
function fakeApi(routes: Record<string, unknown | ((call: Call) => Response)>) {
  const calls: Call[] = []
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const call = { url: input instanceof Request ? input.url : String(input), method: init?.method ?? "GET", headers: new Headers(init?.headers), body: init?.body }
    calls.push(call)
    if (!(call.url in routes)) return Response.json({ message: "Not Found" }, { status: 404 })
    const route = routes[call.url]
    return typeof route === "function" ? (route as (c: Call) => Response)(call) : Response.json(route)
  }) as typeof globalThis.fetch
  return { fetch, calls }
}

/** Runs a preset's `userinfo.request` the way the core does, with the normalised provider. */
async function fetchProfile(config: AnyConfig, fetch: typeof globalThis.fetch, tokens: Record<string, unknown> = {}) {
  const userinfo = config.userinfo
  if (typeof userinfo !== "object" || !userinfo.request) throw new Error(`${config.id} has no custom userinfo request`)
  const provider = {
    ...config,
    userinfo: { url: new URL(userinfo.url!), request: userinfo.request },
    callbackUrl: `https://app.example/auth/callback/${config.id}`,
    signinUrl: `https://app.example/auth/signin/${config.id}`,
    checks: ["pkce", "state"],
  } as any
  return userinfo.request({ provider, tokens: { access_token: TOKEN, token_type: "bearer", ...tokens }, fetch })
}

/** Runs a preset's `token.conform` on a token endpoint answer; returns the JSON the core would read. */
async function conformed(config: AnyConfig, body: unknown, status = 200) {
  const token = config.token as { conform?: (r: Response) => Promise<Response | undefined> }
  const original = Response.json(body, { status })
  const fixed = (await token.conform!(original.clone())) ?? original
  expect(fixed.headers.get("content-type")).toMatch(/application\/json/)
  return { status: fixed.status, body: await fixed.json() }
}

// Presets must use the context's fetch (customFetch): the global one fails in unit tests.
function stubGlobalFetch() {
  beforeEach(() => {
    vi.stubGlobal("fetch", () => {
      throw new Error("a preset used the global fetch instead of the context's fetch")
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    vi.unstubAllEnvs()
  })
}

// ---------------------------------------------------------------------------------------------
// OpenID Connect presets with a required issuer

describe.each([
  {
    factory: IdentityServer4, id: "identity-server4", name: "IdentityServer4", issuer: "https://demo.duendesoftware.com", scope: "openid profile email",
    sample: { iss: "https://demo.duendesoftware.com", sub: "88421113", aud: "interactive.confidential", name: "Bob Smith", given_name: "Bob", family_name: "Smith", email: "BobSmith@email.com", email_verified: true, website: "http://bob.com", idp: "local", amr: ["pwd"] },
    expected: { id: "88421113", name: "Bob Smith", email: "BobSmith@email.com", image: null },
  },
  {
    factory: OryHydra, id: "ory-hydra", name: "Ory Hydra", issuer: "https://auth.example.com", scope: undefined,
    sample: { iss: "https://auth.example.com", sub: "b2a3f2c1-1f0e-4b5a-9c8d-7e6f5a4b3c2d", aud: ["portcullis-app"], iat: 1700000000, exp: 1700003600, rat: 1699999990, auth_time: 1699999995, sid: "f3c0c2a5", email: "ada@example.com", email_verified: true, name: "Ada Lovelace" },
    expected: { id: "b2a3f2c1-1f0e-4b5a-9c8d-7e6f5a4b3c2d", name: "Ada Lovelace", email: "ada@example.com", image: null },
  },
  {
    factory: OneLogin, id: "onelogin", name: "OneLogin", issuer: "https://example.onelogin.com/oidc/2", scope: undefined,
    sample: { sub: "44386421", email: "ada@example.com", preferred_username: "ada@example.com", name: "Ada Lovelace", given_name: "Ada", family_name: "Lovelace", updated_at: 1700000000, groups: ["Engineering"] },
    expected: { id: "44386421", name: "Ada Lovelace", email: "ada@example.com", image: null },
  },
  {
    factory: Kinde, id: "kinde", name: "Kinde", issuer: "https://example.kinde.com", scope: undefined,
    sample: { at_hash: "Ye5jK8n4", aud: ["https://example.kinde.com"], auth_time: 1700000000, azp: "3b0b5c6c8fcc464fab397f4969b5f482", email: "ada@example.com", exp: 1700003600, family_name: "Lovelace", given_name: "Ada", iat: 1700000000, iss: "https://example.kinde.com", jti: "e7e18303", name: "Ada Lovelace", org_codes: ["org_123456789"], picture: "https://gravatar.com/avatar/ada", sub: "kp_0ba7c433e5d648cf992621ce99d42817", updated_at: 1700000000 },
    expected: { id: "kp_0ba7c433e5d648cf992621ce99d42817", name: "Ada Lovelace", email: "ada@example.com", image: "https://gravatar.com/avatar/ada" },
  },
  {
    factory: Logto, id: "logto", name: "Logto", issuer: "https://example.logto.app/oidc", scope: "offline_access openid email profile",
    sample: { sub: "zbgpb5plzsk1", name: null, username: "ada", picture: null, email: "ada@example.com", email_verified: true, created_at: 1700000000000, updated_at: 1700000000000 },
    expected: { id: "zbgpb5plzsk1", name: "ada", email: "ada@example.com", image: null },
  },
  {
    factory: FusionAuth, id: "fusionauth", name: "FusionAuth", issuer: "https://auth.example.com", scope: "openid offline_access email profile",
    sample: { aud: "85a03867-dccf-4882-adde-1a79aeec50df", exp: 1700003600, iat: 1700000000, iss: "https://auth.example.com", sub: "00000000-0000-0001-0000-000000000000", jti: "3a3b0e1e", authenticationType: "PASSWORD", email: "richard@pipedpiper.com", email_verified: true, preferred_username: "richard", at_hash: "eP9nv1hG", c_hash: "8I8-yu2v", scope: "openid offline_access", sid: "393975d6" },
    expected: { id: "00000000-0000-0001-0000-000000000000", name: "richard", email: "richard@pipedpiper.com", image: null },
  },
])("$id (OIDC, issuer required)", (c) => {
  it("is an OIDC preset with no default issuer and the scopes Auth.js asks for", () => {
    const options = { clientId: "id", clientSecret: "secret", issuer: c.issuer }
    const config = c.factory(options)
    expectPreset(config, c.id, c.name, "oidc", options)
    expect(c.factory().issuer).toBeUndefined()
    expect(c.factory().options).toEqual({})
    expect(url(config.authorization) ?? url(config.token) ?? url(config.userinfo)).toBeUndefined()
    expect(paramsOf(config.authorization).scope).toBe(c.scope)
  })

  it("maps the documented ID token claims", async () => {
    expect(await mapped(c.factory({ issuer: c.issuer }), c.sample)).toEqual(c.expected)
  })
})

describe("identity-server4", () => {
  it("says it is deprecated, and names the successor", async () => {
    const { readFile } = await import("node:fs/promises")
    const source = await readFile(new URL("../../src/providers/identity-server4.ts", import.meta.url), "utf8")
    expect(source).toMatch(/@deprecated IdentityServer4 reached end of life[\s\S]*successor is Duende IdentityServer/)
  })
})

describe("kinde", () => {
  it("falls back to given and family name, and to a null picture", async () => {
    const user = await mapped(Kinde(), { sub: "kp_1", given_name: "Ada", family_name: "Lovelace", email: "ada@example.com" })
    expect(user).toEqual({ id: "kp_1", name: "Ada Lovelace", email: "ada@example.com", image: null })
  })
})

describe("fusionauth", () => {
  it("with a tenantId: discovery and the authorization request name the tenant", () => {
    const config = FusionAuth({ issuer: "https://auth.example.com/", tenantId: "d7d09513-a3f5-401c-9685-34ab6c552453" })
    expect(config.wellKnown).toBe("https://auth.example.com/.well-known/openid-configuration?tenantId=d7d09513-a3f5-401c-9685-34ab6c552453")
    expect(paramsOf(config.authorization).tenantId).toBe("d7d09513-a3f5-401c-9685-34ab6c552453")
    expect(FusionAuth({ issuer: "https://auth.example.com" }).wellKnown).toBeUndefined()
  })

  it("builds the tenant's discovery URL on AUTH_FUSIONAUTH_ISSUER too", () => {
    vi.stubEnv("AUTH_FUSIONAUTH_ISSUER", "https://login.example.org")
    try {
      expect(FusionAuth({ tenantId: "t1" }).wellKnown).toBe("https://login.example.org/.well-known/openid-configuration?tenantId=t1")
    } finally {
      vi.unstubAllEnvs()
    }
  })

  it("prefers the name claim when a lambda adds one", async () => {
    expect((await mapped(FusionAuth(), { sub: "u1", name: "Richard Hendricks", preferred_username: "richard", picture: "https://auth.example.com/p.png" })).name).toBe("Richard Hendricks")
  })
})

describe("frontegg", () => {
  stubGlobalFetch()
  const sample = { sub: "a4b6a2e4-5c7b-4c5a-9f3e-0e9a8c6f1d2b", name: "Ada Lovelace", email: "ada@example.com", email_verified: true, profilePictureUrl: "https://www.gravatar.com/avatar/ada", tenantId: "7c6e9b8a", tenantIds: ["7c6e9b8a"], roles: ["Admin"], permissions: ["fe.secure.*"], type: "userToken", iss: "https://app-example.frontegg.com", aud: "b7f1b7a6" }

  it("is OIDC on the Frontegg domain, with its discovery document under /oauth", () => {
    const options = { issuer: "https://app-example.frontegg.com/" }
    const config = Frontegg(options)
    expectPreset(config, "frontegg", "Frontegg", "oidc", options)
    expect(config.issuer).toBe("https://app-example.frontegg.com")
    expect(config.wellKnown).toBe("https://app-example.frontegg.com/oauth/.well-known/openid-configuration")
  })

  it("reads AUTH_FRONTEGG_ISSUER when no issuer is passed; none at all means no endpoints", () => {
    expect(Frontegg().wellKnown).toBeUndefined()
    vi.stubEnv("AUTH_FRONTEGG_ISSUER", "https://login.example.com")
    expect(Frontegg().wellKnown).toBe("https://login.example.com/oauth/.well-known/openid-configuration")
  })

  it("maps the ID token, with Frontegg's profilePictureUrl as the image", async () => {
    expect(await mapped(Frontegg(), sample)).toEqual({ id: sample.sub, name: "Ada Lovelace", email: "ada@example.com", image: "https://www.gravatar.com/avatar/ada" })
  })
})

describe("huggingface", () => {
  const sample = { sub: "63f1f1b1c7a2b3d4e5f60718", name: "Ada Lovelace", preferred_username: "ada", profile: "https://huggingface.co/ada", picture: "https://cdn-avatars.huggingface.co/v1/production/uploads/ada.png", website: "https://ada.dev", email: "ada@example.com", email_verified: true, isPro: false, canPay: false, orgs: [] }

  it("is OIDC with the huggingface.co issuer and the openid profile email scopes", () => {
    const options = {}
    const config = HuggingFace(options)
    expectPreset(config, "huggingface", "Hugging Face", "oidc", options)
    expect(config.issuer).toBe("https://huggingface.co")
    expect(scopeOf(config)).toBe("openid profile email")
  })

  it("maps the claims; without the email scope there is no email, and the handle stands in for a missing name", async () => {
    expect(await mapped(HuggingFace(), sample)).toEqual({ id: sample.sub, name: "Ada Lovelace", email: "ada@example.com", image: sample.picture })
    const { email: _e, name: _n, ...noEmail } = sample
    expect(await mapped(HuggingFace(), noEmail)).toMatchObject({ name: "ada", email: null })
  })
})

// ---------------------------------------------------------------------------------------------
// Plain OAuth 2 presets at fixed endpoints

describe("freshbooks", () => {
  const me = { response: { id: 2192788, identity_id: 2192788, first_name: "Bruce", last_name: "Wayne", email: "bruce@wayneenterprises.com", language: "en", confirmed_at: "2017-05-23T14:54:14Z", created_at: "2017-05-23T14:53:33Z", business_memberships: [{ id: 160, role: "owner", business: { id: 77, name: "Wayne Enterprises", account_id: "zDmNq" } }] } }

  it("has the documented endpoints and client_secret_post", () => {
    const options = {}
    const config = Freshbooks(options)
    expectPreset(config, "freshbooks", "Freshbooks", "oauth", options)
    expect([url(config.authorization), url(config.token), url(config.userinfo)]).toEqual([
      "https://auth.freshbooks.com/oauth/authorize", "https://api.freshbooks.com/auth/oauth/token", "https://api.freshbooks.com/auth/api/v1/users/me",
    ])
    expect(config.client?.token_endpoint_auth_method).toBe("client_secret_post")
  })

  it("maps response of /users/me", async () => {
    expect(await mapped(Freshbooks(), me)).toEqual({ id: "2192788", name: "Bruce Wayne", email: "bruce@wayneenterprises.com", image: null })
  })
})

describe("netlify", () => {
  it("has the documented endpoints and maps /api/v1/user", async () => {
    const options = {}
    const config = Netlify(options)
    expectPreset(config, "netlify", "Netlify", "oauth", options)
    expect([url(config.authorization), url(config.token), url(config.userinfo)]).toEqual([
      "https://app.netlify.com/authorize", "https://api.netlify.com/oauth/token", "https://api.netlify.com/api/v1/user",
    ])
    const user = { id: "5b1f5c8e2d0a1b0012345678", uid: "5b1f5c8e2d0a1b0012345678", full_name: "Ada Lovelace", avatar_url: "https://avatars.githubusercontent.com/u/1?v=4", email: "ada@example.com", affiliate_id: "", site_count: 3, created_at: "2018-06-12T10:00:00.000Z", last_login: "2024-01-01T00:00:00.000Z", login_providers: ["github"] }
    expect(await mapped(config, user)).toEqual({ id: user.id, name: "Ada Lovelace", email: "ada@example.com", image: user.avatar_url })
  })
})

describe("hubspot", () => {
  stubGlobalFetch()

  it("asks for the oauth scope, sends the secret in the body, and has no userinfo URL of its own", () => {
    const options = {}
    const config = HubSpot(options)
    expectPreset(config, "hubspot", "HubSpot", "oauth", options)
    expect(url(config.authorization)).toBe("https://app.hubspot.com/oauth/authorize")
    expect(scopeOf(config)).toBe("oauth")
    expect(url(config.token)).toBe("https://api.hubapi.com/oauth/v1/token")
    expect(config.client?.token_endpoint_auth_method).toBe("client_secret_post")
  })

  it("reads the token's metadata (the token in the path, no Authorization header) and maps user and user_id", async () => {
    const api = fakeApi({ [`https://api.hubapi.com/oauth/v1/access-tokens/${TOKEN}`]: { token: TOKEN, ...hubSpotMetadata } })
    const profile = await fetchProfile(HubSpot(), api.fetch)
    expect(api.calls).toHaveLength(1)
    expect(api.calls[0]).toMatchObject({ method: "GET" })
    expect(api.calls[0]!.headers.get("authorization")).toBeNull()
    expect(await mapped(HubSpot(), profile as any)).toEqual({ id: "9876543", name: "Ada@Example.com", email: "Ada@Example.com", image: null })
  })

  it("an expired or unknown token is an error", async () => {
    const api = fakeApi({})
    await expect(fetchProfile(HubSpot(), api.fetch)).rejects.toThrow(/404/)
  })
})

describe("instagram", () => {
  it("is the Basic Display API preset, deprecated, with the user_profile scope", async () => {
    const options = {}
    const config = Instagram(options)
    expectPreset(config, "instagram", "Instagram", "oauth", options)
    expect(url(config.authorization)).toBe("https://api.instagram.com/oauth/authorize")
    expect(scopeOf(config)).toBe("user_profile")
    expect(url(config.token)).toBe("https://api.instagram.com/oauth/access_token")
    expect(url(config.userinfo)).toBe("https://graph.instagram.com/me?fields=id,username,account_type,name")
    expect(config.client?.token_endpoint_auth_method).toBe("client_secret_post")
    const { readFile } = await import("node:fs/promises")
    expect(await readFile(new URL("../../src/providers/instagram.ts", import.meta.url), "utf8")).toMatch(/@deprecated Meta shut the Instagram Basic Display API down/)
  })

  it("adds the token_type Instagram's token answer lacks; errors pass untouched", async () => {
    expect(await conformed(Instagram(), { access_token: "IGQVJ", user_id: 17841405793187218 })).toEqual({ status: 200, body: { access_token: "IGQVJ", user_id: 17841405793187218, token_type: "bearer" } })
    const error = { error_type: "OAuthException", code: 400, error_message: "Matching code was not found or was already used" }
    expect(await conformed(Instagram(), error, 400)).toEqual({ status: 400, body: error })
  })

  it("maps the username as the name, never an email", async () => {
    expect(await mapped(Instagram(), { id: "17841405793187218", username: "jayposiris", account_type: "PERSONAL" })).toEqual({ id: "17841405793187218", name: "jayposiris", email: null, image: null })
  })
})

describe("mailchimp", () => {
  stubGlobalFetch()
  const metadata = { dc: "us1", role: "owner", accountname: "Example Co", user_id: 2437134, login: { email: "ada@example.com", avatar: null, login_id: 2437134, login_name: "ada", login_email: "ada@example.com" }, login_url: "https://login.mailchimp.com", api_endpoint: "https://us1.api.mailchimp.com" }

  it("has the documented endpoints and client_secret_post", () => {
    const options = {}
    const config = Mailchimp(options)
    expectPreset(config, "mailchimp", "Mailchimp", "oauth", options)
    expect([url(config.authorization), url(config.token), url(config.userinfo)]).toEqual([
      "https://login.mailchimp.com/oauth2/authorize", "https://login.mailchimp.com/oauth2/token", "https://login.mailchimp.com/oauth2/metadata",
    ])
    expect(config.client?.token_endpoint_auth_method).toBe("client_secret_post")
  })

  it("turns the never-expiring, scope-less token answer into a valid one", async () => {
    expect(await conformed(Mailchimp(), { access_token: "5c6ccc561059aa386da9d112215bae55", expires_in: 0, scope: null })).toEqual({
      status: 200, body: { access_token: "5c6ccc561059aa386da9d112215bae55", token_type: "bearer" },
    })
    expect(await conformed(Mailchimp(), { error: "invalid_grant", error_description: "Invalid authorization code" }, 400)).toEqual({
      status: 400, body: { error: "invalid_grant", error_description: "Invalid authorization code" },
    })
  })

  it("asks /oauth2/metadata with Mailchimp's OAuth authorization scheme and maps the login", async () => {
    const api = fakeApi({ "https://login.mailchimp.com/oauth2/metadata": metadata })
    const profile = await fetchProfile(Mailchimp(), api.fetch)
    expect(api.calls[0]!.method).toBe("GET")
    expect(api.calls[0]!.headers.get("authorization")).toBe(`OAuth ${TOKEN}`)
    expect(await mapped(Mailchimp(), profile as any)).toEqual({ id: "2437134", name: "Example Co", email: "ada@example.com", image: null })
  })

  it("a 200 carrying error: invalid_token is a failure, not a profile", async () => {
    const api = fakeApi({ "https://login.mailchimp.com/oauth2/metadata": { error: "invalid_token", error_description: "Invalid token" } })
    await expect(fetchProfile(Mailchimp(), api.fetch)).rejects.toThrow(/invalid_token/)
  })
})

describe("mailru", () => {
  stubGlobalFetch()

  it("has the documented endpoints and the userinfo scope", () => {
    const options = {}
    const config = MailRu(options)
    expectPreset(config, "mailru", "Mail.ru", "oauth", options)
    expect([url(config.authorization), url(config.token), url(config.userinfo)]).toEqual([
      "https://oauth.mail.ru/login", "https://oauth.mail.ru/token", "https://oauth.mail.ru/userinfo",
    ])
    expect(scopeOf(config)).toBe("userinfo")
  })

  it("adds the missing token_type", async () => {
    expect(await conformed(MailRu(), { expires_in: 3600, refresh_token: "rt", access_token: "at" })).toEqual({ status: 200, body: { expires_in: 3600, refresh_token: "rt", access_token: "at", token_type: "bearer" } })
  })

  it("passes the token as access_token in the query, and an error body fails", async () => {
    const api = fakeApi({ [`https://oauth.mail.ru/userinfo?access_token=${TOKEN}`]: mailRuUser })
    const profile = await fetchProfile(MailRu(), api.fetch)
    expect(api.calls[0]!.method).toBe("GET")
    expect(await mapped(MailRu(), profile as any)).toEqual({ id: mailRuUser.id, name: "Ivan Petrov", email: "ivan.petrov@mail.ru", image: mailRuUser.image })
    const refused = fakeApi({ [`https://oauth.mail.ru/userinfo?access_token=${TOKEN}`]: { error: "invalid_token", error_description: "token not found" } })
    await expect(fetchProfile(MailRu(), refused.fetch)).rejects.toThrow(/invalid_token/)
  })
})

describe("medium", () => {
  it("is deprecated upstream, asks for basicProfile, and sends the secret in the body", async () => {
    const options = {}
    const config = Medium(options)
    expectPreset(config, "medium", "Medium", "oauth", options)
    expect([url(config.authorization), url(config.token), url(config.userinfo)]).toEqual([
      "https://medium.com/m/oauth/authorize", "https://api.medium.com/v1/tokens", "https://api.medium.com/v1/me",
    ])
    expect(scopeOf(config)).toBe("basicProfile")
    expect(config.client?.token_endpoint_auth_method).toBe("client_secret_post")
    const { readFile } = await import("node:fs/promises")
    expect(await readFile(new URL("../../src/providers/medium.ts", import.meta.url), "utf8")).toMatch(/@deprecated Medium archived its API/)
  })

  it("rewrites the array scope and the millisecond expires_at", async () => {
    vi.useFakeTimers({ now: 1426474800000 - 60 * 60 * 1000 })
    try {
      const { body } = await conformed(Medium(), { token_type: "Bearer", access_token: "at", refresh_token: "rt", scope: ["basicProfile", "publishPost"], expires_at: 1426474800000 })
      expect(body).toEqual({ token_type: "Bearer", access_token: "at", refresh_token: "rt", scope: "basicProfile publishPost", expires_in: 3600 })
    } finally {
      vi.useRealTimers()
    }
  })

  it("maps data of /v1/me", async () => {
    const me = { data: { id: "5303d74c64f66366f00cb9b2a94f3251bf5", username: "majelbstoat", name: "Jamie Talbot", url: "https://medium.com/@majelbstoat", imageUrl: "https://images.medium.com/0*fkfQiTzT7TlUGGyI.png" } }
    expect(await mapped(Medium(), me)).toEqual({ id: me.data.id, name: "Jamie Talbot", email: null, image: me.data.imageUrl })
  })
})

// ---------------------------------------------------------------------------------------------
// Self-hosted or per-account servers

describe("mastodon", () => {
  stubGlobalFetch()

  it("builds the endpoints on the instance from issuer (trailing slash dropped), with the read scope", () => {
    const options = { issuer: "https://mastodon.social/" }
    const config = Mastodon(options)
    expectPreset(config, "mastodon", "Mastodon", "oauth", options)
    expect([url(config.authorization), url(config.token), url(config.userinfo)]).toEqual([
      "https://mastodon.social/oauth/authorize", "https://mastodon.social/oauth/token", "https://mastodon.social/api/v1/accounts/verify_credentials",
    ])
    expect(scopeOf(config)).toBe("read")
  })

  it("reads the instance from AUTH_MASTODON_ISSUER; without one there are no endpoints", () => {
    expect(Mastodon().authorization).toBeUndefined()
    vi.stubEnv("AUTH_MASTODON_ISSUER", "https://fosstodon.org")
    expect(url(Mastodon().token)).toBe("https://fosstodon.org/oauth/token")
  })

  it("maps the account: username as name, the static avatar, no email", async () => {
    expect(await mapped(Mastodon({ issuer: "https://mastodon.example" }), mastodonAccount)).toEqual({ id: mastodonAccount.id, name: "ada", email: null, image: mastodonAccount.avatar_static })
  })
})

describe("mattermost", () => {
  stubGlobalFetch()
  const me = { id: "ho2ijkbh6pfhbgdpyg1pbx5tdc", create_at: 1700000000000, update_at: 1700000000000, delete_at: 0, username: "ada", auth_data: "", auth_service: "", email: "ada@example.com", email_verified: true, nickname: "", first_name: "Ada", last_name: "Lovelace", position: "", roles: "system_user", locale: "en" }

  it("builds the endpoints on the server and sends the secret in the body", () => {
    const options = { issuer: "https://chat.example.com" }
    const config = Mattermost(options)
    expectPreset(config, "mattermost", "Mattermost", "oauth", options)
    expect([url(config.authorization), url(config.token), url(config.userinfo)]).toEqual([
      "https://chat.example.com/oauth/authorize", "https://chat.example.com/oauth/access_token", "https://chat.example.com/api/v4/users/me",
    ])
    expect(config.client?.token_endpoint_auth_method).toBe("client_secret_post")
    vi.stubEnv("AUTH_MATTERMOST_ISSUER", "https://mm.example.org/")
    expect(url(Mattermost().userinfo)).toBe("https://mm.example.org/api/v4/users/me")
  })

  it("maps /api/v4/users/me: username first, else first and last name", async () => {
    expect(await mapped(Mattermost(), me)).toEqual({ id: me.id, name: "ada", email: "ada@example.com", image: null })
    expect((await mapped(Mattermost(), { ...me, username: "" })).name).toBe("Ada Lovelace")
  })
})

describe("nextcloud", () => {
  stubGlobalFetch()
  const data = { enabled: true, storageLocation: "/var/www/html/data/frank", id: "frank", lastLogin: 1700000000000, backend: "Database", subadmin: [], quota: { free: 1000, used: 10, total: 1010, relative: 1, quota: -3 }, email: "frank@domain.tld", displayname: "Frank K.", phone: "", address: "", website: "", twitter: "", groups: ["admin"], language: "en", locale: "en_US" }
  const ocs = { ocs: { meta: { status: "ok", statuscode: 100, message: "OK" }, data } }

  it("builds the endpoints on the instance", () => {
    const options = { issuer: "https://cloud.example.com/" }
    const config = Nextcloud(options)
    expectPreset(config, "nextcloud", "Nextcloud", "oauth", options)
    expect([url(config.authorization), url(config.token)]).toEqual(["https://cloud.example.com/apps/oauth2/authorize", "https://cloud.example.com/apps/oauth2/api/v1/token"])
  })

  it("asks the OCS API for the token's user_id with OCS-APIRequest, and unwraps ocs.data", async () => {
    const api = fakeApi({ "https://cloud.example.com/ocs/v1.php/cloud/users/frank?format=json": ocs })
    const config = Nextcloud({ issuer: "https://cloud.example.com" })
    const profile = await fetchProfile(config, api.fetch, { user_id: "frank" })
    const headers = api.calls[0]!.headers
    expect(api.calls[0]!.method).toBe("GET")
    expect(headers.get("ocs-apirequest")).toBe("true")
    expect(headers.get("authorization")).toBe(`Bearer ${TOKEN}`)
    expect(await mapped(config, profile as any)).toEqual({ id: "frank", name: "Frank K.", email: "frank@domain.tld", image: "https://cloud.example.com/index.php/avatar/frank/64" })
  })

  it("refuses a token answer without user_id and an OCS failure status", async () => {
    const config = Nextcloud({ issuer: "https://cloud.example.com" })
    await expect(fetchProfile(config, fakeApi({}).fetch)).rejects.toThrow(/user_id/)
    const failing = fakeApi({ "https://cloud.example.com/ocs/v1.php/cloud/users/frank?format=json": { ocs: { meta: { status: "failure", statuscode: 997, message: "" }, data: [] } } })
    await expect(fetchProfile(config, failing.fetch, { user_id: "frank" })).rejects.toThrow(/997/)
  })
})

describe("netsuite", () => {
  const whoami = { id: 3, name: "Ada Lovelace", email: "ada@example.com", location: 1, role: 3, roleId: "administrator", roleCenter: "BASIC", subsidiary: 1, department: 0, contact: 0 }

  it("uses the account-specific domains, the default scopes, the prompt, and your RESTlet as userinfo", () => {
    const restlet = "https://1234567-sb1.restlets.api.netsuite.com/app/site/hosting/restlet.nl?script=customscript_whoami&deploy=1"
    const options = { accountID: "1234567_SB1", prompt: "login", userinfo: restlet }
    const config = NetSuite(options)
    expectPreset(config, "netsuite", "NetSuite", "oauth", options)
    expect(url(config.authorization)).toBe("https://1234567-sb1.app.netsuite.com/app/login/oauth2/authorize.nl")
    expect(paramsOf(config.authorization)).toEqual({ scope: "restlets rest_webservices", prompt: "login" })
    expect(url(config.token)).toBe("https://1234567-sb1.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token")
    // userinfo is the app's RESTlet: it arrives through the options merge.
    expect(config.userinfo).toBeUndefined()
    expect(netSuiteHost("TSTDRV1234567")).toBe("tstdrv1234567")
  })

  it("maps runtime.getCurrentUser()", async () => {
    expect(await mapped(NetSuite({ accountID: "TSTDRV1234567" }), whoami)).toEqual({ id: "3", name: "Ada Lovelace", email: "ada@example.com", image: null })
  })
})

describe("line", () => {
  it("is OIDC at access.line.me, asks for ES256 ID tokens, openid profile, and client_secret_post", () => {
    const options = {}
    const config = Line(options)
    expectPreset(config, "line", "LINE", "oidc", options)
    expect(config.issuer).toBe("https://access.line.me")
    expect(scopeOf(config)).toBe("openid profile")
    expect(paramsOf(config.token)).toEqual({ id_token_key_type: "JWK" })
    expect(config.client?.token_endpoint_auth_method).toBe("client_secret_post")
  })

  it("maps the ID token; email only with the email permission", async () => {
    const claims = { iss: "https://access.line.me", sub: lineUser.sub, aud: "1656543210", exp: 1700003600, iat: 1700000000, nonce: "n", amr: ["pwd"], name: "Taro Line", picture: lineUser.picture }
    expect(await mapped(Line(), claims)).toEqual({ id: lineUser.sub, name: "Taro Line", email: null, image: lineUser.picture })
    expect((await mapped(Line(), { ...claims, email: "taro@example.com" })).email).toBe("taro@example.com")
  })
})

// ---------------------------------------------------------------------------------------------
// Flows: Auth() from the sign-in POST to a session, against the local stand-ins

describe("flows against provider-shaped local servers", () => {
  let server: StandIn
  beforeAll(async () => {
    server = await startStandIn()
  })
  afterAll(() => server.close())
  beforeEach(() => {
    server.seen.length = 0
  })

  /** Signs in through the stand-in: start, the provider's authorize redirect, the callback. */
  async function signIn(browser: Browser, id: string, rerouteFront: boolean) {
    const authorize = location(await startSignIn(browser, id, { callbackUrl: "/dashboard" }))
    const atProvider = await fetch(rerouteFront ? server.frontChannel(authorize) : authorize, { redirect: "manual" })
    expect(atProvider.status).toBe(302)
    const callback = new URL(atProvider.headers.get("location")!)
    const done = await browser.request(callback.pathname + callback.search)
    return { authorize, done }
  }

  function tokensRecorder() {
    const seen: { sub?: string; account: any; profile: any }[] = []
    const callbacks: AuthConfig["callbacks"] = {
      jwt({ token, account, profile, trigger }) {
        if (trigger === "signIn" || trigger === "signUp") seen.push({ sub: token.sub, account, profile })
        return token
      },
    }
    return { seen, callbacks }
  }

  it("LINE: OIDC discovery, ES256 ID token with nonce, client_secret_post, profile from the ID token", async () => {
    const line = await installLine(server)
    const { seen, callbacks } = tokensRecorder()
    const config: AuthConfig = { secret: SECRET, trustHost: true, callbacks, [customFetch]: server.reroute, providers: [Line({ clientId: line.channelId, clientSecret: line.channelSecret })] }
    const browser = new Browser(direct(config))
    const { authorize, done } = await signIn(browser, "line", true)
    expect(authorize.origin + authorize.pathname).toBe("https://access.line.me/oauth2/v2.1/authorize")
    expect(authorize.searchParams.get("scope")).toBe("openid profile")
    expect(authorize.searchParams.get("nonce")).toBeTruthy()
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256")
    expect(done.headers.get("location")).toBe("http://localhost:3000/dashboard")
    for (const name of checkCookies) expect(browser.jar.has(name)).toBe(false)

    expect((await browser.session()).user).toEqual({ name: "Taro Line", email: null, image: lineUser.picture })
    const token = server.seen.find((r) => r.route === "api.line.me/oauth2/v2.1/token")!
    expect(token.form.get("id_token_key_type")).toBe("JWK")
    expect(token.headers.authorization).toBeUndefined()
    expect(token.form.get("client_secret")).toBe(line.channelSecret)
    expect(server.seen.some((r) => r.route === "api.line.me/oauth2/v2.1/certs")).toBe(true)
    expect(seen).toEqual([{ sub: `line:${lineUser.sub}`, profile: expect.objectContaining({ sub: lineUser.sub, iss: "https://access.line.me" }), account: expect.objectContaining({ provider: "line", type: "oidc", providerAccountId: lineUser.sub, id_token: expect.any(String) }) }])
  })

  it("LINE: without id_token_key_type=JWK the web-login HS256 ID token is refused", async () => {
    const line = await installLine(server)
    const log = captureLogger()
    const provider = Line({ clientId: line.channelId, clientSecret: line.channelSecret })
    // What a LINE preset without the parameter would send (the options merge cannot remove it).
    ;(provider as any).token = { params: {} }
    const config: AuthConfig = { secret: SECRET, trustHost: true, logger: log.logger, [customFetch]: server.reroute, providers: [provider] }
    const browser = new Browser(direct(config))
    const { done } = await signIn(browser, "line", true)
    expect(redirectOf(done)).toMatchObject({ path: "/auth/signin", error: "OAuthCallbackError" })
    expect(await browser.session()).toBeNull()
    const token = server.seen.find((r) => r.route === "api.line.me/oauth2/v2.1/token")!
    expect(token.form.has("id_token_key_type")).toBe(false)
    expect(log.lines.join("\n")).toMatch(/unexpected JWT .{0,2}alg/)
  })

  it("Mail.ru: a token answer without token_type, /userinfo with the token in the query", async () => {
    const mailru = installMailRu(server)
    const adapter = MemoryAdapter()
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, [customFetch]: server.reroute, providers: [MailRu({ clientId: mailru.clientId, clientSecret: mailru.clientSecret })] }
    const browser = new Browser(direct(config))
    const { authorize, done } = await signIn(browser, "mailru", true)
    expect(authorize.origin + authorize.pathname).toBe("https://oauth.mail.ru/login")
    expect(authorize.searchParams.get("scope")).toBe("userinfo")
    expect(done.headers.get("location")).toBe("http://localhost:3000/dashboard")
    expect((await browser.session()).user).toMatchObject({ name: "Ivan Petrov", email: "ivan.petrov@mail.ru", image: mailRuUser.image })

    const userinfo = server.seen.find((r) => r.route === "oauth.mail.ru/userinfo")!
    expect(mailru.tokens.has(userinfo.query.get("access_token")!)).toBe(true)
    const account = await adapter.getAccount!(mailRuUser.id, "mailru")
    // token_type was added by the preset, lower case as the core stores it.
    expect(account).toMatchObject({ type: "oauth", token_type: "bearer", refresh_token: "mailru-rt" })
  })

  it("HubSpot: no userinfo endpoint; the profile is the access token's metadata", async () => {
    const hubspot = installHubSpot(server)
    const { seen, callbacks } = tokensRecorder()
    const config: AuthConfig = { secret: SECRET, trustHost: true, callbacks, [customFetch]: server.reroute, providers: [HubSpot({ clientId: hubspot.clientId, clientSecret: hubspot.clientSecret })] }
    const browser = new Browser(direct(config))
    const { authorize, done } = await signIn(browser, "hubspot", true)
    expect(authorize.origin + authorize.pathname).toBe("https://app.hubspot.com/oauth/authorize")
    expect(authorize.searchParams.get("scope")).toBe("oauth")
    expect(done.headers.get("location")).toBe("http://localhost:3000/dashboard")
    expect((await browser.session()).user).toEqual({ name: "Ada@Example.com", email: "ada@example.com", image: null })

    const token = server.seen.find((r) => r.route === "api.hubapi.com/oauth/v1/token")!
    expect(token.form.get("client_secret")).toBe(hubspot.clientSecret)
    const info = server.seen.find((r) => r.route.startsWith("api.hubapi.com/oauth/v1/access-tokens/"))!
    expect(info.method).toBe("GET")
    expect(seen[0]).toMatchObject({ sub: "hubspot:9876543", account: { providerAccountId: "9876543", token_type: "bearer", expires_at: expect.any(Number) } })
  })

  it("HubSpot: a refused code is OAuthCallbackError", async () => {
    const hubspot = installHubSpot(server)
    const config: AuthConfig = { secret: SECRET, trustHost: true, [customFetch]: server.reroute, providers: [HubSpot({ clientId: hubspot.clientId, clientSecret: hubspot.clientSecret })] }
    const browser = new Browser(direct(config))
    const authorize = location(await startSignIn(browser, "hubspot"))
    const callback = new URL((await fetch(server.frontChannel(authorize), { redirect: "manual" })).headers.get("location")!)
    callback.searchParams.set("code", "not-a-code")
    expect((await browser.request(callback.pathname + callback.search)).headers.get("location")).toBe("http://localhost:3000/auth/signin?error=OAuthCallbackError")
  })

  it("Mastodon: the instance URL option points every endpoint at that instance", async () => {
    const mastodon = installMastodon(server)
    const { seen, callbacks } = tokensRecorder()
    const config: AuthConfig = {
      secret: SECRET, trustHost: true, callbacks,
      providers: [Mastodon({ issuer: server.origin, clientId: mastodon.clientId, clientSecret: mastodon.clientSecret, allowInsecureLoopback: true })],
    }
    const browser = new Browser(direct(config))
    const { authorize, done } = await signIn(browser, "mastodon", false)
    expect(authorize.origin + authorize.pathname).toBe(`${server.origin}/oauth/authorize`)
    expect(authorize.searchParams.get("scope")).toBe("read")
    expect(done.headers.get("location")).toBe("http://localhost:3000/dashboard")
    expect((await browser.session()).user).toEqual({ name: "ada", email: null, image: mastodonAccount.avatar_static })
    const token = server.seen.find((r) => r.route === "oauth/token")!
    expect(token.headers.authorization).toMatch(/^Basic /)
    expect(token.form.get("code_verifier")).toBeTruthy()
    expect(seen[0]).toMatchObject({ sub: `mastodon:${mastodonAccount.id}`, account: { scope: "read", token_type: "bearer" } })
  })
})

// ---------------------------------------------------------------------------------------------
// Email senders: Loops and Mailgun against the local stand-in

describe("email senders against a local stand-in for their APIs", () => {
  let server: StandIn
  beforeAll(async () => {
    server = await startStandIn()
  })
  afterAll(() => server.close())
  beforeEach(() => {
    server.seen.length = 0
    server.routes.clear()
  })
  afterEach(() => {
    vi.unstubAllEnvs()
  })

  function configFor(provider: any) {
    const log = captureLogger()
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter: MemoryAdapter(), providers: [provider], logger: log.logger, [customFetch]: server.reroute }
    return { log, browser: newBrowser(direct(config)) }
  }

  describe("loops", () => {
    beforeEach(() => {
      server.routes.set("app.loops.so/api/v1/transactional", (req, res) => {
        if (req.headers.authorization !== "Bearer loops_key") return json(res, 401, { success: false, message: "Invalid API key" })
        const body = JSON.parse(req.text)
        if (body.transactionalId !== "clx1234abc") return json(res, 404, { success: false, message: "Transactional email not found" })
        json(res, 200, { success: true })
      })
    })

    it("is an email provider named loops", () => {
      const provider = Loops({ transactionalId: "clx1234abc" })
      expect(provider).toMatchObject({ id: "loops", name: "Loops", type: "email" })
    })

    it("posts transactionalId, email and the link as dataVariables.url; the link signs in", async () => {
      const { browser } = configFor(Loops({ apiKey: "loops_key", transactionalId: "clx1234abc" }))
      const sent = await requestLink(browser, "Loop.User@Example.com", {}, "loops")
      expect(sent.headers.get("location")).toBe("http://localhost:3000/auth/verify-request?provider=loops&type=email")
      expect(server.seen).toHaveLength(1)
      const request = server.seen[0]!
      expect(request.method).toBe("POST")
      expect(request.headers["content-type"]).toBe("application/json")
      const body = JSON.parse(request.text)
      expect(Object.keys(body).sort()).toEqual(["dataVariables", "email", "transactionalId"])
      expect(body).toMatchObject({ transactionalId: "clx1234abc", email: "loop.user@example.com" })
      await openLink(browser, extractLink(body.dataVariables.url))
      expect((await browser.session()).user.email).toBe("loop.user@example.com")
    })

    it("reads AUTH_LOOPS_KEY and AUTH_LOOPS_TRANSACTIONAL_ID", async () => {
      vi.stubEnv("AUTH_LOOPS_KEY", "loops_key")
      vi.stubEnv("AUTH_LOOPS_TRANSACTIONAL_ID", "clx1234abc")
      const { browser } = configFor(Loops())
      expect((await requestLink(browser, "env@example.com", {}, "loops")).headers.get("location")).toContain("/auth/verify-request")
      expect(server.seen).toHaveLength(1)
    })

    it("no transactional id, or an API refusal: EmailSignin", async () => {
      const missing = configFor(Loops({ apiKey: "loops_key" }))
      expect(redirectOf(await requestLink(missing.browser, "a@example.com", {}, "loops")).error).toBe("EmailSignin")
      expect(server.seen).toHaveLength(0)
      expect(missing.log.lines.join("\n")).toContain("AUTH_LOOPS_TRANSACTIONAL_ID")
      const refused = configFor(Loops({ apiKey: "loops_key", transactionalId: "unknown" }))
      expect(redirectOf(await requestLink(refused.browser, "a@example.com", {}, "loops")).error).toBe("EmailSignin")
      expect(refused.log.lines.join("\n")).toContain("Loops answered 404")
    })
  })

  describe("mailgun", () => {
    beforeEach(() => {
      const handler = (req: any, res: any) => {
        if (req.headers.authorization !== `Basic ${Buffer.from("api:key-mailgun").toString("base64")}`) return json(res, 401, { message: "Invalid private key" })
        json(res, 200, { id: "<20240101000000.1.ABC@mg.example.com>", message: "Queued. Thank you." })
      }
      server.routes.set("api.mailgun.net/v3/mg.example.com/messages", handler)
      server.routes.set("api.eu.mailgun.net/v3/mg.example.com/messages", handler)
      server.routes.set("api.mailgun.net/v3/other.example.com/messages", handler)
    })

    it("posts the documented form with Basic api:<key>, click tracking off; the link signs in", async () => {
      const { browser } = configFor(Mailgun({ apiKey: "key-mailgun", from: "Example <no-reply@mg.example.com>" }))
      const sent = await requestLink(browser, "Gun.User@Example.com", {}, "mailgun")
      expect(sent.headers.get("location")).toBe("http://localhost:3000/auth/verify-request?provider=mailgun&type=email")
      const request = server.seen[0]!
      expect(request.route).toBe("api.mailgun.net/v3/mg.example.com/messages")
      expect(request.method).toBe("POST")
      expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded")
      expect(request.form.get("from")).toBe("Example <no-reply@mg.example.com>")
      expect(request.form.get("to")).toBe("gun.user@example.com")
      expect(request.form.get("subject")).toBe("Sign in to localhost:3000")
      expect(request.form.get("o:tracking-clicks")).toBe("no")
      expect(request.form.get("html")).toContain("Sign in</a>")
      await openLink(browser, extractLink(request.form.get("text")!))
      expect((await browser.session()).user.email).toBe("gun.user@example.com")
    })

    it("region EU and an explicit domain move the request; AUTH_MAILGUN_KEY is read", async () => {
      vi.stubEnv("AUTH_MAILGUN_KEY", "key-mailgun")
      const eu = configFor(Mailgun({ from: "no-reply@mg.example.com", region: "EU" }))
      await requestLink(eu.browser, "eu@example.com", {}, "mailgun")
      expect(server.seen.at(-1)!.route).toBe("api.eu.mailgun.net/v3/mg.example.com/messages")
      const other = configFor(Mailgun({ from: "no-reply@mg.example.com", domain: "other.example.com" }))
      await requestLink(other.browser, "d@example.com", {}, "mailgun")
      expect(server.seen.at(-1)!.route).toBe("api.mailgun.net/v3/other.example.com/messages")
    })

    it("a refused key: EmailSignin, logged without the token", async () => {
      const { browser, log } = configFor(Mailgun({ apiKey: "wrong", from: "no-reply@mg.example.com" }))
      expect(redirectOf(await requestLink(browser, "x@example.com", {}, "mailgun")).error).toBe("EmailSignin")
      const token = new URL(extractLink(server.seen[0]!.form.get("text")!)).searchParams.get("token")!
      const logged = log.lines.join("\n")
      expect(logged).toContain("Mailgun answered 401")
      expect(logged).not.toContain(token)
    })
  })
})
