/**
 * OAuth/OIDC presets: shape, endpoints, profile mapping, and the custom userinfo requests.
 *
 * The third-party APIs (GitHub, Bitbucket, X, Notion, Dropbox, Reddit…) cannot be reached
 * from the test environment, so the custom `userinfo.request` functions are run against a
 * fake `fetch` that serves canned JSON shaped like each provider's documented response. The
 * fake stands in for the real API; it checks the URL and the Authorization header each
 * request sends, and the global `fetch` is stubbed to fail so a preset that bypasses the
 * context's `fetch` (and with it the app's `customFetch`) is caught.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import * as presets from "@portcullis/core/providers/presets"
import Apple from "@portcullis/core/providers/apple"
import Atlassian from "@portcullis/core/providers/atlassian"
import Auth0 from "@portcullis/core/providers/auth0"
import Authentik from "@portcullis/core/providers/authentik"
import Bitbucket from "@portcullis/core/providers/bitbucket"
import Box from "@portcullis/core/providers/box"
import Cognito from "@portcullis/core/providers/cognito"
import Discord from "@portcullis/core/providers/discord"
import Dropbox from "@portcullis/core/providers/dropbox"
import Facebook from "@portcullis/core/providers/facebook"
import GitHub from "@portcullis/core/providers/github"
import GitLab from "@portcullis/core/providers/gitlab"
import Google from "@portcullis/core/providers/google"
import Kakao from "@portcullis/core/providers/kakao"
import Keycloak from "@portcullis/core/providers/keycloak"
import LinkedIn from "@portcullis/core/providers/linkedin"
import MicrosoftEntraID from "@portcullis/core/providers/microsoft-entra-id"
import Naver from "@portcullis/core/providers/naver"
import Notion from "@portcullis/core/providers/notion"
import Okta from "@portcullis/core/providers/okta"
import Patreon from "@portcullis/core/providers/patreon"
import Reddit from "@portcullis/core/providers/reddit"
import Slack from "@portcullis/core/providers/slack"
import Spotify from "@portcullis/core/providers/spotify"
import Strava from "@portcullis/core/providers/strava"
import Twitch from "@portcullis/core/providers/twitch"
import Twitter from "@portcullis/core/providers/twitter"
import WorkOS from "@portcullis/core/providers/workos"
import Zitadel from "@portcullis/core/providers/zitadel"
import Zoom from "@portcullis/core/providers/zoom"

type AnyConfig = OAuthConfig<any>
type Mapped = { id: string; name: string | null; email: string | null; image: string | null }

interface Case {
  factory: (options?: any) => AnyConfig
  id: string
  name: string
  type: "oauth" | "oidc"
  /** OIDC presets without a default issuer: the test passes this one in the options. */
  requiredIssuer?: string
  sample: Record<string, unknown>
  expected: Mapped
}

const cases: Case[] = [
  {
    factory: GitHub, id: "github", name: "GitHub", type: "oauth",
    sample: { id: 583231, login: "octocat", node_id: "MDQ6VXNlcjU4MzIzMQ==", name: "The Octocat", email: "octocat@github.com", avatar_url: "https://avatars.githubusercontent.com/u/583231?v=4", html_url: "https://github.com/octocat", type: "User" },
    expected: { id: "583231", name: "The Octocat", email: "octocat@github.com", image: "https://avatars.githubusercontent.com/u/583231?v=4" },
  },
  {
    factory: Google, id: "google", name: "Google", type: "oidc",
    sample: { iss: "https://accounts.google.com", azp: "id.apps.googleusercontent.com", aud: "id.apps.googleusercontent.com", sub: "110169484474386276334", email: "ada@example.com", email_verified: true, name: "Ada Lovelace", picture: "https://lh3.googleusercontent.com/a/ACg8ocK", given_name: "Ada", family_name: "Lovelace", iat: 1700000000, exp: 1700003600 },
    expected: { id: "110169484474386276334", name: "Ada Lovelace", email: "ada@example.com", image: "https://lh3.googleusercontent.com/a/ACg8ocK" },
  },
  {
    factory: Apple, id: "apple", name: "Apple", type: "oidc",
    sample: { iss: "https://appleid.apple.com", aud: "com.example.web", exp: 1700003600, iat: 1700000000, sub: "001234.abcdef0123456789abcdef0123456789.1234", email: "x7k2@privaterelay.appleid.com", email_verified: "true", is_private_email: "true", real_user_status: 2, user: { name: { firstName: "Ada", lastName: "Lovelace" }, email: "x7k2@privaterelay.appleid.com" } },
    expected: { id: "001234.abcdef0123456789abcdef0123456789.1234", name: "Ada Lovelace", email: "x7k2@privaterelay.appleid.com", image: null },
  },
  {
    factory: MicrosoftEntraID, id: "microsoft-entra-id", name: "Microsoft Entra ID", type: "oidc",
    sample: { ver: "2.0", iss: "https://login.microsoftonline.com/9122040d-6c67-4c5b-b112-36a304b66dad/v2.0", aud: "6cb04018-a3f5-46a7-b995-940c78f5aef3", sub: "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ", oid: "00000000-0000-0000-66f3-3332eca7ea81", tid: "9122040d-6c67-4c5b-b112-36a304b66dad", name: "Ada Lovelace", preferred_username: "ada@contoso.onmicrosoft.com", email: "ada@contoso.com" },
    expected: { id: "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ", name: "Ada Lovelace", email: "ada@contoso.com", image: null },
  },
  {
    factory: Discord, id: "discord", name: "Discord", type: "oauth",
    sample: { id: "80351110224678912", username: "nelly", discriminator: "0", global_name: "Nelly", avatar: "8342729096ea3675442027381ff50dfe", verified: true, email: "nelly@discord.com", mfa_enabled: false, locale: "en-US" },
    expected: { id: "80351110224678912", name: "Nelly", email: "nelly@discord.com", image: "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png" },
  },
  {
    factory: GitLab, id: "gitlab", name: "GitLab", type: "oauth",
    sample: { id: 1, username: "john_smith", name: "John Smith", state: "active", avatar_url: "https://gitlab.com/uploads/-/system/user/avatar/1/cd8.jpeg", web_url: "https://gitlab.com/john_smith", email: "john@example.com", public_email: "" },
    expected: { id: "1", name: "John Smith", email: "john@example.com", image: "https://gitlab.com/uploads/-/system/user/avatar/1/cd8.jpeg" },
  },
  {
    factory: Facebook, id: "facebook", name: "Facebook", type: "oauth",
    sample: { id: "10224242424242424", name: "Ada Lovelace", email: "ada@example.com", picture: { data: { height: 50, width: 50, is_silhouette: false, url: "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10224242424242424" } } },
    expected: { id: "10224242424242424", name: "Ada Lovelace", email: "ada@example.com", image: "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10224242424242424" },
  },
  {
    factory: Twitter, id: "twitter", name: "X", type: "oauth",
    sample: { data: { id: "2244994945", name: "X Developers", username: "XDevelopers", profile_image_url: "https://pbs.twimg.com/profile_images/1683325380441128960/yRsRRjGO_normal.jpg" } },
    expected: { id: "2244994945", name: "X Developers", email: null, image: "https://pbs.twimg.com/profile_images/1683325380441128960/yRsRRjGO_normal.jpg" },
  },
  {
    factory: LinkedIn, id: "linkedin", name: "LinkedIn", type: "oidc",
    sample: { sub: "782bbtaQ", name: "John Doe", given_name: "John", family_name: "Doe", picture: "https://media.licdn.com/dms/image/C5F03AQHqK8v7tB1HCQ/profile-displayphoto-shrink_100_100/0/", locale: { country: "US", language: "en" }, email: "doe@email.com", email_verified: true },
    expected: { id: "782bbtaQ", name: "John Doe", email: "doe@email.com", image: "https://media.licdn.com/dms/image/C5F03AQHqK8v7tB1HCQ/profile-displayphoto-shrink_100_100/0/" },
  },
  {
    factory: Slack, id: "slack", name: "Slack", type: "oidc",
    sample: { iss: "https://slack.com", sub: "U0R7JM", aud: "25259531569.1115258246291", "https://slack.com/user_id": "U0R7JM", "https://slack.com/team_id": "T0R7GR", email: "krane@slack-corp.com", email_verified: true, name: "krane", picture: "https://secure.gravatar.com/avatar/bc.png", given_name: "Bront", family_name: "Labradoodle", locale: "en-US", "https://slack.com/team_name": "kraneflannel" },
    expected: { id: "U0R7JM", name: "krane", email: "krane@slack-corp.com", image: "https://secure.gravatar.com/avatar/bc.png" },
  },
  {
    factory: Twitch, id: "twitch", name: "Twitch", type: "oidc",
    sample: { iss: "https://id.twitch.tv/oauth2", sub: "713936733", aud: "hof5gwx0su6owfnys0yan9c87zr6t", azp: "hof5gwx0su6owfnys0yan9c87zr6t", preferred_username: "ada_plays", email: "ada@example.com", email_verified: true, picture: "https://static-cdn.jtvnw.net/jtv_user_pictures/abc-profile_image-300x300.png" },
    expected: { id: "713936733", name: "ada_plays", email: "ada@example.com", image: "https://static-cdn.jtvnw.net/jtv_user_pictures/abc-profile_image-300x300.png" },
  },
  {
    factory: Spotify, id: "spotify", name: "Spotify", type: "oauth",
    sample: { id: "wizzler", display_name: "JM Wizzler", email: "email@example.com", images: [{ url: "https://i.scdn.co/image/ab6775700000ee85", height: 300, width: 300 }], country: "SE", product: "premium", uri: "spotify:user:wizzler" },
    expected: { id: "wizzler", name: "JM Wizzler", email: "email@example.com", image: "https://i.scdn.co/image/ab6775700000ee85" },
  },
  {
    factory: Reddit, id: "reddit", name: "Reddit", type: "oauth",
    sample: { id: "1w72", name: "spez", icon_img: "https://styles.redditmedia.com/t5_3k30p/styles/profileIcon_snoo.png?width=256&amp;height=256&amp;s=abc", has_verified_email: true, created_utc: 1118030400 },
    expected: { id: "1w72", name: "spez", email: null, image: "https://styles.redditmedia.com/t5_3k30p/styles/profileIcon_snoo.png?width=256&height=256&s=abc" },
  },
  {
    factory: Auth0, id: "auth0", name: "Auth0", type: "oidc", requiredIssuer: "https://example.us.auth0.com/",
    sample: { sub: "auth0|64f1c2d3e4f5a6b7c8d9e0f1", name: "ada@example.com", nickname: "ada", picture: "https://s.gravatar.com/avatar/abc.png", email: "ada@example.com", email_verified: true, updated_at: "2024-01-01T00:00:00.000Z" },
    expected: { id: "auth0|64f1c2d3e4f5a6b7c8d9e0f1", name: "ada@example.com", email: "ada@example.com", image: "https://s.gravatar.com/avatar/abc.png" },
  },
  {
    factory: Okta, id: "okta", name: "Okta", type: "oidc", requiredIssuer: "https://example.okta.com/oauth2/default",
    sample: { sub: "00uid4BxXw6I6TV4m0g3", name: "John Doe", preferred_username: "john.doe@example.com", email: "john.doe@example.com", email_verified: true, given_name: "John", family_name: "Doe", zoneinfo: "America/Los_Angeles", locale: "en-US" },
    expected: { id: "00uid4BxXw6I6TV4m0g3", name: "John Doe", email: "john.doe@example.com", image: null },
  },
  {
    factory: Keycloak, id: "keycloak", name: "Keycloak", type: "oidc", requiredIssuer: "https://sso.example.com/realms/main",
    sample: { sub: "f5f2b9a4-2c3e-4d1b-9a8e-7c6b5a4d3e2f", email_verified: true, preferred_username: "ada", given_name: "Ada", family_name: "Lovelace", email: "ada@example.com" },
    expected: { id: "f5f2b9a4-2c3e-4d1b-9a8e-7c6b5a4d3e2f", name: "ada", email: "ada@example.com", image: null },
  },
  {
    factory: Cognito, id: "cognito", name: "Cognito", type: "oidc", requiredIssuer: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123",
    sample: { sub: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", "cognito:username": "ada", "cognito:groups": ["admins"], email: "ada@example.com", email_verified: true },
    expected: { id: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", name: "ada", email: "ada@example.com", image: null },
  },
  {
    factory: Zitadel, id: "zitadel", name: "ZITADEL", type: "oidc", requiredIssuer: "https://example-abc123.zitadel.cloud",
    sample: { sub: "276488442329431302", name: "Ada Lovelace", given_name: "Ada", family_name: "Lovelace", preferred_username: "ada@example.com", email: "ada@example.com", email_verified: true, picture: "https://example-abc123.zitadel.cloud/assets/v1/avatar.png", locale: "en", updated_at: 1700000000 },
    expected: { id: "276488442329431302", name: "Ada Lovelace", email: "ada@example.com", image: "https://example-abc123.zitadel.cloud/assets/v1/avatar.png" },
  },
  {
    factory: Authentik, id: "authentik", name: "authentik", type: "oidc", requiredIssuer: "https://auth.example.com/application/o/my-app/",
    sample: { sub: "3b2a1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b", email: "ada@example.com", email_verified: true, name: "Ada Lovelace", given_name: "Ada Lovelace", preferred_username: "ada", nickname: "ada", groups: ["authentik Admins"] },
    expected: { id: "3b2a1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b", name: "Ada Lovelace", email: "ada@example.com", image: null },
  },
  {
    factory: Bitbucket, id: "bitbucket", name: "Bitbucket", type: "oauth",
    sample: { uuid: "{d301aafa-d676-4ee0-88be-962be7417567}", account_id: "557058:c0b72ad0-1cb5-4018-9cdc-0cde8492c443", display_name: "Ada Lovelace", nickname: "ada", links: { avatar: { href: "https://secure.gravatar.com/avatar/ada.png" } }, email: "ada@example.com" },
    expected: { id: "{d301aafa-d676-4ee0-88be-962be7417567}", name: "Ada Lovelace", email: "ada@example.com", image: "https://secure.gravatar.com/avatar/ada.png" },
  },
  {
    factory: Dropbox, id: "dropbox", name: "Dropbox", type: "oauth",
    sample: { account_id: "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc", name: { given_name: "Franz", surname: "Ferdinand", familiar_name: "Franz", display_name: "Franz Ferdinand (Personal)", abbreviated_name: "FF" }, email: "franz@dropbox.com", email_verified: true, disabled: false, profile_photo_url: "https://dl-web.dropbox.com/account_photo/get/dbaphid%3AAAHWGmIXV3sUuOmBfTz0wPsiqHUpBWvv3ZA?vers=1556069330102", locale: "en", country: "US" },
    expected: { id: "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc", name: "Franz Ferdinand (Personal)", email: "franz@dropbox.com", image: "https://dl-web.dropbox.com/account_photo/get/dbaphid%3AAAHWGmIXV3sUuOmBfTz0wPsiqHUpBWvv3ZA?vers=1556069330102" },
  },
  {
    factory: Strava, id: "strava", name: "Strava", type: "oauth",
    sample: { id: 1234567890987654400, username: "marianne_t", firstname: "Marianne", lastname: "Teutenberg", city: "San Francisco", country: "US", premium: true, profile: "https://dgalywyr863hv.cloudfront.net/pictures/athletes/large.jpg", profile_medium: "https://dgalywyr863hv.cloudfront.net/pictures/athletes/medium.jpg" },
    expected: { id: "1234567890987654400", name: "Marianne Teutenberg", email: null, image: "https://dgalywyr863hv.cloudfront.net/pictures/athletes/large.jpg" },
  },
  {
    factory: Notion, id: "notion", name: "Notion", type: "oauth",
    sample: { object: "user", id: "5389a034-eb5c-47b5-8a9e-f79c99ef166c", name: "christine makenotion", avatar_url: null, type: "person", person: { email: "christine@makenotion.com" } },
    expected: { id: "5389a034-eb5c-47b5-8a9e-f79c99ef166c", name: "christine makenotion", email: "christine@makenotion.com", image: null },
  },
  {
    factory: Zoom, id: "zoom", name: "Zoom", type: "oauth",
    sample: { id: "KDcuGIm1QgePTO8WbOqwIQ", first_name: "Jill", last_name: "Chill", display_name: "Jill Chill", email: "jchill@example.com", type: 1, pic_url: "https://example.com/photo.jpg", account_id: "q6gBJVO5TzexKYTb_I2rpg", timezone: "Asia/Shanghai", verified: 1, language: "en-US", status: "active" },
    expected: { id: "KDcuGIm1QgePTO8WbOqwIQ", name: "Jill Chill", email: "jchill@example.com", image: "https://example.com/photo.jpg" },
  },
  {
    factory: Atlassian, id: "atlassian", name: "Atlassian", type: "oauth",
    sample: { account_type: "atlassian", account_id: "112233aa-bb11-cc22-33dd-445566abcabc", email: "mia@example.com", name: "Mia Krystof", picture: "https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/112233aa/1234abcd.png", account_status: "active", nickname: "mkrystof", zoneinfo: "Australia/Sydney", locale: "en-US", extended_profile: { job_title: "Designer" } },
    expected: { id: "112233aa-bb11-cc22-33dd-445566abcabc", name: "Mia Krystof", email: "mia@example.com", image: "https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/112233aa/1234abcd.png" },
  },
  {
    factory: Patreon, id: "patreon", name: "Patreon", type: "oauth",
    sample: { data: { id: "12345678", type: "user", attributes: { email: "corgi@example.com", full_name: "Corgi The Dev", image_url: "https://c8.patreon.com/2/200/12345678", is_email_verified: true } }, links: { self: "https://www.patreon.com/api/oauth2/v2/user/12345678" } },
    expected: { id: "12345678", name: "Corgi The Dev", email: "corgi@example.com", image: "https://c8.patreon.com/2/200/12345678" },
  },
  {
    factory: Box, id: "box", name: "Box", type: "oauth",
    sample: { type: "user", id: "11446498", name: "Aaron Levie", login: "ceo@example.com", avatar_url: "https://www.box.com/api/avatar/large/181216415", language: "en", timezone: "Africa/Bujumbura", status: "active" },
    expected: { id: "11446498", name: "Aaron Levie", email: "ceo@example.com", image: "https://www.box.com/api/avatar/large/181216415" },
  },
  {
    factory: Kakao, id: "kakao", name: "Kakao", type: "oauth",
    sample: { id: 123456789, connected_at: "2022-04-11T01:45:28Z", properties: { nickname: "홍길동" }, kakao_account: { profile: { nickname: "홍길동", profile_image_url: "http://yyy.kakao.com/dn/.../img_640x640.jpg", thumbnail_image_url: "http://yyy.kakao.com/dn/.../img_110x110.jpg", is_default_image: false }, email: "sample@sample.com", is_email_valid: true, is_email_verified: true } },
    expected: { id: "123456789", name: "홍길동", email: "sample@sample.com", image: "http://yyy.kakao.com/dn/.../img_640x640.jpg" },
  },
  {
    factory: Naver, id: "naver", name: "Naver", type: "oauth",
    sample: { resultcode: "00", message: "success", response: { id: "32742776", nickname: "OpenAPI", name: "오픈 API", email: "openapi@naver.com", gender: "F", age: "40-49", birthday: "10-01", profile_image: "https://ssl.pstatic.net/static/pwe/address/nodata_33x33.gif" } },
    expected: { id: "32742776", name: "오픈 API", email: "openapi@naver.com", image: "https://ssl.pstatic.net/static/pwe/address/nodata_33x33.gif" },
  },
  {
    factory: WorkOS, id: "workos", name: "WorkOS", type: "oauth",
    sample: { object: "profile", id: "prof_01DMC79VCBZ0NY2099737PSVF1", connection_id: "conn_01E4ZCR3C56J083X43JQXF3JK5", connection_type: "OktaSAML", organization_id: "org_01EHWNCE74X7JSDV0X3SZ3KJNY", email: "todd@example.com", first_name: "Todd", last_name: "Rundgren", idp_id: "00u1a0ufowBJlzPlk357", raw_attributes: {} },
    expected: { id: "prof_01DMC79VCBZ0NY2099737PSVF1", name: "Todd Rundgren", email: "todd@example.com", image: null },
  },
]

/** Every URL a config names: endpoints (string or `{ url }`), issuer, discovery URL. */
function urlsOf(config: AnyConfig): string[] {
  const url = (e: unknown) => (typeof e === "string" ? e : (e as { url?: string } | undefined)?.url)
  return [url(config.authorization), url(config.token), url(config.userinfo), config.issuer, config.wellKnown].filter(
    (u): u is string => typeof u === "string",
  )
}

describe("presets", () => {
  it("presets.ts exports every OAuth/OIDC preset module by name; the first 30 are covered here, the rest in test/providers/", () => {
    expect(new Set(cases.map((c) => c.id)).size).toBe(30)
    const exported = Object.values(presets) as Array<(o?: any) => AnyConfig>
    const dir = fileURLToPath(new URL("../src/providers/", import.meta.url))
    const oauthModules = readdirSync(dir).filter((f) => f.endsWith(".ts") && /type: "(oauth|oidc)"/.test(readFileSync(join(dir, f), "utf8")) && f !== "oauth.ts")
    expect(exported).toHaveLength(oauthModules.length)
    for (const c of cases) expect(exported).toContain(c.factory)
  })

  describe.each(cases)("$id", (c) => {
    const options = { clientId: "id", clientSecret: "secret", ...(c.requiredIssuer ? { issuer: c.requiredIssuer } : {}) }
    const config = c.factory(options)

    it("has its id, name and kind, and returns the user's options untouched", () => {
      expect(config.id).toBe(c.id)
      expect(config.name).toBe(c.name)
      expect(config.type).toBe(c.type)
      expect(config.options).toBe(options)
      // The core merges options over the defaults; the preset must not have copied them in.
      expect(config.clientId).toBeUndefined()
      expect(config.clientSecret).toBeUndefined()
      expect(c.factory().options).toEqual({})
    })

    it("points only at https URLs", () => {
      const urls = urlsOf(config)
      if (c.requiredIssuer) {
        // No default issuer: it comes from options (or AUTH_<ID>_ISSUER, read by the core).
        expect(urls).toEqual([])
        expect(new URL(config.options!.issuer!).protocol).toBe("https:")
        return
      }
      expect(urls.length).toBeGreaterThan(0)
      for (const u of urls) expect(new URL(u).protocol, u).toBe("https:")
      if (c.type === "oidc") expect(config.issuer).toMatch(/^https:\/\//)
      else expect(urls).toHaveLength(3) // authorization, token, userinfo: no discovery for plain OAuth
    })

    it("maps a documented profile to a user with a stable string id", async () => {
      const user = await config.profile!(structuredClone(c.sample), {})
      expect(user).toEqual(c.expected)
      expect(typeof user.id).toBe("string")
    })

    it("has a sign-in button style", () => {
      expect(config.style?.bg).toMatch(/^#/)
      expect(config.style?.text).toMatch(/^#/)
    })
  })
})

describe("provider quirks", () => {
  it("Apple: form_post, name/email scope, nonce+state checks, client_secret_post", () => {
    const apple = Apple()
    expect(apple.issuer).toBe("https://appleid.apple.com")
    expect(apple.authorization).toEqual({ params: { scope: "name email", response_mode: "form_post" } })
    expect(apple.checks).toEqual(["nonce", "state"])
    expect(apple.client?.token_endpoint_auth_method).toBe("client_secret_post")
  })

  it("Apple: without the first-sign-in user field, name is null and the id token email is kept", async () => {
    const user = await Apple().profile!({ sub: "001.abc.1", email: "a@b.c", iss: "", aud: "", iat: 0, exp: 0 }, {})
    expect(user).toEqual({ id: "001.abc.1", name: null, email: "a@b.c", image: null })
  })

  it("Microsoft Entra ID: defaults to the common issuer; the user's issuer is left to the core's merge", () => {
    expect(MicrosoftEntraID().issuer).toBe("https://login.microsoftonline.com/common/v2.0")
    const tenant = { issuer: "https://login.microsoftonline.com/9122040d-6c67-4c5b-b112-36a304b66dad/v2.0" }
    expect(MicrosoftEntraID(tenant).options).toBe(tenant)
  })

  it("Microsoft Entra ID: never uses preferred_username as the email", async () => {
    const user = await MicrosoftEntraID().profile!({ sub: "s", oid: "o", tid: "t", ver: "2.0", iss: "", aud: "", preferred_username: "upn@contoso.com" }, {})
    expect(user.email).toBeNull()
  })

  it("LinkedIn: state only (no PKCE, no nonce) and client_secret_post", () => {
    const linkedin = LinkedIn()
    expect(linkedin.issuer).toBe("https://www.linkedin.com/oauth")
    expect(linkedin.checks).toEqual(["state"])
    expect(linkedin.client?.token_endpoint_auth_method).toBe("client_secret_post")
  })

  it("presets that need no special checks leave them to the core's defaults", () => {
    const special = new Set(["apple", "linkedin"])
    for (const c of cases) if (!special.has(c.id)) expect(c.factory().checks, c.id).toBeUndefined()
  })

  it("Discord: default avatars for unique usernames and legacy discriminators", async () => {
    const base = { id: "80351110224678912", username: "nelly", global_name: null, avatar: null }
    expect((await Discord().profile!({ ...base, discriminator: "0" }, {})).image).toBe("https://cdn.discordapp.com/embed/avatars/5.png")
    expect((await Discord().profile!({ ...base, discriminator: "1337" }, {})).image).toBe("https://cdn.discordapp.com/embed/avatars/2.png")
    expect((await Discord().profile!({ ...base, discriminator: "0", avatar: "a_1269e74af4df7417b13759eae50c83dc" }, {})).image).toBe(
      "https://cdn.discordapp.com/avatars/80351110224678912/a_1269e74af4df7417b13759eae50c83dc.gif",
    )
  })

  it("Kakao: drops an email Kakao has not verified", async () => {
    const user = await Kakao().profile!({ id: 1, kakao_account: { email: "x@y.z", is_email_valid: true, is_email_verified: false } }, {})
    expect(user.email).toBeNull()
  })

  it("Twitch: asks for claims in the ID token and turns the array scope into a string", async () => {
    const twitch = Twitch()
    const params = (twitch.authorization as { params: Record<string, string> }).params
    expect(JSON.parse(params.claims!)).toEqual({ id_token: { email: null, picture: null, preferred_username: null } })
    expect(twitch.client?.token_endpoint_auth_method).toBe("client_secret_post")

    const conform = (twitch.token as { conform: (r: Response) => Promise<Response | undefined> }).conform
    const body = { access_token: "at", id_token: "it", token_type: "bearer", scope: ["openid", "user:read:email"] }
    const fixed = await conform(Response.json(body))
    expect(await fixed!.json()).toEqual({ ...body, scope: "openid user:read:email" })
    expect(fixed!.headers.get("content-type")).toMatch(/json/)

    const conforming = Response.json({ ...body, scope: "openid" })
    expect(await conform(conforming)).toBe(conforming)
  })

  it("GitHub Enterprise Server: endpoints move to the instance", () => {
    const ghe = GitHub({ enterprise: { baseUrl: "https://github.example.com/" } })
    expect(urlsOf(ghe)).toEqual([
      "https://github.example.com/login/oauth/authorize",
      "https://github.example.com/login/oauth/access_token",
      "https://github.example.com/api/v3/user",
    ])
  })

  it("Notion: Basic client auth and owner=user", () => {
    const notion = Notion()
    expect(notion.client?.token_endpoint_auth_method).toBe("client_secret_basic")
    expect((notion.authorization as { params: Record<string, string> }).params.owner).toBe("user")
  })
})

// ---------------------------------------------------------------------------------------
// Custom userinfo requests, against a fake of each provider's API (see the header comment).

const TOKEN = "at-0123456789"

type Route = unknown | ((init: RequestInit | undefined) => Response)

/** A `fetch` serving canned JSON by URL; 404 for anything else. Checks the bearer token. */
function fakeApi(routes: Record<string, Route>) {
  const calls: Array<{ url: string; method: string; headers: Headers }> = []
  const fakeFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input)
    const headers = new Headers(init?.headers)
    calls.push({ url, method: init?.method ?? "GET", headers })
    expect(headers.get("authorization"), url).toBe(`Bearer ${TOKEN}`)
    if (!(url in routes)) return Response.json({ message: "Not Found" }, { status: 404 })
    const route = routes[url]
    return typeof route === "function" ? (route as (i?: RequestInit) => Response)(init) : Response.json(route)
  }) as typeof globalThis.fetch
  return { fetch: fakeFetch, calls }
}

/** Runs a preset's `userinfo.request` the way the core would, with the normalised provider. */
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

describe("custom userinfo requests (fake provider APIs)", () => {
  // Presets must use the context's fetch (customFetch); the global one is off-limits here.
  beforeEach(() => {
    vi.stubGlobal("fetch", () => {
      throw new Error("a preset used the global fetch instead of the context's fetch")
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  const octocat = { id: 583231, login: "octocat", name: null, email: null, avatar_url: "https://avatars.githubusercontent.com/u/583231?v=4" }

  it("GitHub: adds the primary verified email from /user/emails when /user has none", async () => {
    const api = fakeApi({
      "https://api.github.com/user": octocat,
      "https://api.github.com/user/emails": [
        { email: "old@example.com", primary: false, verified: true, visibility: null },
        { email: "unverified@example.com", primary: true, verified: false, visibility: "private" },
        { email: "octocat@github.com", primary: true, verified: true, visibility: "private" },
      ],
    })
    const profile = await fetchProfile(GitHub(), api.fetch)
    expect(profile).toMatchObject({ id: 583231, email: "octocat@github.com" })
    expect(api.calls.map((c) => c.url)).toEqual(["https://api.github.com/user", "https://api.github.com/user/emails"])
    expect(api.calls[0]!.headers.get("user-agent")).toBeTruthy()
    expect(await GitHub().profile!(profile as any, {})).toEqual({
      id: "583231", name: "octocat", email: "octocat@github.com", image: "https://avatars.githubusercontent.com/u/583231?v=4",
    })
  })

  it("GitHub: the primary email must also be verified", async () => {
    const api = fakeApi({
      "https://api.github.com/user": octocat,
      "https://api.github.com/user/emails": [{ email: "unverified@example.com", primary: true, verified: false, visibility: null }],
    })
    expect(await fetchProfile(GitHub(), api.fetch)).toMatchObject({ email: null })
  })

  it("GitHub: a public email skips /user/emails; a refused /user/emails leaves email null", async () => {
    const withEmail = fakeApi({ "https://api.github.com/user": { ...octocat, email: "public@example.com" } })
    expect(await fetchProfile(GitHub(), withEmail.fetch)).toMatchObject({ email: "public@example.com" })
    expect(withEmail.calls).toHaveLength(1)

    const refused = fakeApi({
      "https://api.github.com/user": octocat,
      "https://api.github.com/user/emails": () => Response.json({ message: "Forbidden" }, { status: 403 }),
    })
    expect(await fetchProfile(GitHub(), refused.fetch)).toMatchObject({ email: null })
  })

  it("GitHub: a failing /user is an error, not an empty profile", async () => {
    const api = fakeApi({ "https://api.github.com/user": () => new Response("bad credentials", { status: 401 }) })
    await expect(fetchProfile(GitHub(), api.fetch)).rejects.toThrow(/401/)
  })

  it("GitHub Enterprise Server: asks the instance's API", async () => {
    const api = fakeApi({
      "https://github.example.com/api/v3/user": { ...octocat, email: "o@example.com" },
    })
    await fetchProfile(GitHub({ enterprise: { baseUrl: "https://github.example.com" } }), api.fetch)
    expect(api.calls.map((c) => c.url)).toEqual(["https://github.example.com/api/v3/user"])
  })

  const bbUser = {
    uuid: "{d301aafa-d676-4ee0-88be-962be7417567}", account_id: "557058:c0b72ad0", display_name: "Ada Lovelace",
    links: { avatar: { href: "https://secure.gravatar.com/avatar/ada.png" } }, type: "user",
  }

  it("Bitbucket: adds the primary confirmed email from /user/emails", async () => {
    const api = fakeApi({
      "https://api.bitbucket.org/2.0/user": bbUser,
      "https://api.bitbucket.org/2.0/user/emails": {
        pagelen: 10, page: 1, size: 3,
        values: [
          { email: "second@example.com", is_primary: false, is_confirmed: true, type: "email" },
          { email: "ada@example.com", is_primary: true, is_confirmed: true, type: "email" },
        ],
      },
    })
    const profile = await fetchProfile(Bitbucket(), api.fetch)
    expect(profile).toMatchObject({ uuid: bbUser.uuid, email: "ada@example.com" })
    expect(api.calls.map((c) => c.url)).toEqual(["https://api.bitbucket.org/2.0/user", "https://api.bitbucket.org/2.0/user/emails"])
  })

  it("Bitbucket: no confirmed primary address, or no email permission, means no email", async () => {
    const unconfirmed = fakeApi({
      "https://api.bitbucket.org/2.0/user": bbUser,
      "https://api.bitbucket.org/2.0/user/emails": { values: [{ email: "ada@example.com", is_primary: true, is_confirmed: false, type: "email" }] },
    })
    expect(await fetchProfile(Bitbucket(), unconfirmed.fetch)).toMatchObject({ email: null })
    const refused = fakeApi({ "https://api.bitbucket.org/2.0/user": bbUser })
    expect(await fetchProfile(Bitbucket(), refused.fetch)).toMatchObject({ email: null })
  })

  it("X: reads /2/users/me with user.fields and keeps the documented { data } shape", async () => {
    const me = { data: { id: "2244994945", name: "X Developers", username: "XDevelopers", profile_image_url: "https://pbs.twimg.com/p.jpg" } }
    const api = fakeApi({ "https://api.x.com/2/users/me?user.fields=profile_image_url": me })
    expect(await fetchProfile(Twitter(), api.fetch)).toEqual(me)
  })

  it("X: follows an overridden userinfo URL (e.g. to ask for confirmed_email)", async () => {
    const url = "https://api.x.com/2/users/me?user.fields=profile_image_url,confirmed_email"
    const api = fakeApi({ [url]: { data: { id: "1", name: "A", username: "a", confirmed_email: "a@example.com" } } })
    const profile = await fetchProfile({ ...Twitter(), userinfo: { ...(Twitter().userinfo as object), url } }, api.fetch)
    expect(await Twitter().profile!(profile as any, {})).toMatchObject({ email: "a@example.com" })
  })

  const botUser = {
    object: "user", id: "16d84278-ab0e-484c-9bdd-b35da3bd8905", name: "pied piper", avatar_url: null, type: "bot",
    bot: { owner: { type: "user", user: { object: "user", id: "5389a034-eb5c-47b5-8a9e-f79c99ef166c", name: "christine makenotion", avatar_url: null, type: "person", person: { email: "christine@makenotion.com" } } } },
  }

  it("Notion: the profile is the owner user of the token's bot, asked with a Notion-Version", async () => {
    const api = fakeApi({ "https://api.notion.com/v1/users/me": botUser })
    const profile = await fetchProfile(Notion(), api.fetch)
    expect(profile).toEqual(botUser.bot.owner.user)
    expect(api.calls[0]!.headers.get("notion-version")).toMatch(/^\d{4}-\d{2}-\d{2}$/)
  })

  it("Notion: falls back to the token response's owner.user; refuses a workspace-owned bot", async () => {
    const workspaceBot = { ...botUser, bot: { owner: { type: "workspace", workspace: true } } }
    const api = fakeApi({ "https://api.notion.com/v1/users/me": workspaceBot })
    const owner = { object: "user", id: "u-1", name: "Owner", person: { email: "o@example.com" } }
    expect(await fetchProfile(Notion(), api.fetch, { owner: { type: "user", user: owner } })).toEqual(owner)
    await expect(fetchProfile(Notion(), api.fetch, { owner: { workspace: true } })).rejects.toThrow(/not owned by a user/)
  })

  it("Dropbox: POSTs get_current_account without a body", async () => {
    const account = { account_id: "dbid:AAH4f99", name: { display_name: "Franz Ferdinand" }, email: "franz@dropbox.com", email_verified: true }
    const api = fakeApi({ "https://api.dropboxapi.com/2/users/get_current_account": account })
    expect(await fetchProfile(Dropbox(), api.fetch)).toEqual(account)
    expect(api.calls[0]!.method).toBe("POST")
  })

  it("Reddit: sends a descriptive User-Agent", async () => {
    const me = { id: "1w72", name: "spez", icon_img: "https://styles.redditmedia.com/i.png" }
    const api = fakeApi({ "https://oauth.reddit.com/api/v1/me": me })
    expect(await fetchProfile(Reddit(), api.fetch)).toEqual(me)
    expect(api.calls[0]!.headers.get("user-agent")).toMatch(/portcullis/)
  })
})

describe("preset options Auth.js's presets take (issue 15, option parity)", () => {
  async function authorizeUrl(provider: AnyConfig): Promise<URL> {
    const { Browser, direct, SECRET } = await import("./helpers.js")
    const browser = new Browser(direct({ secret: SECRET, trustHost: true, providers: [{ clientId: "client", clientSecret: "secret", ...provider } as never] }))
    const csrfToken = await browser.csrfToken()
    const response = await browser.request(`/auth/signin/${provider.id}`, { form: { csrfToken } })
    expect(response.status).toBe(302)
    return new URL(response.headers.get("location")!)
  }

  it("WorkOS: connection goes into every authorization request; issuer moves the API", async () => {
    const url = await authorizeUrl(WorkOS({ connection: "conn_01E4ZCR3C56J083X43JQXF3JK5" }))
    expect(url.origin + url.pathname).toBe("https://api.workos.com/sso/authorize")
    expect(url.searchParams.get("connection")).toBe("conn_01E4ZCR3C56J083X43JQXF3JK5")
    const moved = WorkOS({ issuer: "https://sso.example.com/" })
    expect(urlsOf(moved)).toEqual(["https://sso.example.com/sso/authorize", "https://sso.example.com/sso/token", "https://sso.example.com/sso/profile"])
    expect((moved as { options?: Record<string, unknown> }).options).not.toHaveProperty("issuer")
  })

  it("GitLab: baseUrl points every endpoint at a self-managed instance", async () => {
    const gitlab = GitLab({ baseUrl: "https://gitlab.corp.example/" })
    expect(urlsOf(gitlab)).toEqual(["https://gitlab.corp.example/oauth/authorize", "https://gitlab.corp.example/oauth/token", "https://gitlab.corp.example/api/v4/user"])
    const url = await authorizeUrl(gitlab)
    expect(url.origin).toBe("https://gitlab.corp.example")
    expect(url.searchParams.get("scope")).toBe("read_user")
  })

  it("a string authorization URL replaces the preset's, its own query kept", async () => {
    const url = await authorizeUrl(GitLab({ authorization: "https://gitlab.corp.example/oauth/authorize?scope=read_user+openid" }))
    expect(url.origin + url.pathname).toBe("https://gitlab.corp.example/oauth/authorize")
    expect(url.searchParams.get("scope")).toBe("read_user openid")
    expect(url.searchParams.get("client_id")).toBe("client")
  })
})
