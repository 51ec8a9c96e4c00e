/**
 * Spec §2.16 and §5.9: the seven cookies (`callbackUrl`, `csrfToken`, `nonce`,
 * `pkceCodeVerifier`, `sessionToken`, `state`, `webauthnChallenge`) as the flows set them —
 * their default names and attributes over http and https, the same as Auth.js 0.41's
 * `defaultCookies` — and the override of each key's name and options.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig, PartialCookiesOptions } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
// Auth.js's own defaults, read from the installed package (not part of its exports map).
import { defaultCookies as authjsDefaults } from "../../../../node_modules/@auth/core/lib/utils/cookie.js"
import { Browser, credentialsConfig, direct, parseSetCookie } from "../helpers.js"
import { useFakeOP } from "../oauth/flow.js"

const KEYS = ["callbackUrl", "csrfToken", "nonce", "pkceCodeVerifier", "sessionToken", "state", "webauthnChallenge"] as const
type Key = (typeof KEYS)[number]

const holder = useFakeOP()

function config(cookies?: PartialCookiesOptions): AuthConfig {
  const { op } = holder
  const oidc = { id: "op", name: "OP", type: "oidc", issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowInsecureLoopback: true, checks: ["pkce", "state", "nonce"] } as OAuthConfig<any>
  const base = credentialsConfig()
  return { ...base, adapter: MemoryAdapter(), session: { strategy: "jwt" }, experimental: { enableWebAuthn: true }, providers: [...base.providers, oidc, Passkey({})], logger: { warn: () => {} }, ...(cookies && { cookies }) }
}

/** Runs the flows that set each cookie once and returns every Set-Cookie seen, by name. */
async function cookiesOfFlows(origin: string, cookies?: PartialCookiesOptions) {
  const browser = new Browser(direct(config(cookies)), origin)
  const seen = new Map<string, ReturnType<typeof parseSetCookie>>()
  const record = () => browser.lastSetCookies.forEach((c) => seen.set(c.name, c))
  await browser.csrfToken()
  record()
  // OAuth start: the state, PKCE verifier and nonce check cookies, and the remembered callback URL.
  const csrfToken = await browser.csrfToken()
  const start = await browser.request("/auth/signin/op", { form: { csrfToken, callbackUrl: `${origin}/dashboard` } })
  expect(start.status).toBe(302)
  record()
  await browser.signIn()
  record()
  const options = await browser.request("/auth/webauthn-options/passkey?email=new%40example.com")
  expect(options.status).toBe(200)
  record()
  return seen
}

describe("the seven cookies and their defaults (§2.16, §5.9)", () => {
  it("over http: Auth.js's names, HttpOnly, SameSite=Lax, Path=/, no Secure; the check cookies expire in 15 minutes", async () => {
    const seen = await cookiesOfFlows("http://localhost:3000")
    const names: Record<Key, string> = {
      callbackUrl: "authjs.callback-url",
      csrfToken: "authjs.csrf-token",
      nonce: "authjs.nonce",
      pkceCodeVerifier: "authjs.pkce.code_verifier",
      sessionToken: "authjs.session-token",
      state: "authjs.state",
      webauthnChallenge: "authjs.challenge",
    }
    for (const key of KEYS) {
      const cookie = seen.get(names[key])
      expect(cookie, key).toBeDefined()
      expect(cookie!.attributes).toMatchObject({ httponly: true, samesite: "Lax", path: "/" })
      expect(cookie!.attributes.secure, key).toBeUndefined()
      expect(cookie!.attributes.domain, key).toBeUndefined()
    }
    for (const key of ["nonce", "pkceCodeVerifier", "state", "webauthnChallenge"] as const) expect(seen.get(names[key])!.attributes["max-age"], key).toBe("900")
    // The session cookie lives as long as the session: 30 days by default (§2.13).
    const expires = Date.parse(String(seen.get(names.sessionToken)!.attributes.expires))
    expect(Math.round((expires - Date.now()) / 86_400_000)).toBe(30)
  })

  it("over https: the __Secure- prefix (__Host- for the CSRF cookie) and Secure on every one", async () => {
    const seen = await cookiesOfFlows("https://app.example")
    for (const name of ["__Secure-authjs.callback-url", "__Host-authjs.csrf-token", "__Secure-authjs.nonce", "__Secure-authjs.pkce.code_verifier", "__Secure-authjs.session-token", "__Secure-authjs.state", "__Secure-authjs.challenge"]) {
      const cookie = seen.get(name)
      expect(cookie, name).toBeDefined()
      expect(cookie!.attributes.secure, name).toBe(true)
      expect(cookie!.attributes.path, name).toBe("/")
    }
    expect(seen.get("__Host-authjs.csrf-token")!.attributes.domain).toBeUndefined()
  })

  it("the default names are Auth.js 0.41's for both variants", async () => {
    for (const secure of [false, true]) {
      const theirs = authjsDefaults(secure) as Record<Key, { name: string }>
      const seen = await cookiesOfFlows(secure ? "https://app.example" : "http://localhost:3000")
      for (const key of KEYS) expect(seen.has(theirs[key].name), `${key} (${secure ? "https" : "http"})`).toBe(true)
    }
  })

  it("each key's name and options can be overridden, and the override is what the flows set", async () => {
    const overrides = Object.fromEntries(KEYS.map((key) => [key, { name: `app.${key}`, options: { sameSite: "strict" as const } }])) as PartialCookiesOptions
    const seen = await cookiesOfFlows("http://localhost:3000", overrides)
    for (const key of KEYS) {
      const cookie = seen.get(`app.${key}`)
      expect(cookie, key).toBeDefined()
      // Options not overridden keep their defaults.
      expect(cookie!.attributes).toMatchObject({ samesite: "Strict", httponly: true, path: "/" })
    }
    expect([...seen.keys()].filter((name) => name.startsWith("authjs."))).toEqual([])
  })
})
