import { afterEach, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { Browser, SECRET, direct, type Transport } from "../helpers.js"

/**
 * An action sees the request on the site's origin — `AUTH_URL`'s, or the one a trusted
 * proxy forwarded — not on the address the server was reached at (`http://app:3000` behind
 * a proxy). `authorize()` gets that request: a link it builds from `request.url` must point
 * at the site, not at an internal host.
 */
afterEach(() => vi.unstubAllEnvs())

/** A config whose `authorize()` records the URL of the request it was given, and signs no one in. */
function recording(extra: Partial<AuthConfig> = {}): { config: AuthConfig; seen: string[] } {
  const seen: string[] = []
  const config: AuthConfig = {
    secret: SECRET,
    providers: [Credentials({ credentials: { username: {} }, authorize: async (_fields, request) => (seen.push(request.url), null) })],
    ...extra,
  }
  return { config, seen }
}

/** Signs in through `transport` (CSRF token first), as a browser on `origin`. */
async function signIn(transport: Transport, origin: string): Promise<void> {
  const browser = new Browser(transport, origin)
  const csrfToken = await browser.csrfToken()
  const response = await browser.request("/auth/callback/credentials?from=form", { form: { csrfToken, username: "ada" } })
  expect(response.headers.get("location")).toContain("error=CredentialsSignin")
}

describe("the request an action sees is on the site's origin", () => {
  it("with AUTH_URL, a request that reached the server at its internal address", async () => {
    vi.stubEnv("AUTH_URL", "https://app.example.com/auth")
    const { config, seen } = recording()
    // The proxy in front passes the Origin a browser on the site sends, not a forwarded host.
    const internal: Transport = (request) => direct(config)(new Request(request, { headers: { ...Object.fromEntries(request.headers), origin: "https://app.example.com" } }))
    await signIn(internal, "http://app:3000")
    expect(seen).toEqual(["https://app.example.com/auth/callback/credentials?from=form"])
  })

  it("with trustHost, the host and protocol a proxy forwarded", async () => {
    const { config, seen } = recording({ trustHost: true })
    const forwarded: Transport = (request) => {
      const headers = new Headers(request.headers)
      headers.set("x-forwarded-host", "app.example.com")
      headers.set("x-forwarded-proto", "https")
      headers.set("origin", "https://app.example.com")
      return direct(config)(new Request(request, { headers }))
    }
    await signIn(forwarded, "http://app:3000")
    expect(seen).toEqual(["https://app.example.com/auth/callback/credentials?from=form"])
  })

  it("reached at the site's own origin, the request is that one", async () => {
    const { config, seen } = recording({ trustHost: true })
    await signIn(direct(config), "http://localhost:3000")
    expect(seen).toEqual(["http://localhost:3000/auth/callback/credentials?from=form"])
  })
})
