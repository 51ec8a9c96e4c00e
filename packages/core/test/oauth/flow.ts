/**
 * Drives an OAuth sign-in the way a browser does: the app's `Browser` (cookie jar) for the
 * app, plain `fetch` without redirect following for the provider's front channel.
 */
import { afterAll, beforeAll, beforeEach, expect } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { SECRET, type Browser } from "../helpers.js"
import { FakeOP } from "./fixtures/fake-op.js"

/** `POST /auth/signin/:id` with a CSRF token; returns the response (a redirect to the provider). */
export async function startSignIn(browser: Browser, providerId: string, options: { callbackUrl?: string; query?: string } = {}): Promise<Response> {
  const csrfToken = await browser.csrfToken()
  const form: Record<string, string> = { csrfToken }
  if (options.callbackUrl) form.callbackUrl = options.callbackUrl
  return browser.request(`/auth/signin/${providerId}${options.query ?? ""}`, { form })
}

/** The authorization URL the sign-in redirected to. */
export function location(response: Response): URL {
  expect(response.status).toBe(302)
  return new URL(response.headers.get("location")!)
}

/** Follows a front-channel redirect at the provider (no cookies needed there); returns where it sends the browser. */
export async function atProvider(url: URL | string): Promise<URL> {
  const response = await fetch(url, { redirect: "manual" })
  expect(response.status).toBe(302)
  return new URL(response.headers.get("location")!)
}

/** Delivers the provider's redirect to the app (path and query only: the app is in-process). */
export function deliver(browser: Browser, callback: URL, init: RequestInit = {}): Promise<Response> {
  return browser.request(callback.pathname + callback.search, init)
}

/** Start → provider → callback; returns the callback response. */
export async function signInThrough(browser: Browser, providerId: string, options: { callbackUrl?: string } = {}): Promise<Response> {
  const start = await startSignIn(browser, providerId, options)
  const callback = await atProvider(location(start))
  return deliver(browser, callback)
}

/** Names of the check cookies (non-secure names: the tests run on http). */
export const checkCookies = ["authjs.state", "authjs.pkce.code_verifier", "authjs.nonce"]

/**
 * Asserts a failed callback failed closed: a redirect carrying only the expected error
 * code, no session cookie, and every check cookie deleted.
 */
export function expectFailedClosed(browser: Browser, response: Response, page: "signin" | "error", code: string): void {
  expect(response.status).toBe(302)
  const target = new URL(response.headers.get("location")!)
  expect(target.pathname).toBe(`/auth/${page}`)
  expect([...target.searchParams]).toEqual([["error", code]])
  const set = browser.lastSetCookies
  expect(set.some((c) => c.name.includes("session-token") && c.value !== "")).toBe(false)
  for (const name of checkCookies) expect(browser.jar.has(name)).toBe(false)
}

/** Wraps an adapter to record every call that writes, so tests can assert nothing was written. */
export function recordWrites(adapter: Adapter): { adapter: Adapter; writes: string[] } {
  const writes: string[] = []
  const writers = new Set(["createUser", "updateUser", "deleteUser", "linkAccount", "unlinkAccount", "createSession", "updateSession", "deleteSession"])
  const wrapped: Record<string, unknown> = {}
  for (const [name, method] of Object.entries(adapter)) {
    if (typeof method !== "function") continue
    wrapped[name] = (...args: unknown[]) => {
      if (writers.has(name)) writes.push(name)
      return (method as (...a: unknown[]) => unknown).apply(adapter, args)
    }
  }
  return { adapter: wrapped as Adapter, writes }
}

/** A FakeOP for the enclosing `describe` (or file): started once, reset before each test. */
export function useFakeOP(): { readonly op: FakeOP } {
  const holder = {} as { op: FakeOP }
  beforeAll(async () => {
    holder.op = await FakeOP.start()
  })
  afterAll(() => holder.op.close())
  beforeEach(() => holder.op.reset())
  return holder
}

/** A preview deployment's origin and the stable redirect proxy's, for the proxy tests. */
export const PREVIEW = "https://preview-123.app.example"
export const PROXY = "https://auth.app.example"

/**
 * A deployment behind the redirect proxy (the previews' and the proxy's config are the
 * same): the shared secret, `trustHost`, the previews in `trustedOrigins`, and the FakeOP
 * as an OIDC provider `fake`.
 */
export function proxiedDeployment(op: FakeOP, extra: Partial<AuthConfig> = {}, providerExtra: Partial<OAuthConfig<any>> = {}): AuthConfig {
  const provider = { id: "fake", name: "Fake", type: "oidc", issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowInsecureLoopback: true, ...providerExtra } as OAuthConfig<any>
  return { secret: SECRET, trustHost: true, trustedOrigins: ["https://preview-*.app.example"], redirectProxyUrl: `${PROXY}/auth`, providers: [provider], ...extra }
}
