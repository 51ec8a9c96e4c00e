/**
 * Attack class 4 on fee586c3: the pre-creation ask fails closed. A gate whose store throws, or
 * hangs past `adapterTimeout`, at the new ask — before an email link is mailed, before a
 * password sign-up is taken, before a passkey sign-up, an OAuth first sign-in or an
 * extension's `req.signIn` creates its user — leaves no user, mail or session and answers
 * the outage (503 / `?error=ServiceUnavailable`), never a 500 with a stack and never a
 * sign-in let through; a gate that throws a plain bug is not let through either. Then 50
 * concurrent first sign-ins of one new user under a gate that flips from allowing to refusing.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { defineExtension, type ExtensionSignInOutcome } from "@portcullis/core/extension"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, SECRET, credentialsConfig, direct } from "../../helpers.js"
import { requestLink, spyTokens } from "../../email/support.js"
import { signInThrough, useFakeOP } from "../../oauth/flow.js"
import { LIGHT, passwordApp, postStep, STRONG } from "../../password/support.js"
import { ORIGIN, PasskeyBrowser, authenticators } from "../../webauthn/support.js"
import { SoftCredential } from "../../webauthn/soft-authenticator.js"
import { identity, SSO_PROVIDER, ssoExtension } from "../../extensions/sso-probe.js"
import { allUsers, answerOf, hasSession, noInternals, policy, quiet, storePolicy, within } from "./support.js"

const MODES = ["fail", "hang"] as const
/** Short, so a hanging store is cut quickly; every request below is bounded well above it. */
const TIMEOUT = 300

/** An outage's answer: the error page with ServiceUnavailable (a browser form post), or a 503. */
async function expectOutage(response: Response) {
  const body = await response.text()
  expect(noInternals(body), body.slice(0, 300)).toBe(true)
  if (response.status === 302) expect(answerOf(response)).toMatchObject({ path: "/auth/error", error: "ServiceUnavailable" })
  else expect(response.status).toBe(503)
}

describe.each(MODES)("a gate whose store %ss at the pre-creation ask", (mode) => {
  it("mails no email link, stores no token", async () => {
    const gate = storePolicy({ now: mode })
    const links: string[] = []
    const spied = spyTokens(MemoryAdapter())
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: spied.adapter,
      adapterTimeout: TIMEOUT,
      rateLimit: false,
      logger: quiet,
      providers: [Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ url }) => void links.push(url) })],
      ...gate.config,
    }
    const response = await within(5_000, requestLink(new Browser(direct(config)), "ada@example.com"))
    await expectOutage(response)
    expect(links).toEqual([])
    expect(spied.created).toEqual([])
  })

  it("takes no password sign-up: no user, no mail", async () => {
    const gate = storePolicy({ now: mode })
    const adapter = MemoryAdapter()
    const mails: string[] = []
    const mailer = Nodemailer({ server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ identifier }) => void mails.push(identifier) })
    const { browser } = passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { adapterTimeout: TIMEOUT, session: { strategy: "database" }, ...gate.config } })
    const result = await within(5_000, postStep(browser(), "signup", { email: "new@example.com", password: STRONG }))
    await expectOutage(result.response)
    expect(await allUsers(adapter)).toEqual([])
    expect(mails).toEqual([])
    expect(gate.state.created).toEqual([])
  })

  it("makes no passkey sign-up: no user, no passkey, no session", async () => {
    const gate = storePolicy({ now: mode })
    const adapter = MemoryAdapter()
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, adapterTimeout: TIMEOUT, rateLimit: false, experimental: { enableWebAuthn: true }, providers: [Passkey], logger: quiet, ...gate.config }
    const b = new PasskeyBrowser(direct(config), ORIGIN)
    const response = await within(5_000, b.register(new SoftCredential(ORIGIN, "localhost"), { email: "pat@example.com" }))
    await expectOutage(response)
    expect(await allUsers(adapter)).toEqual([])
    expect(await authenticators(adapter, "pat@example.com")).toEqual([])
    expect(hasSession(b)).toBe(false)
    expect(gate.state.created).toEqual([])
    expect(gate.state.linked).toEqual([])
  })

  it("makes no extension sign-in (req.signIn): no user, no account, no session", async () => {
    const gate = storePolicy({ now: mode })
    const adapter = MemoryAdapter()
    const outcomes: ExtensionSignInOutcome[] = []
    const config = credentialsConfig({ adapter, adapterTimeout: TIMEOUT, rateLimit: false, logger: quiet, ...gate.config, extensions: [ssoExtension(outcomes), ...gate.config.extensions] })
    const b = new Browser(direct(config))
    const response = await within(5_000, b.request("/auth/sso/acs", { json: identity(), headers: { origin: "https://idp.example" } }))
    expect(response.status).toBe(503)
    expect(noInternals(await response.text())).toBe(true)
    expect(await allUsers(adapter)).toEqual([])
    expect(await adapter.getUserByAccount!({ provider: SSO_PROVIDER, providerAccountId: "nameid-ada" })).toBeNull()
    expect(hasSession(b)).toBe(false)
    expect(gate.state.created).toEqual([])
  })
})

describe.each(MODES)("an OAuth first sign-in with a gate whose store %ss", (mode) => {
  const holder = useFakeOP()
  it("creates no user and links no account", async () => {
    const gate = storePolicy({ now: mode })
    const adapter = MemoryAdapter()
    const fake = { id: "fake", name: "Fake", type: "oidc", issuer: holder.op.issuer, clientId: holder.op.clientId, clientSecret: holder.op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, adapterTimeout: TIMEOUT, rateLimit: false, logger: quiet, providers: [fake], ...gate.config }
    const b = new Browser(direct(config))
    const response = await within(5_000, signInThrough(b, "fake"))
    await expectOutage(response)
    expect(await allUsers(adapter)).toEqual([])
    expect(await adapter.getUserByAccount!({ provider: "fake", providerAccountId: "user-1" })).toBeNull()
    expect(hasSession(b)).toBe(false)
  })
})

describe("a gate with a plain bug (throws a TypeError, no store involved)", () => {
  const buggy = defineExtension({
    id: "buggy",
    signInGate: ({ email }) => {
      // A bug: reads a property of something undefined.
      return (undefined as unknown as Record<string, () => undefined>)[email ?? "x"]!()
    },
  })

  it("lets no credentials first sign-in through: no user, no session, no stack in the answer", async () => {
    const adapter = MemoryAdapter()
    const b = new Browser(direct(credentialsConfig({ adapter, session: { strategy: "database" }, rateLimit: false, logger: quiet, extensions: [buggy] })))
    const response = await b.signIn()
    expect(noInternals(await response.text())).toBe(true)
    // The error page (a configuration problem: the extension's own bug), never the callback URL.
    expect(answerOf(response)).toMatchObject({ status: 302, path: "/auth/error", error: "Configuration" })
    expect(await allUsers(adapter)).toEqual([])
    expect(hasSession(b)).toBe(false)
  })

  it("mails no email link", async () => {
    const links: string[] = []
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      rateLimit: false,
      logger: quiet,
      providers: [Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ url }) => void links.push(url) })],
      extensions: [buggy],
    }
    const response = await requestLink(new Browser(direct(config)), "ada@example.com")
    expect(noInternals(await response.text())).toBe(true)
    expect(answerOf(response)).toMatchObject({ status: 302, path: "/auth/error", error: "Configuration" })
    expect(links).toEqual([])
  })
})

describe("50 concurrent first sign-ins of one new user while the gate flips from allowing to refusing", () => {
  const N = 50

  function app(flipAfter: number) {
    const gate = policy((_asked, index) => index >= flipAfter)
    const adapter = MemoryAdapter()
    const config = credentialsConfig({ adapter, session: { strategy: "database" }, rateLimit: false, logger: quiet, ...gate.config })
    return { gate, adapter, browser: () => new Browser(direct(config)) }
  }

  it("flipping after some sign-ins got through: one user at most, every answer a session or AccountSuspended, no 5xx", async () => {
    const { gate, adapter, browser } = app(20)
    const browsers = Array.from({ length: N }, browser)
    const responses = await within(20_000, Promise.all(browsers.map((b) => b.signIn())), "50 sign-ins")
    const answers = responses.map(answerOf)
    expect(answers.every((a) => a.status === 302)).toBe(true)
    for (const [i, a] of answers.entries()) {
      if (hasSession(browsers[i]!)) expect(a.error).toBeNull()
      else expect(a.error).toBe("AccountSuspended")
    }
    const users = await allUsers(adapter)
    expect(users.length).toBeLessThanOrEqual(1)
    expect(gate.state.created.length).toBeLessThanOrEqual(1)
    // Every session stored is of a browser that was answered with one.
    const sessions = users.length ? await adapter.listSessions!(users[0]!.id) : []
    expect(sessions.length).toBe(browsers.filter(hasSession).length)
  })

  it("flipping before any: every sign-in refused, nothing created", async () => {
    const { gate, adapter, browser } = app(0)
    const browsers = Array.from({ length: N }, browser)
    const responses = await within(20_000, Promise.all(browsers.map((b) => b.signIn())), "50 sign-ins")
    expect(responses.map((r) => answerOf(r).error)).toEqual(Array(N).fill("AccountSuspended"))
    expect(await allUsers(adapter)).toEqual([])
    expect(gate.state.created).toEqual([])
  })

  // WEAKNESS (low): the pre-creation ask and the session's asks are separate reads, so a gate
  // that flips between them (a policy change landing mid-sign-in) leaves behind the user the
  // first sign-in created: its `createUser` event fired, every sign-in refused. Here the gate
  // allows only its very first question — the creating request's pre-creation ask — and
  // refuses all others, so the creator is refused at its session and the user stays.
  // "No user left for refused ones" does not hold in that window. Fix: when the session's
  // first ask refuses a result with `isNewUser`, remove the user this sign-in created (as
  // `linkNew` compensates a failed link). For now the window is accepted and documented
  // (docs/extensions.md, "The sign-in gate"): nobody is signed in by it.
  it.fails("flipping right after the creating request's pre-creation ask: no user is left behind by the refused sign-ins", async () => {
    const { gate, adapter, browser } = app(1)
    const browsers = Array.from({ length: N }, browser)
    const responses = await within(20_000, Promise.all(browsers.map((b) => b.signIn())), "50 sign-ins")
    expect(responses.map((r) => answerOf(r).error)).toEqual(Array(N).fill("AccountSuspended"))
    expect(browsers.some(hasSession)).toBe(false)
    expect(gate.state.created).toEqual([])
    expect(await allUsers(adapter)).toEqual([])
  })

  it("the same flip with password sign-ups (one ask each): refused ones create nothing and mail nothing, one user at most", async () => {
    const gate = policy((_asked, index) => index >= 10)
    const adapter = MemoryAdapter()
    const mails: string[] = []
    const mailer = Nodemailer({ server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ identifier }) => void mails.push(identifier) })
    const { browser } = passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { session: { strategy: "database" }, ...gate.config } })
    const results = await within(30_000, Promise.all(Array.from({ length: 30 }, (_, i) => postStep(browser(`198.51.100.${i + 1}`), "signup", { email: "race@example.com", password: STRONG }))), "30 sign-ups")
    const sent = results.filter((r) => r.path === "/auth/password/sent").length
    const refused = results.filter((r) => r.error === "AccountSuspended").length
    expect(sent + refused).toBe(30)
    expect(sent).toBe(10)
    expect(mails).toHaveLength(sent)
    expect((await allUsers(adapter)).length).toBe(1)
    expect(gate.state.created).toEqual(["race@example.com"])
  })
})
