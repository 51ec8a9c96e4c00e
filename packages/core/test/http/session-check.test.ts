import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { resolve, type ResolvedConfig } from "../../src/lib/config/resolve.js"
import type { Env } from "../../src/lib/config/env.js"
import { parseRequest, type ParsedRequest } from "../../src/lib/http/request.js"
import { SessionCheckParser } from "../../src/lib/http/session-check.js"
import { SECRET } from "../helpers.js"

/**
 * `SessionCheckParser` reads `GET <basePath>/session` from the URL string when the origin
 * was worked out before. It must give exactly what `parseRequest` gives for such a
 * request, and nothing for any other request — or for an origin the full parser never
 * accepted, so no check of Host or forwarded headers can be skipped by it.
 */
function configFor(extra: Partial<AuthConfig>, env: Env = {}): ResolvedConfig {
  return resolve({ secret: SECRET, providers: [], ...extra }, env)
}

function comparable(parsed: ParsedRequest) {
  const { request: _request, url, ...rest } = parsed
  return { ...rest, url: url.href, cookies: { ...parsed.cookies } }
}

/** What the full parser says, or its error's name. */
function full(request: Request, config: ResolvedConfig): ReturnType<typeof comparable> | string {
  try {
    const parsed = parseRequest(request, config)
    if (parsed instanceof Promise) return "async"
    return comparable(parsed)
  } catch (error) {
    return (error as Error).name
  }
}

const cookie = "authjs.session-token=abc.def; other=%41; \"quoted\"=\"x\""

const variants: [string, RequestInit][] = [
  ["http://localhost:3000/auth/session", {}],
  ["http://localhost:3000/auth/session", { headers: { cookie } }],
  ["http://LOCALHOST:3000/auth/session", { headers: { cookie } }],
  ["http://localhost:80/auth/session", {}],
  ["https://app.example/auth/session", { headers: { cookie } }],
  ["https://app.example:8443/auth/session", {}],
  ["http://[::1]:3000/auth/session", {}],
  ["http://localhost:3000/auth/session?callbackUrl=/x", {}],
  ["http://localhost:3000/auth/session?", {}],
  ["http://localhost:3000/auth/session#frag", {}],
  ["http://localhost:3000/auth/session/", {}],
  ["http://localhost:3000/auth/sessions", {}],
  ["http://localhost:3000/auth/%73ession", {}],
  ["http://localhost:3000/x/auth/session", {}],
  ["http://localhost:3000/auth/csrf", {}],
  ["http://localhost:3000/auth/session", { method: "POST", body: "{}", headers: { "content-type": "application/json" } }],
  ["http://localhost:3000/auth/session", { method: "HEAD" }],
  ["http://localhost:3000/auth/session", { headers: { "x-forwarded-host": "evil.example" } }],
  ["http://localhost:3000/auth/session", { headers: { "x-forwarded-host": "app.example", "x-forwarded-proto": "https" } }],
  ["http://localhost:3000/auth/session", { headers: { "x-forwarded-proto": "https" } }],
  ["http://localhost:3000/auth/session", { headers: { "x-forwarded-host": "bad host/x" } }],
  ["http://evil.example/auth/session", { headers: { cookie } }],
  ["http://localhost:3000/session", {}],
  ["http://localhost:3000/api/auth/session", {}],
]

const configs: [string, () => ResolvedConfig][] = [
  ["trustHost", () => configFor({ trustHost: true })],
  ["trustHost in production", () => configFor({ trustHost: true }, { NODE_ENV: "production" })],
  ["no trustHost, trusted origins", () => configFor({ trustHost: false, trustedOrigins: ["http://localhost:3000", "https://app.example"] })],
  ["AUTH_URL", () => configFor({ trustHost: false }, { AUTH_URL: "https://site.example/auth" })],
  ["basePath /api/auth", () => configFor({ trustHost: true, basePath: "/api/auth" })],
  ["basePath at the root", () => configFor({ trustHost: true, basePath: "/" })],
  ["useSecureCookies", () => configFor({ trustHost: true, useSecureCookies: true })],
]

describe("the session-check parser", () => {
  for (const [label, configure] of configs) {
    it(`gives what parseRequest gives, or nothing (${label})`, () => {
      for (const [url, init] of variants) {
        // A fresh configuration per request: nothing remembered from the one before.
        const config = configure()
        const parser = new SessionCheckParser(config)
        const request = () => new Request(url, init)
        // Before any full parse no origin is remembered (unless AUTH_URL fixes it).
        const before = parser.origin(request())
        if (!config.siteUrl) expect(before, url).toBeUndefined()
        const expected = full(request(), config)
        const known = parser.origin(request())
        if (!known) continue
        expect(typeof expected, `${url} is answered by the session-check parser but refused by parseRequest`).toBe("object")
        expect(comparable(parser.parsed(request(), known)), url).toEqual(expected)
      }
    })
  }

  it("answers exactly the session checks the full parser accepted", () => {
    const config = configFor({ trustHost: true })
    const parser = new SessionCheckParser(config)
    const answered = (url: string, init: RequestInit = {}) => {
      full(new Request(url, init), config)
      return parser.origin(new Request(url, init)) !== undefined
    }
    expect(answered("http://localhost:3000/auth/session")).toBe(true)
    expect(answered("http://localhost:3000/auth/session", { headers: { "x-forwarded-host": "app.example" } })).toBe(true)
    for (const url of ["http://localhost:3000/auth/session?x=1", "http://localhost:3000/auth/session#f", "http://localhost:3000/auth/csrf", "http://localhost:3000/auth/session/"]) {
      expect(answered(url), url).toBe(false)
    }
    expect(answered("http://localhost:3000/auth/session", { method: "POST" })).toBe(false)
    expect(answered("http://localhost:3000/auth/session", { headers: { "x-forwarded-host": "bad host/x" } })).toBe(false)
  })
})

const quiet = { error() {}, warn() {}, debug() {} }

describe("the session-check parser under attack", () => {
  it("never serves a Host the full parser refused: a forged Host is refused on every request", async () => {
    const config: AuthConfig = { secret: SECRET, providers: [], trustHost: false, trustedOrigins: ["http://localhost:3000"], logger: quiet }
    const good = await Auth(new Request("http://localhost:3000/auth/session"), config)
    expect(good.status).toBe(200)
    for (let i = 0; i < 3; i++) {
      const forged = await Auth(new Request("http://evil.example/auth/session"), config)
      expect(forged.status).toBe(400)
    }
  })

  it("keys remembered origins by the forwarded headers too: a forwarded host is checked afresh", async () => {
    const config: AuthConfig = { secret: SECRET, providers: [], trustHost: true, trustedOrigins: ["https://app.example"], logger: quiet }
    const request = (headers: Record<string, string>) => new Request("http://localhost:3000/auth/session", { headers })
    expect((await Auth(request({ "x-forwarded-host": "app.example", "x-forwarded-proto": "https" }), config)).status).toBe(200)
    // The same Host with a malformed forwarded host is the full parser's to refuse, every time.
    for (let i = 0; i < 3; i++) expect((await Auth(request({ "x-forwarded-host": "app.example/@evil" }), config)).status).toBe(400)
  })
})
