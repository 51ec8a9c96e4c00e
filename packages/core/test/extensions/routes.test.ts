/**
 * The extension API's routes (docs/extensions.md): served under `<basePath>/<id>/…`, with
 * core's checks applied before the handler — the method, the origin and the CSRF token on a
 * `POST`, the session (and step-up), the rate limit — and refusals answered in the route's
 * form, logged by cause, never with a stack or a store's message.
 */
import { describe, expect, it, vi } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { defineExtension, ExtensionRequestError, html } from "@portcullis/core/extension"
import { extensionFunctions } from "@portcullis/core/integration"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, captureLogger, credentialsConfig, direct } from "../helpers.js"

/** A small extension: notes per user, in a store core wraps. */
function notes(options: { failing?: () => boolean } = {}) {
  return defineExtension({
    id: "notes",
    setup: (host) => {
      const map = new Map<string, string>()
      const raw = {
        async get(userId: string) {
          if (options.failing?.()) throw new Error("connect ECONNREFUSED 10.0.0.7:5432 password=hunter2")
          return map.get(userId) ?? null
        },
        async set(userId: string, text: string) {
          if (options.failing?.()) throw new Error("connect ECONNREFUSED 10.0.0.7:5432 password=hunter2")
          map.set(userId, text)
        },
      }
      return { store: host.wrapStore("notes", raw), audited: [] as string[] }
    },
    messages: { en: { hello: "Hello, {name}", "error.title": "Notes error" }, de: { hello: "Hallo, {name}" } },
    routes: [
      {
        method: "POST",
        path: "",
        rateLimit: { max: 3, window: 60 },
        async handler(req) {
          const session = await req.requireSession()
          if (typeof req.body.text !== "string") throw new ExtensionRequestError("invalid-text", "text is required", 422)
          await req.locals.store.set(session.userId, req.body.text)
          await req.audit({ type: "saved", outcome: "success", userId: session.userId })
          return { json: { saved: true } }
        },
      },
      { method: "GET", path: "", async handler(req) { const s = await req.requireSession(); return { json: { text: await req.locals.store.get(s.userId) } } } },
      { method: "GET", path: "hello/:name", access: "anyone", answers: "page", handler: (req) => req.page("Hello", html`<h1>${req.t("hello", { name: req.params.name! })}</h1>`) },
      { method: "POST", path: "wipe", stepUp: true, handler: () => ({ json: { wiped: true } }) },
    ],
    session: { fields: async ({ session, locals }) => ({ hasNote: (await locals.store.get(session.userId)) !== null }), claims: ({ userId }) => ({ since: userId.length }) },
    server: (call) => ({
      async mine() {
        const s = await call.requireSession()
        return call.locals.store.get(s.userId)
      },
    }),
  })
}

function setup(extra: Partial<AuthConfig> = {}, ext = notes()) {
  const audit: { type: string }[] = []
  const log = captureLogger()
  const config = credentialsConfig({ extensions: [ext], events: { audit: (e) => void audit.push(e) }, logger: log.logger, ...extra })
  return { config, audit, log, browser: new Browser(direct(config)) }
}

async function post(browser: Browser, path: string, body: Record<string, string>, headers: Record<string, string> = {}) {
  return browser.request(path, { form: body, headers })
}

describe("an extension's routes", () => {
  it("serve a signed-in user, with the CSRF token, and emit the extension's audit event", async () => {
    const { browser, audit } = setup()
    await browser.signIn()
    const csrfToken = await browser.csrfToken()
    const saved = await post(browser, "/auth/notes", { text: "remember", csrfToken })
    expect(saved.status).toBe(200)
    expect(await saved.json()).toEqual({ saved: true })
    expect(await (await browser.request("/auth/notes")).json()).toEqual({ text: "remember" })
    expect(audit.map((e) => e.type)).toContain("notes.saved")
  })

  it("refuse a POST without the CSRF token, or from another origin with it", async () => {
    const { browser } = setup()
    await browser.signIn()
    const csrfToken = await browser.csrfToken()
    expect((await post(browser, "/auth/notes", { text: "x" })).status).toBe(403)
    const crossSite = await post(browser, "/auth/notes", { text: "x", csrfToken }, { origin: "https://evil.example" })
    expect(crossSite.status).toBe(403)
    expect(await crossSite.json()).toMatchObject({ error: "MissingCSRF" })
    // The header a client library sends works as the form field does.
    expect((await browser.request("/auth/notes", { json: { text: "y" }, headers: { "x-csrf-token": csrfToken } })).status).toBe(200)
  })

  it("answer 401 without a session, 404 for an unknown route, 405 with Allow for the wrong method", async () => {
    const { browser } = setup()
    expect((await browser.request("/auth/notes")).status).toBe(401)
    expect((await browser.request("/auth/notes/nope")).status).toBe(404)
    const wrong = await browser.request("/auth/notes/wipe")
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get("allow")).toBe("POST")
  })

  it("rate-limit per address and per user, with Retry-After", async () => {
    const { browser } = setup({ rateLimit: {} })
    await browser.signIn()
    const csrfToken = await browser.csrfToken()
    const statuses = []
    for (let i = 0; i < 5; i++) statuses.push((await post(browser, "/auth/notes", { text: String(i), csrfToken })).status)
    expect(statuses).toEqual([200, 200, 200, 429, 429])
    const limited = await post(browser, "/auth/notes", { text: "x", csrfToken })
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
  })

  it("answer a validation refusal with its status and code, logged as a warning without a stack", async () => {
    const { browser, log } = setup()
    await browser.signIn()
    const csrfToken = await browser.csrfToken()
    const refused = await post(browser, "/auth/notes", { csrfToken })
    expect(refused.status).toBe(422)
    expect(await refused.json()).toEqual({ error: "invalid-text", message: "text is required" })
    expect(log.lines.some((l) => l.startsWith("extension-refused"))).toBe(true)
    expect(log.lines.join("\n")).not.toMatch(/\n\s+at /)
  })

  it("need a recent re-authentication for a stepUp route", async () => {
    const { browser } = setup()
    await browser.signIn()
    const csrfToken = await browser.csrfToken()
    // Fresh from the sign-in: allowed. Eleven minutes on (Date only): past stepUp.maxAge.
    expect((await post(browser, "/auth/notes/wipe", { csrfToken })).status).toBe(200)
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 11 * 60_000 })
    try {
      const refused = await post(browser, "/auth/notes/wipe", { csrfToken })
      expect(refused.status).toBe(403)
      expect(await refused.json()).toMatchObject({ error: "StepUpRequired" })
    } finally {
      vi.useRealTimers()
    }
  })

  it("render pages in the theme and the request's language, escaping what the URL carries", async () => {
    const { browser } = setup()
    const page = await browser.request("/auth/notes/hello/%3Cscript%3E", { headers: { "accept-language": "de" } })
    expect(page.status).toBe(200)
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
    const text = await page.text()
    expect(text).toContain("Hallo, &lt;script&gt;")
    expect(text).not.toContain("<script>")
  })

  it("answer 503 without the store's message when the extension's store fails, and log the outage once", async () => {
    let down = false
    const { browser, log } = setup({}, notes({ failing: () => down }))
    await browser.signIn()
    down = true
    const failed = await browser.request("/auth/notes")
    expect(failed.status).toBe(503)
    const body = JSON.stringify(await failed.json())
    expect(body).not.toContain("hunter2")
    expect(body).not.toContain("10.0.0.7")
    await browser.request("/auth/notes")
    // The first failure with its chain (for the operator), the second counted, not logged again.
    expect(log.lines.filter((l) => l.startsWith("ServiceUnavailable")).length).toBe(1)
  })
})

describe("a request under an extension's id", () => {
  it("is the extension's, whatever core's route table says: PUT is 405 with Allow GET, POST", async () => {
    const { browser } = setup()
    const put = await browser.request("/auth/notes", { method: "PUT" })
    expect(put.status).toBe(405)
    expect(put.headers.get("allow")).toBe("GET, POST")
  })

  it("decodes each segment once (an encoded slash stays in its segment), and refuses bad percent-encoding", async () => {
    const { browser, log } = setup()
    const page = await browser.request("/auth/notes/hello/a%2Fb")
    expect(page.status).toBe(200)
    expect(await page.text()).toContain("Hello, a/b")
    expect((await browser.request("/auth/notes/hello/%E0%A4%A")).status).toBe(400)
    // Refused as the malformed request it is, not passed on as an unknown action.
    expect(log.lines.filter((l) => l.startsWith("request-malformed")).join("\n")).toMatch(/"kind":"InvalidRequest".*percent-encoding/)
  })

  it("is no extension's when the id is not configured: core's unknown action", async () => {
    const { browser } = setup()
    expect((await browser.request("/auth/other/thing")).status).toBe(400)
  })

  it("keeps the origin checks of core: an untrusted Host is refused before the extension runs", async () => {
    const config = credentialsConfig({ extensions: [notes()], trustHost: false, trustedOrigins: ["http://localhost:3000"] })
    const response = await Auth(new Request("http://evil.example/auth/notes/hello/x"), config)
    expect(response.status).toBe(400)
  })
})

describe("an extension in the session", () => {
  it("adds its fields under its id, read fresh on each check", async () => {
    const { browser } = setup()
    await browser.signIn()
    expect((await browser.session()).notes).toEqual({ hasNote: false })
    const csrfToken = await browser.csrfToken()
    await post(browser, "/auth/notes", { text: "x", csrfToken })
    expect((await browser.session()).notes).toEqual({ hasNote: true })
  })

  it("keeps its claims in the JWT under pcl_x", async () => {
    const { config, browser } = setup()
    await browser.signIn()
    const { decode } = await import("@portcullis/core/jwt")
    const token = await decode({ token: browser.sessionCookie()!, secret: config.secret as string, salt: "authjs.session-token" })
    expect(token?.pcl_x).toEqual({ notes: { since: "user-ada".length } })
  })

  it("works with database sessions too", async () => {
    const adapter = MemoryAdapter()
    await adapter.createUser!({ id: "user-ada", email: "ada@example.com", emailVerified: null, name: "Ada" })
    const { browser } = setup({ adapter, session: { strategy: "database" } })
    // Credentials sign-in needs JWT sessions in Auth.js; sign in through the adapter instead.
    const expires = new Date(Date.now() + 3600_000)
    await adapter.createSession!({ sessionToken: "tok-1", userId: "user-ada", expires })
    browser.jar.set("authjs.session-token", { value: "tok-1", attributes: {} })
    expect((await browser.session()).notes).toEqual({ hasNote: false })
  })
})

describe("an extension's server functions", () => {
  it("are exposed under its id, bound to the request's session", async () => {
    const { config, browser } = setup()
    await browser.signIn()
    const csrfToken = await browser.csrfToken()
    await post(browser, "/auth/notes", { text: "server", csrfToken })
    const fns = await extensionFunctions({ origin: "http://localhost:3000", headers: new Headers({ cookie: browser.cookieHeader() }) }, config)
    expect(await fns.notes.mine()).toBe("server")
  })

  it("refuse a change another site sent", async () => {
    const { config, browser } = setup()
    await browser.signIn()
    const fns = await extensionFunctions({ origin: "http://localhost:3000", method: "POST", headers: new Headers({ cookie: browser.cookieHeader(), origin: "https://evil.example" }) }, config)
    expect(() => fns.notes).toThrow(/another origin/)
  })
})

describe("the extensions option", () => {
  it.each([
    [[{ id: "signin" }], /core's actions/],
    [[{ id: "Bad Id" }], /lowercase/],
    [[{ id: "x" }, { id: "x" }], /Two extensions/],
    [[{ id: "x", routes: [{ method: "TRACE", path: "", handler() {} }] }], /method/],
    [[{ id: "x", routes: [{ method: "PUT", path: "", handler() {} }] }], /PUT routes are for machine clients/],
    [[{ id: "x", routes: [{ method: "POST", path: "", from: "anywhere", handler() {} }] }], /must be access: "anyone"/],
    [[{ id: "x", messages: { de: {} } }], /English/],
    [[{ id: "x", session: { budget: 5000 } }], /budget/],
  ])("refuses %j as a configuration error", async (extensions, message) => {
    const log = captureLogger()
    const config = credentialsConfig({ extensions: extensions as never, logger: log.logger })
    const response = await Auth(new Request("http://localhost:3000/auth/session"), config)
    expect(response.status).toBe(500)
    expect(log.lines.join("\n")).toMatch(message)
  })
})

describe("a logger that throws", () => {
  it("cannot turn an extension's store outage into a 500: still 503", async () => {
    let down = false
    const throwing = { error: () => { throw new Error("the log sink is full") }, warn: () => { throw new Error("full") }, debug: () => {} }
    const config = credentialsConfig({ extensions: [notes({ failing: () => down })], logger: throwing })
    const browser = new Browser(direct(config))
    await browser.signIn()
    down = true
    expect((await browser.request("/auth/notes")).status).toBe(503)
    // A client's refusal, logged as a warning through the same throwing logger: still its 4xx.
    expect((await browser.request("/auth/notes/nope")).status).toBe(404)
  })
})
