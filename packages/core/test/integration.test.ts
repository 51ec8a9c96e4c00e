/**
 * Issue 14: `@portcullis/core/integration` runs on the configuration's one runtime. The HTTP
 * handler, session reads, CSRF token reads and form actions of one app config share one
 * resolution (and so one set of caches), and skipping core's CSRF check is an option of the
 * call, never a second configuration.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { Auth, createAuth, type AuthConfig, type Cookie } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { readCsrfToken, readSession, runtimeFor, serverSignIn, serverSignOut } from "@portcullis/core/integration"
import { ada, Browser, direct, SECRET } from "./helpers.js"

const origin = "http://localhost:3000"

/** A credentials config whose provider is a factory that counts how often core resolves it. */
function countingConfig(extra: Partial<AuthConfig> = {}) {
  const calls = { factory: 0 }
  const provider = () => {
    calls.factory++
    return Credentials({ authorize: async ({ username, password }) => (username === ada.username && password === ada.password ? { id: "user-ada", name: "Ada" } : null) })
  }
  const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [provider], ...extra }
  return { config, calls }
}

/** A cookie jar fed by the helpers' `setCookie`, sent back as a `Cookie` header. */
function jar() {
  const cookies = new Map<string, string>()
  return {
    sink: (c: Cookie) => (c.options.maxAge === 0 || c.value === "" ? cookies.delete(c.name) : cookies.set(c.name, c.value)),
    header: () => [...cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; "),
  }
}

describe("@portcullis/core/integration on one runtime", () => {
  it("the HTTP handler and every helper given the same config resolve it once", async () => {
    const { config, calls } = countingConfig()
    const browser = new Browser(direct(config), origin)
    await browser.signIn()
    const cookie = browser.cookieHeader()
    for (let i = 0; i < 20; i++) {
      expect((await readSession(origin, cookie, config))?.user?.name).toBe("Ada")
      await readCsrfToken(origin, cookie, config, () => {})
    }
    const headers = new Headers({ cookie })
    await serverSignIn({ origin, headers, provider: "credentials", fields: ada, redirectTo: "/", authorizationParams: {}, skipCSRF: true }, config, () => {})
    await serverSignOut({ origin, headers, redirectTo: "/", skipCSRF: true }, config, () => {})
    expect(calls.factory).toBe(1)
    expect(runtimeFor(config)).toBe(runtimeFor(config))
  })

  it("accepts the runtime itself (createAuth) as well as the config", async () => {
    const { config, calls } = countingConfig()
    const auth = createAuth(config)
    const cookies = jar()
    const target = await serverSignIn({ origin, headers: new Headers(), provider: "credentials", fields: ada, redirectTo: "/account", authorizationParams: {}, skipCSRF: true }, auth, cookies.sink)
    expect(target).toBe(`${origin}/account`)
    expect((await readSession(origin, cookies.header(), auth))?.user?.name).toBe("Ada")
    // The session the helper established is the one the HTTP handler of the same config sees.
    const response = await Auth(new Request(`${origin}/auth/session`, { headers: { cookie: cookies.header() } }), config)
    expect(((await response.json()) as { user: { name: string } }).user.name).toBe("Ada")
    expect(calls.factory).toBe(1)
  })

  it("skips the CSRF check only for the call that asks, never for the config's HTTP handler", async () => {
    const { config } = countingConfig()
    const signIn = (skipCSRF?: boolean) => {
      const cookies = jar()
      const input = { origin, headers: new Headers(), provider: "credentials", fields: ada, redirectTo: "/account", authorizationParams: {}, ...(skipCSRF !== undefined && { skipCSRF }) }
      return serverSignIn(input, config, cookies.sink).then((target) => ({ target, cookies }))
    }
    // Without a token and without skipCSRF, core refuses (as a redirect to the sign-in page).
    const refused = await signIn()
    expect(new URL(refused.target).searchParams.get("error")).toBe("MissingCSRF")
    expect(await readSession(origin, refused.cookies.header(), config)).toBeNull()
    const explicit = await signIn(false)
    expect(new URL(explicit.target).searchParams.get("error")).toBe("MissingCSRF")
    // A form action that did its own origin check skips it for this call only.
    const skipped = await signIn(true)
    expect(skipped.target).toBe(`${origin}/account`)
    expect((await readSession(origin, skipped.cookies.header(), config))?.user?.name).toBe("Ada")
    // The same runtime's HTTP endpoint still wants the token afterwards.
    const post = await Auth(new Request(`${origin}/auth/callback/credentials`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(ada) }), config)
    expect(post.status).toBe(302)
    expect(post.headers.get("location")).toContain("error=MissingCSRF")
  })

  it("a config that turned CSRF off (skipCSRFCheck) keeps it off for helpers that do not ask", async () => {
    const { skipCSRFCheck } = await import("@portcullis/core")
    const { config } = countingConfig({ skipCSRFCheck })
    const cookies = jar()
    const target = await serverSignIn({ origin, headers: new Headers(), provider: "credentials", fields: ada, redirectTo: "/account", authorizationParams: {} }, config, cookies.sink)
    expect(target).toBe(`${origin}/account`)
    await expect(readCsrfToken(origin, null, config, () => {})).rejects.toThrow(/skipCSRFCheck/)
  })

  it("routes under the base path core resolved (basePath, else /auth)", () => {
    expect(runtimeFor(countingConfig().config).basePath).toBe("/auth")
    expect(runtimeFor(countingConfig({ basePath: "/api/auth/" }).config).basePath).toBe("/api/auth")
  })

  it("keeps no module-level mutable state (no cache of derived configurations)", () => {
    const source = readFileSync(new URL("../src/integration.ts", import.meta.url), "utf8")
    expect(source).not.toMatch(/^(const|let|var)\s/m)
    expect(source).not.toMatch(/\bvariants\b/)
  })
})
