/**
 * Attacks on the extension API itself (issue 31, "Tests you didn't write", class 5): CSRF
 * on an extension's POST routes in every shape a browser or a forger can send, method and
 * path tricks, an id that shadows a core action, session-field and claim bombs, error
 * leakage, rate limits with rotating addresses or many users, and server functions called
 * cross-site. Each refusal is proven by the handler never running.
 */
import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { defineExtension, type Json } from "@portcullis/core/extension"
import { extensionFunctions } from "@portcullis/core/integration"
import { Browser, SECRET, captureLogger, direct } from "../helpers.js"

/** An extension whose handlers record each run, with knobs for the bombs. */
function vault(knobs: { fields?: () => Json | undefined; claims?: () => Json | undefined; budget?: number } = {}) {
  const ran: string[] = []
  const extension = defineExtension({
    id: "vault",
    routes: [
      { method: "POST", path: "", handler: () => (ran.push("POST"), { json: { ok: true } }) },
      { method: "POST", path: "public", access: "anyone", rateLimit: { max: 3, window: 60 }, handler: () => (ran.push("public"), { json: { ok: true } }) },
      { method: "POST", path: "limited", rateLimit: { max: 3, window: 60 }, handler: () => (ran.push("limited"), { json: { ok: true } }) },
      { method: "GET", path: "item/:id", access: "anyone", handler: (req) => (ran.push(`item ${req.params.id}`), { json: { id: req.params.id ?? null } }) },
      {
        method: "GET",
        path: "boom",
        access: "anyone",
        handler: () => {
          throw new Error("postgres://admin:hunter2@10.0.0.7/db is down")
        },
      },
    ],
    session: {
      ...(knobs.fields && { fields: () => knobs.fields!() }),
      ...(knobs.claims && { claims: () => knobs.claims!() }),
      ...(knobs.budget && { budget: knobs.budget }),
    },
    server: () => ({
      async touch() {
        ran.push("touch")
        return true
      },
    }),
  })
  return { extension, ran }
}

/** A configuration where anyone named signs in (user-<name>), with the extension. */
function setup(extra: Partial<AuthConfig> = {}, ext = vault()) {
  const log = captureLogger()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    providers: [Credentials({ credentials: { name: {} }, authorize: ({ name }) => ({ id: `user-${String(name)}`, email: `${String(name)}@example.com` }) })],
    extensions: [ext.extension],
    ...extra,
  }
  const browser = (name = "ada") => {
    const b = new Browser(direct(config))
    return { b, signIn: () => b.signIn({ name }) }
  }
  return { config, log, ran: ext.ran, browser }
}

async function signedIn(s: ReturnType<typeof setup>, name = "ada") {
  const { b, signIn } = s.browser(name)
  await signIn()
  return { b, csrfToken: await b.csrfToken() }
}

describe("CSRF on an extension's POST route", () => {
  it.each([
    ["no token", (_t: string) => ({ form: { x: "1" } })],
    ["the token in the query only", (t: string) => ({ path: `?csrfToken=${t}`, form: { x: "1" } })],
    ["a JSON body without the header", (_t: string) => ({ json: { x: 1 } })],
    ["a wrong token in the header", (_t: string) => ({ json: { x: 1 }, headers: { "x-csrf-token": "forged" } })],
    ["a cross-site Origin with the right token", (t: string) => ({ form: { csrfToken: t }, headers: { origin: "https://evil.example" } })],
    ["a null Origin with the right token", (t: string) => ({ form: { csrfToken: t }, headers: { origin: "null" } })],
    ["Sec-Fetch-Site: cross-site with the right token", (t: string) => ({ form: { csrfToken: t }, headers: { "sec-fetch-site": "cross-site" } })],
    ["a text/plain body carrying the token", (t: string) => ({ body: `csrfToken=${t}`, headers: { "content-type": "text/plain" } })],
    ["an array as the token", (t: string) => ({ json: { csrfToken: [t] } })],
  ])("refuses %s with 403 MissingCSRF, before the handler runs", async (_label, shape) => {
    const s = setup()
    const { b, csrfToken } = await signedIn(s)
    const { path = "", form, json, body, headers } = shape(csrfToken) as { path?: string; form?: Record<string, string>; json?: unknown; body?: string; headers?: Record<string, string> }
    const response = await b.request(`/auth/vault${path}`, { method: "POST", ...(form && { form }), ...(json !== undefined && { json }), ...(body && { body }), ...(headers && { headers }) })
    expect(response.status).toBe(403)
    expect(((await response.json()) as { error: string }).error).toBe("MissingCSRF")
    expect(s.ran).toEqual([])
  })

  it("refuses another browser's token (the double submit binds it to this browser's cookie)", async () => {
    const s = setup()
    const victim = await signedIn(s, "ada")
    const attacker = await signedIn(s, "eve")
    const response = await victim.b.request("/auth/vault", { json: {}, headers: { "x-csrf-token": attacker.csrfToken } })
    expect(response.status).toBe(403)
    expect(s.ran).toEqual([])
  })

  it("serves the same request with its own token, same-origin (the refusals above are not of everything)", async () => {
    const s = setup()
    const { b, csrfToken } = await signedIn(s)
    expect((await b.request("/auth/vault", { json: {}, headers: { "x-csrf-token": csrfToken, origin: "http://localhost:3000", "sec-fetch-site": "same-origin" } })).status).toBe(200)
    expect(s.ran).toEqual(["POST"])
  })
})

describe("method tricks", () => {
  it.each(["PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"])("answers %s with 405 and Allow, never running a handler", async (method) => {
    const s = setup()
    const { b, csrfToken } = await signedIn(s)
    for (const path of ["/auth/vault", "/auth/vault/item/x"]) {
      const response = await b.request(path, { method, headers: { "x-csrf-token": csrfToken }, ...(method !== "HEAD" && method !== "OPTIONS" && { body: JSON.stringify({ csrfToken }) }) })
      expect(response.status).toBe(405)
      expect(response.headers.get("allow")).toMatch(/GET|POST/)
    }
    expect(s.ran).toEqual([])
  })

  it("answers a GET on a POST-only route with 405, not by running the POST handler", async () => {
    const s = setup()
    const { b } = await signedIn(s)
    const response = await b.request("/auth/vault/limited")
    expect([response.status, response.headers.get("allow")]).toEqual([405, "POST"])
    expect(s.ran).toEqual([])
  })
})

describe("path tricks", () => {
  it("keeps an encoded slash inside one parameter, never a path", async () => {
    const s = setup()
    const response = await s.browser().b.request("/auth/vault/item/a%2F..%2F..%2Fsignin")
    expect(await response.json()).toEqual({ id: "a/../../signin" })
    expect(s.ran).toEqual(["item a/../../signin"])
  })

  it("resolves dot segments before routing: /vault/../signin is core's sign-in, not the extension", async () => {
    const s = setup()
    for (const path of ["/auth/vault/../signin", "/auth/vault/%2e%2e/signin"]) {
      const response = await s.browser().b.request(path)
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toContain("text/html")
    }
    expect(s.ran).toEqual([])
  })

  it("refuses a parameter over 256 characters, a bad percent-encoding, and extra segments", async () => {
    const s = setup()
    const b = s.browser().b
    expect((await b.request(`/auth/vault/item/${"x".repeat(257)}`)).status).toBe(404)
    expect((await b.request("/auth/vault/item/%E0%A4%A")).status).toBe(400)
    expect((await b.request("/auth/vault/item/x/y")).status).toBe(404)
    expect(s.ran).toEqual([])
    expect((await b.request(`/auth/vault/item/${"x".repeat(256)}`)).status).toBe(200)
  })

  it("passes Unicode and markup in a parameter through as data", async () => {
    const s = setup()
    const response = await s.browser().b.request("/auth/vault/item/%F0%9F%94%91%3Cscript%3E")
    expect(response.headers.get("content-type")).toContain("application/json")
    expect(await response.json()).toEqual({ id: "🔑<script>" })
  })

  it("collapses double slashes to the same route, with the same checks (no unauthenticated way round)", async () => {
    const s = setup()
    const { b } = await signedIn(s)
    const response = await b.request("/auth//vault//", { json: {} })
    expect(response.status).toBe(403)
    expect(s.ran).toEqual([])
  })
})

describe("an extension id that shadows a core action", () => {
  const actions = ["providers", "session", "csrf", "signin", "signout", "callback", "verify-request", "error", "webauthn-options", "two-factor", "reauthenticate", "password", "health"]
  it.each(actions)("refuses %s at configuration, so the action can't be taken over", async (id) => {
    const log = captureLogger()
    const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [], logger: log.logger, extensions: [defineExtension({ id, routes: [{ method: "GET", path: "", access: "anyone", handler: () => ({ json: { hijacked: true } }) }] })] }
    const response = await Auth(new Request(`http://localhost:3000/auth/${id}`), config)
    expect(response.status).toBe(500)
    expect(await response.text()).not.toContain("hijacked")
    expect(log.lines.join("\n")).toMatch(/core's actions/)
  })

  it.each(["Signin", "sign in", "../signin", "signin/x", "", "x".repeat(33)])("refuses the malformed id %j", async (id) => {
    const log = captureLogger()
    const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [], logger: log.logger, extensions: [{ id } as never] }
    expect((await Auth(new Request("http://localhost:3000/auth/session"), config)).status).toBe(500)
  })
})

describe("session bombs", () => {
  it("leave the cookie as small as without the extension when the claims are over budget, and log it", async () => {
    const plain = setup({}, vault({ claims: () => undefined }))
    const bombed = setup({}, vault({ claims: () => ({ blob: "x".repeat(100_000) }), budget: 1024 }))
    const a = await signedIn(plain)
    const b = await signedIn(bombed)
    const size = (x: Browser) => [...x.jar].filter(([k]) => k.includes("session-token")).reduce((n, [, c]) => n + c.value.length, 0)
    expect(size(b.b)).toBeLessThanOrEqual(size(a.b) + 64)
    expect(size(b.b)).toBeLessThan(4000)
    expect(bombed.log.lines.join("\n")).toMatch(/over its budget/)
    expect((await b.b.session()).user).toBeDefined()
  })

  it("can't ask for a budget over 1024 bytes", async () => {
    const s = setup({}, vault({ claims: () => ({}), budget: 4096 }))
    expect((await s.browser().b.request("/auth/session")).status).toBe(500)
  })

  it("keep the session when the fields hook throws with a secret, without the secret in the answer", async () => {
    const s = setup({}, vault({ fields: () => { throw new Error("token=hunter2") } }))
    const { b } = await signedIn(s)
    const response = await b.request("/auth/session")
    const text = await response.text()
    expect(response.status).toBe(200)
    expect(JSON.parse(text).user).toBeDefined()
    expect(text).not.toContain("hunter2")
  })
})

describe("error leakage", () => {
  it("answers a handler's bug with a generic 500, never its message, and logs it", async () => {
    const s = setup()
    const response = await s.browser().b.request("/auth/vault/boom")
    expect(response.status).toBe(500)
    const text = await response.text()
    expect(text).not.toMatch(/hunter2|10\.0\.0\.7|postgres:/)
    expect(text).not.toMatch(/\n\s+at /)
    expect(s.log.lines.some((l) => l.includes("hunter2"))).toBe(true)
  })
})

describe("rate limits", () => {
  it("count the user when the address is unknown: rotating X-Forwarded-For without trustHost changes nothing", async () => {
    const s = setup({ trustHost: false, trustedOrigins: ["http://localhost:3000"], rateLimit: {} })
    const { b, csrfToken } = await signedIn(s)
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push((await b.request("/auth/vault/limited", { json: {}, headers: { "x-csrf-token": csrfToken, "x-forwarded-for": `203.0.113.${i}` } })).status)
    expect(statuses).toEqual([200, 200, 200, 429, 429])
  })

  it("count the address the proxy appended, not the ones a client put in front of it", async () => {
    const s = setup({ rateLimit: {} })
    const b = s.browser().b
    const csrfToken = await b.csrfToken()
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push((await b.request("/auth/vault/public", { json: {}, headers: { "x-csrf-token": csrfToken, "x-forwarded-for": `198.51.100.${i}, 192.0.2.1` } })).status)
    expect(statuses).toEqual([200, 200, 200, 429, 429])
  })

  it("count one address across many users", async () => {
    const s = setup({ rateLimit: {} })
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) {
      const { b, csrfToken } = await signedIn(s, `user${i}`)
      statuses.push((await b.request("/auth/vault/limited", { json: {}, headers: { "x-csrf-token": csrfToken, "x-forwarded-for": "192.0.2.7" } })).status)
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429])
  })
})

describe("server functions called cross-site", () => {
  const call = (config: AuthConfig, cookie: string, method: string | undefined, headers: Record<string, string>) =>
    extensionFunctions({ origin: "http://localhost:3000", ...(method && { method }), headers: new Headers({ cookie, ...headers }) }, config) as Promise<Record<string, { touch(): Promise<boolean> }>>

  it.each([
    ["POST", { origin: "https://evil.example" }],
    ["post", { origin: "https://evil.example" }],
    ["PUT", { origin: "null" }],
    ["POST", { "sec-fetch-site": "cross-site" }],
    ["DELETE", { origin: "http://localhost:3000.evil.example" }],
    ["POST", { origin: "https://localhost:3000" }],
  ])("refuse a %s with %j before any function runs", async (method, headers) => {
    const s = setup()
    const { b } = await signedIn(s)
    const fns = await call(s.config, b.cookieHeader(), method, headers)
    expect(() => fns.vault).toThrow(expect.objectContaining({ type: "MissingCSRF" }))
    expect(s.ran).toEqual([])
  })

  it("serve a page's GET reached from another site, and a same-origin change", async () => {
    const s = setup()
    const { b } = await signedIn(s)
    expect(await (await call(s.config, b.cookieHeader(), "GET", { origin: "https://evil.example", "sec-fetch-site": "cross-site" })).vault!.touch()).toBe(true)
    expect(await (await call(s.config, b.cookieHeader(), "POST", { origin: "http://localhost:3000", "sec-fetch-site": "same-origin" })).vault!.touch()).toBe(true)
    expect(s.ran).toEqual(["touch", "touch"])
  })
})
