/**
 * `cors: true` on a `from: "anywhere"` route: core answers the browser's preflight for its
 * path and puts `Access-Control-Allow-Origin: *` (never with credentials) on every answer of
 * the route — refusals, 429 and 503 too, or the script would see a network error instead of
 * the error it must act on. Routes without it get no CORS headers and a refused preflight,
 * and `cors` on a route that may read cookies is a configuration error.
 */
import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { ExtensionRequestError, defineExtension, type ExtensionRoute } from "@portcullis/core/extension"
import { Browser, captureLogger, credentialsConfig, direct } from "../helpers.js"

const ORIGIN = "http://localhost:3000"
const SPA = "https://spa.example"

function api(options: { down?: () => boolean } = {}) {
  const store = { read: async () => (options.down?.() ? Promise.reject(new Error("connect ECONNREFUSED 10.0.0.7 password=hunter2")) : "ok") }
  return defineExtension({
    id: "api",
    setup: (host) => ({ store: host.wrapStore("api", store) }),
    routes: [
      { method: "POST", path: "token", access: "anyone", from: "anywhere", cors: true, handler: async (req) => (req.body.grant === "bad" ? Promise.reject(new ExtensionRequestError("invalid_grant", "no", 400)) : { json: { token: "t" } }) },
      { method: "GET", path: "info", access: "anyone", from: "anywhere", cors: true, rateLimit: { max: 2, window: 60 }, handler: async (req) => ({ json: { v: await req.locals.store.read() }, headers: { "WWW-Authenticate": 'Bearer error="insufficient_scope"' } }) },
      { method: "POST", path: "info", access: "anyone", from: "anywhere", cors: true, handler: () => ({ json: {} }) },
      // What a page of another site's script would love to read: whose browser this is.
      { method: "GET", path: "me", access: "anyone", from: "anywhere", cors: true, handler: async (req) => ({ json: { user: (await req.session())?.userId ?? null } }) },
      // A machine route without cors, and a page route: neither answers a preflight.
      { method: "POST", path: "plain", access: "anyone", from: "anywhere", handler: () => ({ json: { ok: true } }) },
      { method: "GET", path: "page", access: "anyone", handler: (req) => req.page("Hi", [] as never) },
    ],
  })
}

function setup(extra: Partial<AuthConfig> = {}, options: { down?: () => boolean } = {}) {
  const log = captureLogger()
  const config = credentialsConfig({ extensions: [api(options)], logger: log.logger, ...extra })
  const send = (path: string, init: RequestInit = {}) => Auth(new Request(new URL(path, ORIGIN), { ...init, headers: { origin: SPA, ...(init.headers as Record<string, string>) } }), config)
  return { log, send, config }
}

const form = (body: Record<string, string>): RequestInit => ({ method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(body).toString() })

describe("the preflight of a cors route", () => {
  it("answers 204 with any origin, the path's methods, the documented headers and a max age — no credentials", async () => {
    const { send } = setup()
    const answer = await send("/auth/api/info", { method: "OPTIONS", headers: { "access-control-request-method": "GET", "access-control-request-headers": "authorization" } })
    expect(answer.status).toBe(204)
    expect(answer.headers.get("access-control-allow-origin")).toBe("*")
    expect(answer.headers.get("access-control-allow-methods")).toBe("GET, POST")
    expect(answer.headers.get("access-control-allow-headers")).toBe("authorization, content-type, dpop, mcp-protocol-version")
    expect(Number(answer.headers.get("access-control-max-age"))).toBeGreaterThan(0)
    expect(answer.headers.get("access-control-allow-credentials")).toBeNull()
    expect(answer.headers.get("set-cookie")).toBeNull()
    expect((await send("/auth/api/token", { method: "OPTIONS" })).headers.get("access-control-allow-methods")).toBe("POST")
  })

  it("is refused for routes without cors (405, no CORS headers), an unknown path (404), and core's own actions", async () => {
    const { send } = setup()
    for (const path of ["/auth/api/plain", "/auth/api/page"]) {
      const answer = await send(path, { method: "OPTIONS" })
      expect(answer.status).toBe(405)
      expect(answer.headers.get("access-control-allow-origin")).toBeNull()
    }
    expect((await send("/auth/api/nope", { method: "OPTIONS" })).status).toBe(404)
    const core = await send("/auth/session", { method: "OPTIONS" })
    expect(core.status).toBe(405)
    expect(core.headers.get("access-control-allow-origin")).toBeNull()
  })
})

describe("the answers of a cors route", () => {
  it("carry Access-Control-Allow-Origin: * and expose WWW-Authenticate, on success and on refusal; never credentials", async () => {
    const { send } = setup()
    const ok = await send("/auth/api/info")
    expect(ok.status).toBe(200)
    expect(ok.headers.get("access-control-allow-origin")).toBe("*")
    expect(ok.headers.get("access-control-expose-headers")).toMatch(/WWW-Authenticate/)
    expect(ok.headers.get("www-authenticate")).toContain("insufficient_scope")
    expect(ok.headers.get("access-control-allow-credentials")).toBeNull()
    const refused = await send("/auth/api/token", form({ grant: "bad" }))
    expect(refused.status).toBe(400)
    expect((await refused.json()).error).toBe("invalid_grant")
    expect(refused.headers.get("access-control-allow-origin")).toBe("*")
    const granted = await send("/auth/api/token", form({ grant: "good" }))
    expect(granted.status).toBe(200)
    expect(granted.headers.get("access-control-allow-origin")).toBe("*")
  })

  it("carry them on a 429 (with Retry-After exposed) and on a 503 from a failing store", async () => {
    let down = false
    const { send } = setup({ rateLimit: {} }, { down: () => down })
    const statuses: number[] = []
    let last: Response | undefined
    // One client address (behind a trusted proxy), so the route's per-address limit counts it.
    for (let i = 0; i < 3; i++) statuses.push((last = await send("/auth/api/info", { headers: { "x-forwarded-for": "203.0.113.9" } })).status)
    expect(statuses).toEqual([200, 200, 429])
    expect(last!.headers.get("access-control-allow-origin")).toBe("*")
    expect(last!.headers.get("access-control-expose-headers")).toMatch(/Retry-After/)
    const fresh = setup({}, { down: () => down })
    down = true
    const outage = await fresh.send("/auth/api/info")
    expect(outage.status).toBe(503)
    expect(outage.headers.get("access-control-allow-origin")).toBe("*")
    expect(await outage.text()).not.toContain("hunter2")
  })

  it("routes without cors carry no CORS headers", async () => {
    const { send } = setup()
    const answer = await send("/auth/api/plain", form({}))
    expect(answer.status).toBe(200)
    expect(answer.headers.get("access-control-allow-origin")).toBeNull()
  })

  it("carry them on refusals core answers before the route runs: a body too large (413), one that does not parse (400), a method the path does not take (405)", async () => {
    const { send } = setup()
    const big = await send("/auth/api/token", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `grant=${"x".repeat(1024 * 1024)}` })
    expect(big.status).toBe(413)
    expect(big.headers.get("access-control-allow-origin")).toBe("*")
    const broken = await send("/auth/api/token", { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" })
    expect(broken.status).toBe(400)
    expect(broken.headers.get("access-control-allow-origin")).toBe("*")
    expect(broken.headers.get("access-control-allow-credentials")).toBeNull()
    // `token` takes POST only; a GET of it is still the script's to read.
    const wrongMethod = await send("/auth/api/token")
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.get("access-control-allow-origin")).toBe("*")
    // Percent-encoded and doubled slashes are split as the router splits them.
    const encoded = await send("/auth/api//%74oken", { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" })
    expect(encoded.status).toBe(400)
    expect(encoded.headers.get("access-control-allow-origin")).toBe("*")
  })

  it("and not on those refusals elsewhere: a route without cors, an unknown route, core's own actions", async () => {
    const { send } = setup()
    for (const path of ["/auth/api/plain", "/auth/api/nowhere", "/auth/callback/credentials", "/auth/signin"]) {
      const broken = await send(path, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" })
      expect(broken.status, path).toBe(400)
      expect(broken.headers.get("access-control-allow-origin"), path).toBeNull()
    }
    const wrongMethod = await send("/auth/api/plain")
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.get("access-control-allow-origin")).toBeNull()
  })
})

describe("the attacker's script on another site", () => {
  it("reads no session through a cors route, even when the browser sends its session cookie along", async () => {
    const { config } = setup()
    const victim = new Browser(direct(config), ORIGIN)
    expect((await victim.signIn()).status).toBe(302)
    // The site's own session is real...
    expect((await victim.session()).user).toBeTruthy()
    // ...but the cross-origin fetch with credentials included learns nothing from it.
    const answer = await victim.request("/auth/api/me", { headers: { origin: "https://evil.example" } })
    expect(answer.headers.get("access-control-allow-origin")).toBe("*")
    expect(answer.headers.get("access-control-allow-credentials")).toBeNull()
    expect(await answer.json()).toEqual({ user: null })
  })
})

describe("cors in the configuration", () => {
  const config = (route: Partial<ExtensionRoute>) => credentialsConfig({ extensions: [defineExtension({ id: "bad", routes: [{ method: "GET", path: "x", access: "anyone", handler: () => ({ json: {} }), ...route } as ExtensionRoute]})] })
  const answerOf = async (c: AuthConfig) => (await Auth(new Request(`${ORIGIN}/auth/bad/x`), c)).status

  it("is InvalidConfig on a route that is not from: \"anywhere\" (it may read the browser's cookies), or with a value other than true", async () => {
    for (const route of [{ cors: true }, { cors: true, from: "site" as const }, { cors: "yes" as never, from: "anywhere" as const }]) {
      const log = captureLogger()
      const c = { ...config(route), logger: log.logger }
      expect(await answerOf(c)).toBe(500)
      expect(log.lines.join("\n")).toMatch(/cors, which needs from: "anywhere"/)
    }
    expect(await answerOf(config({ cors: true, from: "anywhere" }))).toBe(200)
    expect(await answerOf(config({ cors: false }))).toBe(200)
  })
})
