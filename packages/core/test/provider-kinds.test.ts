/**
 * Issue 18: each provider kind's code (OAuth, email, WebAuthn, credentials) is loaded with
 * `import()` by the configurations that use it, and each kind checks its own providers
 * (`lib/kinds/registry.ts`). Loading late must not make checking late: a broken provider is
 * a configuration error on the very first request, concurrent first requests included, as
 * Auth.js's eager `assertConfig` makes it. What a bundle carries is measured in
 * `runtimes/test/entry-weight.test.ts`.
 */
import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { ProviderKinds } from "../src/lib/kinds/registry.js"
import { ada, captureLogger, credentialsConfig, SECRET } from "./helpers.js"

const origin = "http://localhost:3000"

/** An OAuth provider with neither an issuer nor endpoints: Auth.js's `InvalidEndpoints`. */
const endpointless = (id = "broken") => ({ id, name: "Broken", type: "oauth", clientId: "id", clientSecret: "secret" }) as OAuthConfig<any>

const silent = () => ({ error: () => {}, warn: () => {}, debug: () => {} })

async function signInAsAda(config: AuthConfig): Promise<Response> {
  const csrf = await Auth(new Request(`${origin}/auth/csrf`), config)
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const cookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ")
  return Auth(
    new Request(`${origin}/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin, cookie },
      body: new URLSearchParams({ csrfToken, ...ada }),
    }),
    config,
  )
}

describe("a provider kind's configuration check runs before the first request is answered", () => {
  it("answers a broken OAuth provider as a configuration error on the first request of a fresh configuration", async () => {
    const { lines, logger } = captureLogger()
    const config: AuthConfig = { secret: SECRET, trustHost: true, logger, providers: [endpointless()] }
    const response = await Auth(new Request(`${origin}/auth/session`), config)
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ message: "There was a problem with the server configuration. Check the server logs for more information." })
    expect(lines.join("\n")).toContain("InvalidEndpoints")
  })

  it("answers it to 50 concurrent first requests, each of them", async () => {
    const config: AuthConfig = { secret: SECRET, trustHost: true, logger: silent(), providers: [endpointless()] }
    const responses = await Promise.all(Array.from({ length: 50 }, () => Auth(new Request(`${origin}/auth/providers`), config)))
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(500))
  })

  it("answers a broken WebAuthn provider next to working credentials the same way", async () => {
    const { lines, logger } = captureLogger()
    const config = credentialsConfig({
      logger,
      session: { strategy: "jwt" },
      experimental: { enableWebAuthn: true },
      adapter: MemoryAdapter(),
      providers: [
        ...credentialsConfig().providers,
        { ...Passkey(), simpleWebAuthnBrowserVersion: "nine" } as never,
      ],
    })
    const response = await Auth(new Request(`${origin}/auth/csrf`), config)
    expect(response.status).toBe(500)
    expect(lines.join("\n")).toContain("simpleWebAuthnBrowserVersion")
  })

  // The WebAuthn code comes with WebAuthn() and Passkey() (lib/kinds/provided.ts), so that
  // core names it nowhere an app's bundler could follow; a provider written out by hand
  // brings none, as in Auth.js, whose WebAuthn providers bring @simplewebauthn/server.
  it("answers a WebAuthn provider written out by hand (not from Passkey() or WebAuthn()) as a configuration error that says so", async () => {
    const { lines, logger } = captureLogger()
    const config = credentialsConfig({
      logger,
      session: { strategy: "jwt" },
      experimental: { enableWebAuthn: true },
      adapter: MemoryAdapter(),
      providers: [...credentialsConfig().providers, { id: "passkey", name: "Passkey", type: "webauthn" } as never],
    })
    const response = await Auth(new Request(`${origin}/auth/csrf`), config)
    expect(response.status).toBe(500)
    expect(lines.join("\n")).toContain("WebAuthn() or Passkey()")
  })

  it("reports the first problem in the order the checks always ran: the options' before a kind's", async () => {
    const { lines, logger } = captureLogger()
    // No secret (a synchronous check) and a broken OAuth provider (its kind's check).
    const config = { trustHost: true, logger, providers: [endpointless()] } as AuthConfig
    const response = await Auth(new Request(`${origin}/auth/session`), config)
    expect(response.status).toBe(500)
    expect(lines.join("\n")).toContain("MissingSecret")
    expect(lines.join("\n")).not.toContain("InvalidEndpoints")
  })

  it("reports the first broken provider of a kind, in configuration order", async () => {
    const kinds = new ProviderKinds([endpointless("first"), endpointless("second")], { env: {}, redirectProxyUrl: undefined, logger: silent(), session: { strategy: "jwt", revocable: true } })
    expect((await kinds.checked)?.message).toContain('"first"')
  })
})

describe("a configuration loads each of its kinds once", () => {
  it("signs in 50 users at once on a fresh configuration (the credentials kind loading under them)", async () => {
    const config = credentialsConfig()
    const responses = await Promise.all(Array.from({ length: 50 }, () => signInAsAda(config)))
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(302))
    for (const r of responses) expect(r.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(true)
  })

  it("hands every caller the same module for a kind", async () => {
    const kinds = new ProviderKinds([endpointless()], { env: {}, redirectProxyUrl: undefined, logger: silent(), session: { strategy: "jwt", revocable: true } })
    const loaded = await Promise.all(Array.from({ length: 50 }, () => kinds.load("oauth")))
    expect(new Set(loaded).size).toBe(1)
    expect(typeof loaded[0]!.callback).toBe("function")
  })

  it("checks nothing and finds no problem for a configuration without providers", async () => {
    const kinds = new ProviderKinds([], { env: {}, redirectProxyUrl: undefined, logger: silent(), session: { strategy: "jwt", revocable: true } })
    expect(await kinds.checked).toBeUndefined()
  })

  it("puts the passkey script on the sign-in page only when a WebAuthn provider is configured", async () => {
    const withPasskey = new ProviderKinds([Passkey()], { env: {}, redirectProxyUrl: undefined, logger: silent(), session: { strategy: "jwt", revocable: true } })
    expect(await withPasskey.pageScripts([{ type: "credentials" }, { type: "oauth" }])).toEqual([])
    const scripts = await withPasskey.pageScripts([{ type: "webauthn" }])
    expect(scripts.length).toBe(2)
    const page = await (await Auth(new Request(`${origin}/auth/signin`), credentialsConfig())).text()
    expect(page).not.toContain("<script")
  })
})
