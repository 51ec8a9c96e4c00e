/**
 * Attack on "configuration errors answered on every action": whatever the request carries,
 * a broken configuration answers the generic message (or the error page), never the
 * provider's secret, credentials in its URL, or a stack; and a custom error page that is
 * itself an action under the base path cannot loop.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { SECRET } from "../helpers.js"

const CLIENT_SECRET = "client-secret-that-must-not-leak"
const silent = () => ({ error: () => {}, warn: () => {}, debug: () => {} })

afterEach(() => vi.unstubAllEnvs())

function broken(extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: silent(),
    providers: [
      { id: "kc", name: "KC", type: "oidc", issuer: "http://admin:hunter2@keycloak.internal:8080/realms/app", clientId: "id", clientSecret: CLIENT_SECRET } as OAuthConfig<any>,
    ],
    ...extra,
  }
}

const hostile: [string, () => Request][] = [
  ["GET /session", () => new Request("http://localhost:3000/auth/session?callbackUrl=%0d%0aX:1", { headers: { cookie: "authjs.session-token=x" } })],
  ["GET /signin/kc", () => new Request("http://localhost:3000/auth/signin/kc?error=%3Cscript%3E")],
  ["POST /signin/kc JSON", () => new Request("http://localhost:3000/auth/signin/kc", { method: "POST", headers: { "content-type": "application/json", "x-auth-return-redirect": "1" }, body: '{"csrfToken":' })],
  ["GET /callback/kc", () => new Request("http://localhost:3000/auth/callback/kc?code=x&state=y")],
  ["GET /providers with a forged Host", () => new Request("http://localhost:3000/auth/providers", { headers: { host: "evil.example", "x-forwarded-host": "evil.example" } })],
  ["GET /error?error=Configuration", () => new Request("http://localhost:3000/auth/error?error=Configuration")],
]

describe("attack: request input against a configuration error (production: an http issuer with credentials in it)", () => {
  it.each(hostile)("%s: the generic answer, no secret, no credentials, no stack", async (_, request) => {
    vi.stubEnv("NODE_ENV", "production")
    const response = await Auth(request(), broken())
    expect(response.status).toBeGreaterThanOrEqual(300)
    const text = (await response.text()) + [...response.headers].map(([k, v]) => `${k}: ${v}`).join("\n")
    for (const leak of [CLIENT_SECRET, "hunter2", "admin:", "keycloak.internal", "    at ", SECRET]) expect(text).not.toContain(leak)
  })
})

describe("attack: an error page under the base path that itself errors (ErrorPageLoop)", () => {
  it.each(["/auth/error", "/auth/signin", "/auth/session"])("pages.error = %s ends on an answer within 3 hops instead of redirecting to itself", async (page) => {
    vi.stubEnv("NODE_ENV", "production")
    const config = broken({ pages: { error: page } })
    let url = "http://localhost:3000/auth/signin"
    for (let hop = 0; hop < 3; hop++) {
      const response = await Auth(new Request(url), config)
      expect(response.status).toBeLessThan(600)
      if (response.status < 300 || response.status >= 400) {
        // The built-in error page (or the JSON answer of a non-page action) ends it.
        expect(response.status).toBe(500)
        return
      }
      const next = new URL(response.headers.get("location")!, url)
      expect(next.origin).toBe("http://localhost:3000")
      url = next.href
    }
    throw new Error(`still redirecting after 3 hops (at ${url})`)
  })
})
