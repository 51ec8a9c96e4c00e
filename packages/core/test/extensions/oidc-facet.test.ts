/**
 * `req.oidc`: core's OpenID Connect relying party for a provider an extension names at run
 * time (an organization's IdP), against a real `oidc-provider` on loopback driven the way a
 * browser does. Authorization with PKCE S256, state and nonce in the check cookies and the
 * extension's redirect URI and login hint; the callback's claims; a replayed callback, a
 * state from another browser and an issuer that is not the discovered one refused as the
 * client's (or the IdP's) errors, never with a stack; a client id that is a configured
 * provider's refused as a bug; discovery done once for two sign-ins.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { customFetch, type AuthConfig } from "@portcullis/core"
import { defineExtension, type ExtensionOidcClient } from "@portcullis/core/extension"
import { startDemoOidcProvider, type DemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import { Browser, captureLogger, credentialsConfig, direct } from "../helpers.js"
import { checkCookies } from "../oauth/flow.js"
import { clientId, clientSecret, throughProvider } from "../oauth/real-op.js"

const ORIGIN = "http://localhost:3000"
const redirectUri = (conn: string) => `${ORIGIN}/auth/sso/oidc/${conn}/callback`

let op: DemoOidcProvider
/** A server that serves the OP's discovery document as its own: the issuer inside is the OP's, not this one's. */
let impostor: { origin: string; server: Server }

beforeAll(async () => {
  op = await startDemoOidcProvider({ port: 0, clientId, clientSecret, redirectUris: [redirectUri("acme"), redirectUri("globex"), redirectUri("impostor")] })
  const server = createServer(async (req, res) => {
    const upstream = await fetch(op.issuer + req.url)
    res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" })
    res.end(await upstream.text())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  impostor = { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
})
afterAll(async () => {
  impostor.server.closeAllConnections()
  await new Promise((resolve) => impostor.server.close(resolve))
  await op.close()
})

/** The connections the extension knows, as its store would hold them. */
function clients(): Record<string, ExtensionOidcClient> {
  return {
    acme: { id: "sso-acme", issuer: op.issuer, clientId, clientSecret, redirectUri: redirectUri("acme") },
    // Another connection at the same IdP, with the same client: its checks are its own.
    globex: { id: "sso-globex", issuer: op.issuer, clientId, clientSecret, redirectUri: redirectUri("globex") },
    impostor: { id: "sso-impostor", issuer: impostor.origin, clientId, clientSecret, redirectUri: redirectUri("impostor") },
    // An IdP that does not answer (nothing listens on port 1).
    down: { id: "sso-down", issuer: "http://127.0.0.1:1", clientId, clientSecret, redirectUri: redirectUri("acme") },
    // A client id that is a configured provider's: the extension's bug.
    taken: { id: "credentials", issuer: op.issuer, clientId, clientSecret, redirectUri: redirectUri("acme") },
  }
}

/** An SSO extension: a start route redirecting to the IdP, a callback route answering the claims. */
function ssoExtension() {
  const known = clients()
  return defineExtension({
    id: "sso",
    routes: [
      {
        method: "GET",
        path: "oidc/:conn/start",
        access: "anyone",
        handler: async (req) => ({ redirect: await req.oidc.authorize(known[req.params.conn!]!, { loginHint: req.query.email }) }),
      },
      {
        method: "GET",
        path: "oidc/:conn/callback",
        access: "anyone",
        handler: async (req) => ({ json: (await req.oidc.callback(known[req.params.conn!]!)).claims }),
      },
    ],
  })
}

/** The app, counting the discovery requests its back channel makes. */
function app(extra: Partial<AuthConfig> = {}) {
  const log = captureLogger()
  const discovery: string[] = []
  const counting = (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input)
    if (url.includes("/.well-known/openid-configuration")) discovery.push(url)
    return fetch(input, init)
  }
  const config = credentialsConfig({ extensions: [ssoExtension()], logger: log.logger, ...extra, [customFetch]: counting } as AuthConfig)
  return { config, log, discovery, browser: () => new Browser(direct(config), ORIGIN) }
}

async function start(browser: Browser, conn = "acme", query = "?email=ada%40acme.com&prompt=none&redirect_uri=https%3A%2F%2Fevil.example") {
  const response = await browser.request(`/auth/sso/oidc/${conn}/start${query}`)
  return response
}

/** Start → the IdP's login and consent pages → the callback URL the IdP sends the browser to. */
async function throughIdP(browser: Browser, conn = "acme"): Promise<URL> {
  const started = await start(browser, conn)
  expect(started.status).toBe(302)
  return throughProvider(new URL(started.headers.get("location")!), ORIGIN)
}

describe("oidc.authorize", () => {
  it("sets the check cookies and returns the IdP's URL with PKCE S256, state, nonce, the redirect URI and the login hint", async () => {
    const { browser } = app()
    const b = browser()
    const response = await start(b)
    expect(response.status).toBe(302)
    const url = new URL(response.headers.get("location")!)
    expect(url.origin).toBe(op.issuer)
    const params = url.searchParams
    expect(params.get("client_id")).toBe(clientId)
    expect(params.get("response_type")).toBe("code")
    expect(params.get("code_challenge_method")).toBe("S256")
    expect(params.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(params.get("state")).toBeTruthy()
    expect(params.get("nonce")).toBeTruthy()
    expect(params.get("scope")).toBe("openid email profile")
    expect(params.get("login_hint")).toBe("ada@acme.com")
    // The extension's redirect URI, never one the start request carried, and none of its other parameters.
    expect(params.get("redirect_uri")).toBe(redirectUri("acme"))
    expect(params.get("prompt")).toBeNull()
    const set = b.lastSetCookies.map((c) => c.name)
    for (const name of checkCookies) expect(set).toContain(name)
    for (const c of b.lastSetCookies.filter((c) => checkCookies.includes(c.name))) {
      expect(c.attributes.httponly).toBe(true)
      // Sealed: the verifier and nonce are not in the cookie as sent to the IdP.
      expect(c.value).not.toContain(params.get("state")!)
    }
  })
})

describe("oidc.callback", () => {
  it("after the IdP's pages, returns the verified claims (sub, iss, email)", async () => {
    const { browser } = app()
    const b = browser()
    const callback = await throughIdP(b)
    expect(callback.pathname).toBe("/auth/sso/oidc/acme/callback")
    const response = await b.request(callback.pathname + callback.search)
    expect(response.status).toBe(200)
    const claims = await response.json()
    expect(claims).toMatchObject({ sub: "demo", iss: op.issuer, email: "demo@portcullis.dev", email_verified: true })
  })

  it("refuses a replayed callback (same code and state) as the client's error, without a stack", async () => {
    const { browser, log } = app()
    const b = browser()
    const callback = await throughIdP(b)
    const path = callback.pathname + callback.search
    expect((await b.request(path)).status).toBe(200)
    const replay = await b.request(path)
    expect(replay.status).toBe(400)
    const body = await replay.json()
    expect(["InvalidCheck", "OAuthCallbackError"]).toContain(body.error)
    expect(JSON.stringify(body)).not.toMatch(/\n\s+at |node_modules/)
    expect(log.lines.join("\n")).not.toMatch(/\n\s+at /)
  })

  it("refuses a replay that kept the check cookies too: the IdP redeems a code once", async () => {
    const { browser, log } = app()
    const b = browser()
    const callback = await throughIdP(b)
    const path = callback.pathname + callback.search
    const kept = new Map(b.jar)
    expect((await b.request(path)).status).toBe(200)
    for (const [name, cookie] of kept) b.jar.set(name, cookie)
    const replay = await b.request(path)
    expect(replay.status).toBe(400)
    expect(["InvalidCheck", "OAuthCallbackError"]).toContain((await replay.json()).error)
    expect(log.lines.join("\n")).not.toMatch(/\n\s+at /)
  })

  it("refuses a state from another browser", async () => {
    const { browser } = app()
    const victim = browser()
    const attacker = browser()
    // The victim has checks of its own; the attacker's callback URL is delivered to the victim.
    await start(victim)
    const callback = await throughIdP(attacker)
    const response = await victim.request(callback.pathname + callback.search)
    expect(response.status).toBe(400)
    expect((await response.json()).error).toBe("InvalidCheck")
    // …and with no check cookies at all.
    const fresh = browser()
    const none = await fresh.request(callback.pathname + callback.search)
    expect(none.status).toBe(400)
  })

  it("refuses a callback of one connection delivered to another's route (the checks are bound to the client's id)", async () => {
    const { browser } = app()
    const b = browser()
    const callback = await throughIdP(b, "acme")
    const response = await b.request(`/auth/sso/oidc/globex/callback${callback.search}`)
    expect(response.status).toBe(400)
    expect((await response.json()).error).toBe("InvalidCheck")
  })

  it("refuses an issuer that is not the one discovery names: no redirect to the IdP, InvalidEndpoints logged", async () => {
    const { browser, log } = app()
    const b = browser()
    const response = await start(b, "impostor")
    // The connection's configuration is wrong (as a configured provider's would be): a 500, the detail only in the log.
    expect(response.status).toBe(500)
    expect(response.headers.get("location")).toBeNull()
    expect(await response.json()).toEqual({ error: "InvalidEndpoints", message: "Something went wrong" })
    expect(b.lastSetCookies.filter((c) => checkCookies.includes(c.name) && c.value !== "")).toEqual([])
    expect(log.lines.join("\n")).toMatch(/sso-impostor.*discovery document's issuer/)
  })
})

describe("an IdP that does not answer", () => {
  it("fails authorize with OAuthSignInError (the extension may catch it): no redirect, no check cookies, the cause only in the log", async () => {
    const { browser, log } = app()
    const b = browser()
    const response = await start(b, "down")
    expect(response.status).toBe(500)
    expect(response.headers.get("location")).toBeNull()
    expect(await response.json()).toEqual({ error: "OAuthSignInError", message: "Something went wrong" })
    expect(b.lastSetCookies.filter((c) => checkCookies.includes(c.name) && c.value !== "")).toEqual([])
    expect(log.lines.join("\n")).toMatch(/sso-down/)
  })
})

describe("two instances of one app (one secret)", () => {
  it("a sign-in started on one finishes on the other: the checks live in the browser's sealed cookies", async () => {
    const a = app()
    const b = app()
    const browser = a.browser()
    const callback = await throughIdP(browser)
    const other = new Browser(direct(b.config), ORIGIN)
    for (const [name, cookie] of browser.jar) other.jar.set(name, cookie)
    const response = await other.request(callback.pathname + callback.search)
    expect(response.status).toBe(200)
    expect((await response.json()).sub).toBe("demo")
  })

  it("another secret's instance refuses those cookies", async () => {
    const a = app()
    const b = app({ secret: "another-secret-with-at-least-32-characters!" })
    const browser = a.browser()
    const callback = await throughIdP(browser)
    const other = new Browser(direct(b.config), ORIGIN)
    for (const [name, cookie] of browser.jar) other.jar.set(name, cookie)
    const response = await other.request(callback.pathname + callback.search)
    expect(response.status).toBe(400)
    expect((await response.json()).error).toBe("InvalidCheck")
  })
})

describe("the client", () => {
  it("may not take a configured provider's id: InvalidConfig, a 500 logged as a bug", async () => {
    const { browser, log } = app()
    const response = await start(browser(), "taken")
    expect(response.status).toBe(500)
    expect(log.lines.join("\n")).toMatch(/InvalidConfig[\s\S]*"credentials" of a configured provider/)
  })

  it("is discovered once for two sign-ins", async () => {
    const { browser, discovery } = app()
    for (let i = 0; i < 2; i++) {
      const b = browser()
      const callback = await throughIdP(b)
      expect((await b.request(callback.pathname + callback.search)).status).toBe(200)
    }
    expect(discovery).toEqual([`${op.issuer}/.well-known/openid-configuration`])
  })
})
