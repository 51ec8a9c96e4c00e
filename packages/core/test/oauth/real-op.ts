/**
 * Driving a real OpenID provider (`oidc-provider`, the demo's `startDemoOidcProvider`) the
 * way a browser does: its login and consent pages, with a cookie jar of its own.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { expect } from "vitest"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { Browser } from "../helpers.js"
import { location, startSignIn } from "./flow.js"

export const clientId = "portcullis-test"
export const clientSecret = "portcullis-test-secret"

/** The demo provider as an OIDC provider `demo-oidc` of the app. */
export function demoProvider(issuer: string, extra: Partial<OAuthConfig<any>> = {}): OAuthConfig<any> {
  return { id: "demo-oidc", name: "Demo OIDC", type: "oidc", issuer, clientId, clientSecret, allowInsecureLoopback: true, ...extra } as OAuthConfig<any>
}

/**
 * Walks the provider's pages from the authorization URL until it redirects back to the
 * app: follows redirects, fills the login form (any login works on the dev screens) and
 * submits the consent form. The provider gets its own cookie jar, as in a browser.
 */
export async function throughProvider(authorizationUrl: URL, appOrigin: string): Promise<URL> {
  const browser = new Browser((request) => fetch(request, { redirect: "manual" }), authorizationUrl.origin)
  let response = await browser.request(authorizationUrl.href)
  let url = authorizationUrl
  for (let step = 0; step < 20; step++) {
    if (response.status >= 300 && response.status < 400) {
      url = new URL(response.headers.get("location")!, url)
      if (url.origin === appOrigin) return url
      response = await browser.request(url.href)
      continue
    }
    const html = await response.text()
    expect(response.status, html.slice(0, 1000)).toBe(200)
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
    expect(action, "a form on the provider's page").toBeTruthy()
    const form: Record<string, string> = {}
    for (const [, name, value] of html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) form[name!] = value!
    if (/name="login"/.test(html)) Object.assign(form, { login: "demo", password: "any password" })
    url = new URL(action!.replace(/&amp;/g, "&"), url)
    response = await browser.request(url.href, { form })
  }
  throw new Error("the provider never redirected back")
}

/** Start → the provider's pages → the app's callback; returns the callback's response. */
export async function signInAtOP(browser: Browser, providerId = "demo-oidc", callbackUrl?: string): Promise<Response> {
  const start = await startSignIn(browser, providerId, { callbackUrl })
  const callback = await throughProvider(location(start), browser.origin)
  return browser.request(callback.pathname + callback.search)
}

/** A real HTTP server on a port known before the provider starts (its redirect URI names it). */
export async function listen(): Promise<{ origin: string; server: Server }> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}
