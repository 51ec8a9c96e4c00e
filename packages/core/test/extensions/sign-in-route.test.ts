/**
 * `Extension.signInRoute`: the identifier-first page's "Continue" asks the routing
 * extensions about the address typed, and the second step offers the first one's way in (an
 * organization's SSO) above the other methods — or alone with `only`. A form posting the
 * address, the CSRF token and the callback URL to the extension's route; labels escaped; an
 * address without a route gets the same page as without the extension; "Continue" becomes a
 * round trip (no inline step script); the extension's store failing is a 503 page.
 */
import { describe, expect, it } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import { defineExtension, type ExtensionSignInRoute } from "@portcullis/core/extension"
import GitHub from "@portcullis/core/providers/github"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, captureLogger, SECRET } from "../helpers.js"

const ORIGIN = "http://localhost:3000"
const STEP_SCRIPT = 'document.querySelector("form[data-identifier-step]")'

/** The domains the extension routes, as its store holds them; `down` makes the store fail. */
function ssoExtension(state: { down: boolean; asked: string[]; started: Record<string, unknown>[] }) {
  return defineExtension({
    id: "sso",
    setup: (host) => ({
      domains: host.wrapStore("domains", {
        async route(email: string): Promise<{ label: string; only: boolean } | undefined> {
          if (state.down) throw new Error("connect ECONNREFUSED 10.0.0.7:5432 password=hunter2")
          const domain = email.split("@")[1]
          if (domain === "acme.com") return { label: "Continue with Acme SSO", only: false }
          if (domain === "only.com") return { label: "Sign in with Only Inc.", only: true }
          if (domain === "evil.com") return { label: '<script>alert("x")</script>', only: false }
          return undefined
        },
      }),
    }),
    async signInRoute({ email, locals, authUrl }): Promise<ExtensionSignInRoute | undefined> {
      state.asked.push(email)
      const route = await locals.domains.route(email)
      return route && { action: `${authUrl}/sso/start`, ...route }
    },
    routes: [{ method: "POST", path: "start", access: "anyone", handler: (req) => (state.started.push(req.body), { json: { email: req.body.email ?? null } }) }],
  })
}

function config(extensions: AuthConfig["extensions"], logger = captureLogger().logger): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(),
    providers: [GitHub({ clientId: "id", clientSecret: "secret" }), Password({ waitUntil: () => {} }), Nodemailer({ server: "smtp://127.0.0.1:9", from: "auth@example.com" })],
    logger,
    ...(extensions && { extensions }),
  }
}

function app() {
  const state = { down: false, asked: [] as string[], started: [] as Record<string, unknown>[] }
  const log = captureLogger()
  const auth = createAuth(config([ssoExtension(state)], log.logger))
  return { state, log, browser: () => new Browser((request) => auth.handle(request), ORIGIN) }
}

/** The first step's POST, as its form sends it. */
async function identify(browser: Browser, email: string) {
  const csrfToken = await browser.csrfToken()
  const response = await browser.request("/auth/signin", { form: { csrfToken, callbackUrl: "/welcome", email } })
  return { response, body: await response.text() }
}

/** The route's form, if the page has one. */
function routeForm(body: string): string | undefined {
  return /<form method="post" action="[^"]*" data-signin-route>[\s\S]*?<\/form>/.exec(body)?.[0]
}

const normalized = (body: string, email: string) => body.replace(/name="csrfToken" value="[^"]*"/g, 'name="csrfToken" value=""').replaceAll(email, "ADDRESS")

describe("an address the extension routes", () => {
  it("gets the extension's button first: a form posting the address, the CSRF token and the callback URL to its route", async () => {
    const { browser, state } = app()
    const b = browser()
    const { response, body } = await identify(b, "ada@acme.com")
    expect(response.status).toBe(200)
    expect(state.asked).toEqual(["ada@acme.com"])
    const form = routeForm(body)!
    expect(form).toContain(`action="${ORIGIN}/auth/sso/start"`)
    expect(form).toMatch(/<input type="hidden" name="csrfToken" value="[^"]+">/)
    expect(form).toContain(`<input type="hidden" name="callbackUrl" value="${ORIGIN}/welcome">`)
    expect(form).toMatch(/name="email" value="ada@acme\.com"/)
    expect(form).toContain(">Continue with Acme SSO</button>")
    // Above the other methods, which stay.
    expect(body.indexOf("data-signin-route")).toBeLessThan(body.indexOf(`action="${ORIGIN}/auth/callback/password"`))
    expect(body).toContain(`action="${ORIGIN}/auth/signin/nodemailer"`)
    // The form works: core's CSRF check passes and the route gets the address.
    const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(form)![1]!
    const started = await b.request("/auth/sso/start", { form: { csrfToken, callbackUrl: `${ORIGIN}/welcome`, email: "ada@acme.com" } })
    expect(started.status).toBe(200)
    expect(state.started).toMatchObject([{ callbackUrl: `${ORIGIN}/welcome`, email: "ada@acme.com" }])
  })

  it("with only: the extension's button and no password or email-link form", async () => {
    const { browser } = app()
    const { body } = await identify(browser(), "bob@only.com")
    expect(routeForm(body)).toContain(">Sign in with Only Inc.</button>")
    expect(body).not.toContain(`/auth/callback/password"`)
    expect(body).not.toContain(`/auth/signin/nodemailer"`)
    expect(body).not.toContain('type="password"')
    expect(body).not.toContain('class="divider"')
  })

  it("escapes the label", async () => {
    const { browser } = app()
    const { body } = await identify(browser(), "eve@evil.com")
    expect(routeForm(body)).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</button>")
    expect(body).not.toContain('<script>alert("x")</script>')
  })
})

describe("an address no extension routes", () => {
  it("gets the same second step as without the extension", async () => {
    const { browser } = app()
    const plain = createAuth(config(undefined))
    const routed = await identify(browser(), "grace@example.com")
    const before = await identify(new Browser((r) => plain.handle(r), ORIGIN), "grace@example.com")
    expect(routed.response.status).toBe(200)
    expect(routeForm(routed.body)).toBeUndefined()
    expect(normalized(routed.body, "grace@example.com")).toBe(normalized(before.body, "grace@example.com"))
  })

  it("an invalid address is not asked about: the first step again, 400", async () => {
    const { browser, state } = app()
    const { response } = await identify(browser(), "not an address")
    expect(response.status).toBe(400)
    expect(state.asked).toEqual([])
  })
})

describe("the first step", () => {
  it("with a routing extension, has no inline step script: Continue is a round trip", async () => {
    const { browser } = app()
    const body = await (await browser().request("/auth/signin")).text()
    expect(body).toContain("data-identifier-step")
    expect(body).not.toContain(STEP_SCRIPT)
  })

  it("without one (or with an extension that routes nothing), keeps the script", async () => {
    for (const extensions of [undefined, [defineExtension({ id: "notes" })]]) {
      const auth = createAuth(config(extensions))
      const body = await (await new Browser((r) => auth.handle(r), ORIGIN).request("/auth/signin")).text()
      expect(body).toContain(STEP_SCRIPT)
    }
  })
})

describe("a route's action", () => {
  it("may be the extension's root route", async () => {
    const root = defineExtension({ id: "sso", signInRoute: ({ authUrl }) => ({ action: `${authUrl}/sso`, label: "SSO", only: false }), routes: [{ method: "POST", path: "", access: "anyone", handler: () => ({ json: {} }) }] })
    const auth = createAuth(config([root]))
    const { body } = await identify(new Browser((r) => auth.handle(r), ORIGIN), "ada@acme.com")
    expect(routeForm(body)).toContain(`action="${ORIGIN}/auth/sso"`)
  })

  it.each([
    "https://evil.example/auth/sso/start",
    "http://localhost:3000/auth/signout",
    "http://localhost:3000/auth/ssox/start",
    "http://localhost:3000/auth/sso/../signout",
    "http://localhost:3000/auth/sso/%2e%2e/signout",
    "/auth/sso/start",
    "javascript:alert(1)",
  ])(
    "that is not one of the extension's routes (%s) is refused as a bug: no form carries the token there",
    async (action) => {
      const log = captureLogger()
      const leaky = defineExtension({ id: "sso", signInRoute: () => ({ action, label: "SSO", only: false }) })
      const auth = createAuth(config([leaky], log.logger))
      const b = new Browser((r) => auth.handle(r), ORIGIN)
      const { response, body } = await identify(b, "ada@acme.com")
      expect(response.status).not.toBe(200)
      expect(body).not.toContain("data-signin-route")
      expect(log.lines.join("\n")).toMatch(/InvalidConfig[\s\S]*not one of its routes/)
    },
  )
})

describe("the extension's store failing", () => {
  it("answers the second step with the 503 error page, without the store's message", async () => {
    const { browser, state, log } = app()
    const b = browser()
    state.down = true
    const { response } = await identify(b, "ada@acme.com")
    // As every action's outage: to the error page, which answers 503 (no half-rendered step).
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=ServiceUnavailable`)
    const page = await b.request(response.headers.get("location")!)
    expect(page.status).toBe(503)
    expect(page.headers.get("content-type")).toMatch(/text\/html/)
    expect(await page.text()).not.toMatch(/hunter2|10\.0\.0\.7|\n\s+at /)
    expect(log.lines.some((l) => l.startsWith("ServiceUnavailable"))).toBe(true)
    // The store back, the same browser continues.
    state.down = false
    expect(routeForm((await identify(b, "ada@acme.com")).body)).toBeDefined()
  })
})
