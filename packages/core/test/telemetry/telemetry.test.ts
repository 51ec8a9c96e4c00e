/**
 * Issue 29, OpenTelemetry: with an SDK registered (and no Portcullis option) each request is
 * a `portcullis <action>` span with its adapter calls and outbound requests as children, and
 * the sign-in, lockout, second-factor, session-check, store-error and duration metrics are
 * recorded; no span carries an email address, user id, password, code or token. With
 * `telemetry: false`, nothing; with no SDK, the session lane makes no span at all.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { ProxyTracer, SpanStatusCode, trace } from "@opentelemetry/api"
import { createAuth, type AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { ada, Browser, credentialsConfig, SECRET } from "../helpers.js"
import { attempt, lockoutApp, wrong } from "../rate-limit/support.js"
import { FakeOP } from "../oauth/fixtures/fake-op.js"
import { signInThrough } from "../oauth/flow.js"
import { everyAttribute, registerSdk, type RegisteredSdk } from "./support.js"
import { Telemetry } from "../../src/lib/telemetry/index.js"
import { customFetch } from "@portcullis/core"
import Resend from "@portcullis/core/providers/resend"
import { ADA_ID, enroll, firstFactor, secondFactor, twoFactorApp } from "../two-factor/support.js"
import { LIGHT, passwordApp, postStep } from "../password/support.js"
import { requestLink } from "../email/support.js"

const quiet = { error: () => {}, warn: () => {}, debug: () => {} }

/** Ada's record in the store: credentials with database sessions read and write it. */
function seededAdapter(): Adapter {
  const adapter = MemoryAdapter()
  void adapter.createUser!({ id: "user-ada", name: "Ada Lovelace", email: "ada@example.com", emailVerified: null })
  return adapter
}

function app(extra: Partial<AuthConfig> = {}) {
  const auth = createAuth(credentialsConfig({ logger: quiet, ...extra }))
  return { auth, browser: () => new Browser((request) => auth.handle(request)) }
}

let sdk: RegisteredSdk
afterEach(async () => {
  await sdk?.unregister()
})

describe("a credentials sign-in with an SDK registered", () => {
  beforeEach(() => {
    sdk = registerSdk()
  })

  it("is one portcullis callback span with the method, path, action and provider, and its adapter calls as child spans", async () => {
    const { browser } = app({ adapter: seededAdapter(), session: { strategy: "database" } })
    const b = browser()
    const response = await b.signIn()
    expect(response.status).toBe(302)

    const [callback] = sdk.named("portcullis callback")
    expect(callback).toBeDefined()
    expect(callback!.attributes).toEqual({
      "http.request.method": "POST",
      "url.path": "/auth/callback/credentials",
      "portcullis.action": "callback",
      "portcullis.provider": "credentials",
      "http.response.status_code": 302,
    })
    expect(callback!.status.code).toBe(SpanStatusCode.UNSET)
    const adapterCalls = sdk.childrenOf(callback!)
    expect(adapterCalls.map((s) => s.name)).toContain("portcullis.adapter createSession")
    for (const call of adapterCalls) {
      // The audit event's write is a call of its own store (the adapter's audit capability).
      const store = call.name.startsWith("portcullis.audit_store ") ? "audit store" : "adapter"
      expect(call.attributes).toEqual({ "db.operation.name": call.attributes["portcullis.adapter.method"], "portcullis.adapter.method": expect.any(String), "portcullis.store": store })
    }
    // The csrf request before it is its own trace.
    expect(sdk.named("portcullis csrf")).toHaveLength(1)
  })

  it("puts no email address, user id, password, token or cookie in any span", async () => {
    const { browser } = app({ adapter: seededAdapter(), session: { strategy: "database" } })
    const b = browser()
    await b.signIn()
    await b.session()
    await b.signIn({ username: "ada", password: "not the password" })
    const secrets = [ada.password, "not the password", "ada@example.com", "user-ada", SECRET, ...[...b.jar.values()].map((c) => c.value)]
    const values = everyAttribute(sdk.spans())
    expect(values.length).toBeGreaterThan(10)
    for (const secret of secrets) expect(values.filter((v) => v.includes(secret))).toEqual([])
  })

  it("a refused sign-in names the error's type on the span, and is not an error of the service", async () => {
    const { browser } = app()
    await browser().signIn({ username: "ada", password: "not the password" })
    const [callback] = sdk.named("portcullis callback")
    expect(callback!.attributes["error.type"]).toBe("CredentialsSignin")
    expect(callback!.status.code).toBe(SpanStatusCode.UNSET)
  })
})

describe("a failing adapter with an SDK registered", () => {
  beforeEach(() => {
    sdk = registerSdk()
  })

  it("marks the adapter span and the action span as errors with the error's type, and counts a store error", async () => {
    const adapter = seededAdapter()
    adapter.createSession = async () => {
      throw new Error("connection refused")
    }
    const { browser } = app({ adapter, session: { strategy: "database" } })
    await browser().signIn()
    const [failed] = sdk.named("portcullis.adapter createSession")
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR)
    expect(failed!.attributes["error.type"]).toBe("AdapterError")
    const [callback] = sdk.named("portcullis callback")
    expect(callback!.status.code).toBe(SpanStatusCode.ERROR)
    expect(callback!.attributes["error.type"]).toBe("ServiceUnavailable")
    // The message (and the driver's) stays in the log: spans carry types only.
    expect(everyAttribute(sdk.spans()).some((v) => v.includes("connection refused"))).toBe(false)
    expect(await sdk.count("portcullis.store.errors", { store: "adapter" })).toBe(1)
  })
})

describe("an OAuth sign-in against the test OP with an SDK registered", () => {
  let op: FakeOP
  beforeAll(async () => {
    op = await FakeOP.start()
  })
  afterAll(() => op.close())
  beforeEach(() => {
    sdk = registerSdk()
    op.reset()
    op.user = { sub: "op-user-1", email: "alice@example.com", email_verified: true, name: "Alice" }
  })

  it("has a client span per outbound request — discovery, token, JWKS — under the action spans, with no path or query", async () => {
    const provider = { id: "alpha", name: "Alpha", type: "oidc", issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>
    const auth = createAuth({ secret: SECRET, trustHost: true, adapter: MemoryAdapter(), providers: [provider], logger: quiet })
    const response = await signInThrough(new Browser((request) => auth.handle(request)), "alpha")
    expect(response.status).toBe(302)

    const outbound = sdk.spans().filter((s) => s.attributes["portcullis.outbound"] === "oauth")
    const issuer = new URL(op.issuer)
    for (const span of outbound) {
      expect(span.attributes).toEqual({
        "http.request.method": span.name,
        "server.address": issuer.hostname,
        "server.port": Number(issuer.port),
        "url.scheme": "http",
        "portcullis.outbound": "oauth",
        "http.response.status_code": 200,
      })
    }
    // One span per request the OP received on its back channel (the browser alone visits /authorize).
    const backChannel = op.log.filter((r) => r.path !== "/authorize")
    expect(backChannel.map((r) => r.path)).toEqual(["/.well-known/openid-configuration", "/token", "/jwks"])
    const inOrder = [...outbound].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
    expect(inOrder.map((s) => s.name)).toEqual(backChannel.map((r) => r.method))
    const [callback] = sdk.named("portcullis callback")
    expect(callback!.attributes["portcullis.provider"]).toBe("alpha")
    const fromCallback = sdk.childrenOf(callback!).filter((s) => s.attributes["portcullis.outbound"] === "oauth")
    expect(fromCallback.map((s) => s.name)).toContain("POST")
    const values = everyAttribute(sdk.spans())
    for (const value of values) expect(value).not.toMatch(/code=|state=|alice@example\.com|op-user-1/)
    // Nothing the OP minted (codes, tokens) is in a span either.
    expect(op.minted.length).toBeGreaterThan(0)
    for (const minted of op.minted) expect(values.filter((v) => v.includes(minted))).toEqual([])
  })
})

describe("the metrics with an SDK registered", () => {
  beforeEach(() => {
    sdk = registerSdk()
  })

  it("count sign-ins by method and outcome, session checks by result, and each action's duration", async () => {
    const { browser } = app()
    const b = browser()
    await b.session()
    await b.signIn()
    await b.signIn()
    await b.signIn({ username: "ada", password: "not the password" })
    await b.session()
    await b.session()
    expect(await sdk.count("portcullis.sign_in", { method: "credentials", outcome: "success" })).toBe(2)
    expect(await sdk.count("portcullis.sign_in", { method: "credentials", outcome: "failure" })).toBe(1)
    expect(await sdk.count("portcullis.session_check", { result: "none" })).toBe(1)
    expect(await sdk.count("portcullis.session_check", { result: "valid" })).toBe(2)
    // Each request: 3 csrf, 3 callback, 3 session.
    expect(await sdk.count("portcullis.action.duration", { "portcullis.action": "session" })).toBe(3)
    expect(await sdk.count("portcullis.action.duration", { "portcullis.action": "callback" })).toBe(3)
  })

  it("count a lockout once the wrong passwords reach it", async () => {
    const { browser } = lockoutApp()
    const b = browser()
    for (let i = 0; i < 6; i++) await attempt(b, wrong)
    expect(await sdk.count("portcullis.lockout")).toBe(1)
    expect(await sdk.count("portcullis.sign_in", { method: "credentials", outcome: "failure" })).toBe(5)
  })

  it("label a made-up action as unknown: a client cannot mint labels", async () => {
    const { browser } = app()
    for (const action of ["a", "b", "c"]) await browser().request(`/auth/${action}`)
    expect((await sdk.points("portcullis.action.duration")).map((p) => p.attributes["portcullis.action"])).toEqual(["unknown"])
  })
})

describe("second-factor checks with an SDK registered", () => {
  beforeEach(() => {
    sdk = registerSdk()
  })

  it("count a wrong code as a failure, and the sign-in it completes as a success by factor", async () => {
    const adapter = MemoryAdapter()
    await adapter.createUser!({ id: ADA_ID, name: "Ada Lovelace", email: "ada@example.com", emailVerified: null })
    const { config, browser } = twoFactorApp({ logger: quiet }, adapter)
    const { backupCodes } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    await secondFactor(b, "000000")
    await secondFactor(b, backupCodes[0]!)
    expect(await sdk.count("portcullis.two_factor", { outcome: "failure" })).toBe(1)
    expect(await sdk.count("portcullis.two_factor", { outcome: "success", factor: "backup" })).toBe(1)
    // The sign-in counts once, when its second factor completes it.
    expect(await sdk.count("portcullis.sign_in", { method: "credentials", outcome: "success" })).toBe(1)
    for (const code of backupCodes) expect(everyAttribute(sdk.spans()).filter((v) => v.includes(code))).toEqual([])
  })
})

describe("outbound requests besides OAuth, with an SDK registered", () => {
  beforeEach(() => {
    sdk = registerSdk()
  })

  it("a magic link mailed through Resend's API is a POST client span to its host, without the path or the link", async () => {
    const sent: string[] = []
    const answer: typeof fetch = async (_input, init) => {
      sent.push(String(init?.body))
      return Response.json({ id: "msg_1" })
    }
    const auth = createAuth({ secret: SECRET, trustHost: true, adapter: MemoryAdapter(), providers: [Resend({ from: "no-reply@example.com", apiKey: "re_test_key" })], logger: quiet, [customFetch]: answer })
    await requestLink(new Browser((request) => auth.handle(request)), "grace@example.com", {}, "resend")
    expect(sent).toHaveLength(1)
    const [mail] = sdk.spans().filter((s) => s.attributes["portcullis.outbound"] === "email")
    expect(mail!.name).toBe("POST")
    expect(mail!.attributes).toEqual({ "http.request.method": "POST", "server.address": "api.resend.com", "url.scheme": "https", "portcullis.outbound": "email", "http.response.status_code": 200 })
    expect(mail!.parentSpanContext?.spanId).toBe(sdk.named("portcullis signin")[0]!.spanContext().spanId)
    const link = /https?:\/\/[^"\\\s]+token=[^"\\\s]+/.exec(sent[0]!)?.[0]
    expect(link).toBeDefined()
    for (const value of everyAttribute(sdk.spans())) expect(value).not.toMatch(/grace@example\.com|token=|re_test_key/)
  })

  it("the breached-password range request is a GET client span to its host, without the hash prefix", async () => {
    const asked: string[] = []
    const range: typeof fetch = async (input) => {
      asked.push(String(input))
      return new Response("0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n")
    }
    const mailer = { ...Resend({ from: "no-reply@example.com", apiKey: "re_test_key" }), [customFetch]: async () => Response.json({ id: "msg_1" }) }
    const { browser } = passwordApp(MemoryAdapter(), { provider: { mailer, hashing: LIGHT, policy: { breached: { url: "https://pwned.example", fetch: range } } } })
    await postStep(browser(), "signup", { email: "grace@example.com", password: "copper meadow whistle saturn" })
    expect(asked).toHaveLength(1)
    const prefix = new URL(asked[0]!).pathname.split("/").pop()!
    const [check] = sdk.spans().filter((s) => s.attributes["portcullis.outbound"] === "breached")
    expect(check!.attributes).toEqual({ "http.request.method": "GET", "server.address": "pwned.example", "url.scheme": "https", "portcullis.outbound": "breached", "http.response.status_code": 200 })
    expect(everyAttribute(sdk.spans()).filter((v) => v.includes(prefix) || v.includes("grace@example.com"))).toEqual([])
  })
})

describe("telemetry: false", () => {
  beforeEach(() => {
    sdk = registerSdk()
  })

  it("records no span and no metric for that configuration, SDK or not", async () => {
    const { browser } = app({ telemetry: false, adapter: seededAdapter(), session: { strategy: "database" } })
    const b = browser()
    await b.signIn()
    await b.session()
    expect(sdk.spans()).toEqual([])
    expect(await sdk.points("portcullis.sign_in")).toEqual([])
    expect(await sdk.points("portcullis.action.duration")).toEqual([])
  })
})

describe("no SDK registered", () => {
  it("the session lane makes no span object and asks the API nothing per request", async () => {
    sdk = undefined as unknown as RegisteredSdk
    const startSpan = vi.spyOn(ProxyTracer.prototype, "startSpan")
    const startActiveSpan = vi.spyOn(ProxyTracer.prototype, "startActiveSpan")
    const getActiveSpan = vi.spyOn(trace, "getActiveSpan")
    const getTracer = vi.spyOn(trace, "getTracer")
    // Nor does it enter Portcullis's own telemetry code: no wrapper, no clock read, no counter call.
    const ours = (["span", "sessionCheck", "actionDuration"] as const).map((method) => vi.spyOn(Telemetry.prototype, method))
    try {
      const { auth, browser } = app()
      expect(auth.config.telemetry.active).toBe(false)
      const b = browser()
      await b.signIn()
      for (let i = 0; i < 50; i++) expect((await b.session())?.user?.name).toBe("Ada Lovelace")
      await new Browser((request) => auth.handle(request)).session()
      expect(startSpan).not.toHaveBeenCalled()
      expect(startActiveSpan).not.toHaveBeenCalled()
      expect(getActiveSpan).not.toHaveBeenCalled()
      expect(getTracer).not.toHaveBeenCalled()
      for (const spy of ours) expect(spy).not.toHaveBeenCalled()
    } finally {
      vi.restoreAllMocks()
    }
  })
})
