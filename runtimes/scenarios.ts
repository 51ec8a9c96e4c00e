/**
 * The runtime matrix's scenarios, written once against Web-standard APIs only (`Request`,
 * `Response`, `fetch`, `URL`, `Headers`, WebCrypto): no `node:` import, no `process`, no
 * test framework. Each runtime's driver (`runtimes/drivers/*`) calls {@link runScenarios}
 * inside that runtime and reports the results as JSON; `runtimes/test/*.test.ts` (Node,
 * vitest) starts the runtime and asserts that every name in {@link scenarioNames} passed.
 *
 * The core runs through `Auth(request, config)` in-process, with JWT sessions and no
 * database. The OpenID provider is a real `oidc-provider` process the Node-side test starts
 * on loopback; its address comes in through {@link ScenarioEnv}.
 * @module
 */
import { Auth, type AuthConfig } from "@portcullis/core"
import { decode, encode, getToken } from "@portcullis/core/jwt"
import Credentials from "@portcullis/core/providers/credentials"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"

/** What the Node-side test hands a driver. */
export interface ScenarioEnv {
  /** The local OpenID provider (started by the test) and this app's client there. */
  oidc?: { issuer: string; clientId: string; clientSecret: string }
}

/** One scenario's outcome, as a driver reports it. */
export interface ScenarioResult {
  name: string
  ok: boolean
  ms: number
  error?: string
}

/** The app origin the in-process requests use; the OpenID client's redirect URI names it. */
export const APP_ORIGIN = "http://localhost:3000"
export const OIDC_PROVIDER_ID = "local-oidc"
const SECRET = "runtime-matrix-secret-with-at-least-32-characters"
const ada = { username: "ada", password: "correct horse battery staple" }

/** Fails the current scenario with a message naming what was expected. */
function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message)
}

function appConfig(env: ScenarioEnv): AuthConfig {
  const providers: AuthConfig["providers"] = [
    Credentials({
      credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
      authorize({ username, password }) {
        if (username === ada.username && password === ada.password) return { id: "user-ada", name: "Ada Lovelace", email: "ada@example.com" }
        return null
      },
    }),
  ]
  if (env.oidc) {
    const oidc: OAuthConfig<Record<string, unknown>> = {
      id: OIDC_PROVIDER_ID,
      name: "Local OIDC",
      type: "oidc",
      issuer: env.oidc.issuer,
      clientId: env.oidc.clientId,
      clientSecret: env.oidc.clientSecret,
      allowInsecureLoopback: true,
    }
    providers.push(oidc)
  }
  return {
    secret: SECRET,
    trustHost: true,
    session: { strategy: "jwt" },
    providers,
    callbacks: {
      jwt({ token, trigger, session }) {
        if (trigger === "update" && typeof session?.name === "string") token.name = session.name
        return token
      },
    },
  }
}

/** A cookie jar and `Request` builder: enough of a browser to walk the flows. */
export class Browser {
  readonly jar = new Map<string, string>()
  private readonly send: (request: Request) => Promise<Response>
  readonly origin: string

  constructor(send: (request: Request) => Promise<Response>, origin: string) {
    this.send = send
    this.origin = origin
  }

  async request(path: string, init: { method?: string; form?: Record<string, string>; json?: unknown } = {}): Promise<Response> {
    const headers = new Headers()
    if (this.jar.size) headers.set("cookie", [...this.jar].map(([name, value]) => `${name}=${value}`).join("; "))
    let body: string | undefined
    if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      body = new URLSearchParams(init.form).toString()
    } else if (init.json !== undefined) {
      headers.set("content-type", "application/json")
      body = JSON.stringify(init.json)
    }
    const method = init.method ?? (body === undefined ? "GET" : "POST")
    const response = await this.send(new Request(new URL(path, this.origin), { method, headers, body, redirect: "manual" }))
    for (const header of response.headers.getSetCookie()) {
      const [pair = ""] = header.split(";")
      const eq = pair.indexOf("=")
      const name = pair.slice(0, eq).trim()
      const value = pair.slice(eq + 1).trim()
      if (value === "" || /;\s*max-age=0(;|$)/i.test(header)) this.jar.delete(name)
      else this.jar.set(name, value)
    }
    return response
  }

  async csrfToken(): Promise<string> {
    const { csrfToken } = (await (await this.request("/auth/csrf")).json()) as { csrfToken?: unknown }
    check(typeof csrfToken === "string" && csrfToken.length > 0, "GET /auth/csrf returns a csrfToken")
    return csrfToken
  }

  async session(): Promise<any> {
    const response = await this.request("/auth/session")
    check(response.status === 200, `GET /auth/session answers 200, got ${response.status}`)
    return response.json()
  }
}

/** Where a 302 sends the browser (a failed check otherwise). */
export function redirectTarget(response: Response, base: string): URL {
  const location = response.headers.get("location")
  check(response.status === 302 && location, `a 302 redirect, got ${response.status}`)
  return new URL(location, base)
}

/**
 * Walks the provider's development login and consent pages from the authorization URL
 * until it redirects back to the app; returns that callback URL.
 */
export async function throughProvider(authorization: URL, appOrigin: string): Promise<URL> {
  const provider = new Browser((request) => fetch(request), authorization.origin)
  let url = authorization
  let response = await provider.request(url.href)
  for (let step = 0; step < 20; step++) {
    const location = response.headers.get("location")
    if (response.status >= 300 && response.status < 400 && location) {
      url = new URL(location, url)
      if (url.origin === appOrigin) return url
      response = await provider.request(url.href)
      continue
    }
    const html = await response.text()
    check(response.status === 200, `the provider's page answers 200, got ${response.status}`)
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
    check(action, "the provider's page has a form")
    const form: Record<string, string> = {}
    for (const [, name = "", value = ""] of html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) form[name] = value
    if (/name="login"/.test(html)) Object.assign(form, { login: "demo", password: "any password" })
    url = new URL(action.replace(/&amp;/g, "&"), url)
    response = await provider.request(url.href, { form })
  }
  throw new Error("the provider never redirected back to the app")
}

type Scenario = readonly [name: string, run: () => Promise<void>]

function scenarios(env: ScenarioEnv): Scenario[] {
  const config = appConfig(env)
  const app = (request: Request) => Auth(request, config)
  const browser = new Browser(app, APP_ORIGIN)

  return [
    ["csrf: GET /auth/csrf returns a token and sets its cookie", async () => {
      await browser.csrfToken()
      check([...browser.jar.keys()].some((name) => name.endsWith("authjs.csrf-token")), "the csrf cookie is set")
    }],
    ["credentials: a wrong password is refused with CredentialsSignin and no session", async () => {
      const csrfToken = await browser.csrfToken()
      const response = await browser.request("/auth/callback/credentials", { form: { username: "ada", password: "wrong", csrfToken } })
      const target = redirectTarget(response, APP_ORIGIN)
      check(target.searchParams.get("error") === "CredentialsSignin", `redirected with error=CredentialsSignin, got ${target.href}`)
      check(!browser.jar.has("authjs.session-token"), "no session cookie")
    }],
    ["credentials: a POST without the csrf token is refused", async () => {
      const response = await browser.request("/auth/callback/credentials", { form: { ...ada } })
      const target = redirectTarget(response, APP_ORIGIN)
      check(target.searchParams.get("error") === "MissingCSRF", `redirected with error=MissingCSRF, got ${target.href}`)
      check(!browser.jar.has("authjs.session-token"), "no session cookie")
    }],
    ["credentials: sign-in sets a JWT session cookie and redirects", async () => {
      const csrfToken = await browser.csrfToken()
      const response = await browser.request("/auth/callback/credentials", { form: { ...ada, csrfToken, callbackUrl: "/dashboard" } })
      check(redirectTarget(response, APP_ORIGIN).href === `${APP_ORIGIN}/dashboard`, "redirected to the callback URL")
      check(browser.jar.get("authjs.session-token")?.split(".").length === 5, "the session cookie holds a JWE")
    }],
    ["session: GET /auth/session returns the signed-in user", async () => {
      const session = await browser.session()
      check(session?.user?.email === "ada@example.com" && session.user.name === "Ada Lovelace", `the user, got ${JSON.stringify(session)}`)
      check(typeof session.expires === "string", "an expiry")
    }],
    ["update: POST /auth/session with data reaches the jwt callback and rewrites the cookie", async () => {
      const csrfToken = await browser.csrfToken()
      const response = await browser.request("/auth/session", { json: { csrfToken, data: { name: "Countess Lovelace" } } })
      check(response.status === 200, `200, got ${response.status}`)
      const updated = (await response.json()) as any
      check(updated?.user?.name === "Countess Lovelace", `the updated session, got ${JSON.stringify(updated)}`)
      check((await browser.session())?.user?.name === "Countess Lovelace", "later reads see the update")
    }],
    ["session: a forged session cookie reads as signed out, not a crash", async () => {
      const forged = new Browser(app, APP_ORIGIN)
      forged.jar.set("authjs.session-token", "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIn0..forged.forged.forged")
      const session = await forged.session()
      check(session === null, `null, got ${JSON.stringify(session)}`)
    }],
    ["jwt: getToken reads and decodes the session cookie of a request", async () => {
      const cookie = browser.jar.get("authjs.session-token")
      check(cookie, "signed in")
      const request = new Request(`${APP_ORIGIN}/api`, { headers: { cookie: `authjs.session-token=${cookie}` } })
      const token = await getToken({ req: request, secret: SECRET })
      check(token?.email === "ada@example.com" && token.name === "Countess Lovelace", `the token, got ${JSON.stringify(token)}`)
      check((await getToken({ req: request, secret: SECRET, raw: true })) === cookie, "raw: the cookie's value")
    }],
    ["sign-out: POST /auth/signout clears the session", async () => {
      const csrfToken = await browser.csrfToken()
      const response = await browser.request("/auth/signout", { form: { csrfToken } })
      redirectTarget(response, APP_ORIGIN)
      check(!browser.jar.has("authjs.session-token"), "the session cookie is deleted")
      check((await browser.session()) === null, "the session reads null")
    }],
    ["jwt: encode and decode round-trip; another secret or salt is rejected", async () => {
      const token = await encode({ token: { sub: "42", role: "admin" }, secret: SECRET, salt: "runtime-salt" })
      const payload = await decode({ token, secret: SECRET, salt: "runtime-salt" })
      check(payload?.sub === "42" && payload.role === "admin", `the payload back, got ${JSON.stringify(payload)}`)
      // As Auth.js's decode: a token no secret opens rejects (null is only for no token).
      const refused = (promise: Promise<unknown>) => promise.then(() => false, () => true)
      check(await refused(decode({ token, secret: `${SECRET}-other`, salt: "runtime-salt" })), "another secret: rejected")
      check(await refused(decode({ token, secret: SECRET, salt: "other-salt" })), "another salt: rejected")
      check((await decode({ token: undefined, secret: SECRET, salt: "runtime-salt" })) === null, "no token: null")
    }],
    ["oidc: sign-in through the local OpenID provider gives a session", async () => {
      check(env.oidc, "the test started an OpenID provider")
      const user = new Browser(app, APP_ORIGIN)
      const csrfToken = await user.csrfToken()
      const start = await user.request(`/auth/signin/${OIDC_PROVIDER_ID}`, { form: { csrfToken, callbackUrl: "/after-oidc" } })
      const authorization = redirectTarget(start, APP_ORIGIN)
      check(authorization.origin === new URL(env.oidc.issuer).origin, `sent to the provider, got ${authorization.href}`)
      const callback = await throughProvider(authorization, APP_ORIGIN)
      const done = await user.request(callback.pathname + callback.search)
      check(redirectTarget(done, APP_ORIGIN).href === `${APP_ORIGIN}/after-oidc`, "back at the callback URL")
      const session = await user.session()
      check(typeof session?.user?.email === "string" && session.user.email.length > 0, `a session with the provider's user, got ${JSON.stringify(session)}`)
    }],
    ["oidc: a callback with a forged state is refused without a session", async () => {
      check(env.oidc, "the test started an OpenID provider")
      const user = new Browser(app, APP_ORIGIN)
      const response = await user.request(`/auth/callback/${OIDC_PROVIDER_ID}?code=forged&state=forged&iss=${encodeURIComponent(env.oidc.issuer)}`)
      const target = redirectTarget(response, APP_ORIGIN)
      check(target.searchParams.has("error"), `redirected with an error, got ${target.href}`)
      check(!user.jar.has("authjs.session-token"), "no session cookie")
    }],
    ["pages: the sign-in page renders HTML listing the providers", async () => {
      const response = await browser.request("/auth/signin")
      const html = await response.text()
      check(response.status === 200 && response.headers.get("content-type")?.startsWith("text/html"), `HTML, got ${response.status}`)
      check(html.includes("/auth/callback/credentials"), "the credentials form")
      check(!env.oidc || html.includes("Local OIDC"), "the OpenID provider's button")
      check(/frame-ancestors 'none'/.test(response.headers.get("content-security-policy") ?? ""), "a CSP forbidding framing")
    }],
    ["pages: the error page renders the error's code with a matching status", async () => {
      const response = await browser.request("/auth/error?error=AccessDenied")
      const html = await response.text()
      check(response.status === 403 && response.headers.get("content-type")?.startsWith("text/html"), `403 HTML, got ${response.status}`)
      check(/access denied|not have permission/i.test(html), "the AccessDenied text")
    }],
    ["pages: an unknown action is a 400, not a crash", async () => {
      const response = await browser.request("/auth/not-an-action")
      check(response.status === 400, `400, got ${response.status}`)
    }],
  ]
}

/** The names a driver must report, in order: a missing one fails the matrix. */
export const scenarioNames: readonly string[] = scenarios({ oidc: { issuer: "http://127.0.0.1:1", clientId: "-", clientSecret: "-" } }).map(([name]) => name)

/** Runs every scenario in order (later ones build on the session of earlier ones). */
export async function runScenarios(env: ScenarioEnv): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = []
  for (const [name, run] of scenarios(env)) {
    const started = performance.now()
    try {
      await run()
      results.push({ name, ok: true, ms: Math.round(performance.now() - started) })
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
      results.push({ name, ok: false, ms: Math.round(performance.now() - started), error: message })
    }
  }
  return results
}
