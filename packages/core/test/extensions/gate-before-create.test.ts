/**
 * The sign-in gates (`Extension.signInGate`) are asked before a sign-in writes anything: a
 * refusal leaves no user, no account, no passkey and no session behind, and fires no
 * `createUser` event — as Auth.js's `signIn` callback refuses before the user exists. Before
 * a user exists the gates are asked by address and provider alone (`userId` absent); an
 * email link is not even mailed, nor a password sign-up taken, for a refused address. A gate
 * whose store is down refuses there too (fail closed: the outage's 503), creating nothing.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { defineExtension, type ExtensionSignInGateInput, type ExtensionSignInOutcome } from "@portcullis/core/extension"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, SECRET, credentialsConfig, direct } from "../helpers.js"
import { openLink, redirectOf, requestLink, spyTokens } from "../email/support.js"
import { recordWrites, signInThrough, useFakeOP } from "../oauth/flow.js"
import { LIGHT, passwordApp, postStep, STRONG } from "../password/support.js"
import { ORIGIN, PasskeyBrowser, authenticators, expectRefused } from "../webauthn/support.js"
import { SoftCredential } from "../webauthn/soft-authenticator.js"
import { identity, SSO_PROVIDER, ssoExtension } from "./sso-probe.js"

type Asked = Omit<ExtensionSignInGateInput, "locals">

const quiet = { error: () => {}, warn: () => {}, debug: () => {} }

/**
 * A gate extension that records what it is asked and refuses addresses of `refused.test`
 * (or whatever `refuses` says, switchable), with the `createUser` and `linkAccount` events
 * recorded beside it.
 */
function policy(refuses: (asked: Asked) => boolean = (asked) => !!asked.email?.endsWith("@refused.test")) {
  const state = { asked: [] as Asked[], created: [] as string[], linked: [] as string[], refuses }
  const extension = defineExtension({
    id: "policy",
    signInGate: ({ locals: _locals, ...asked }) => {
      state.asked.push(asked)
      return state.refuses(asked) ? { refuse: "the policy refuses this address" } : undefined
    },
  })
  const config: Partial<AuthConfig> = {
    extensions: [extension],
    events: {
      createUser: ({ user }) => void state.created.push(user.email ?? ""),
      linkAccount: ({ account }) => void state.linked.push(account.provider),
    },
  }
  return { ...state, state, config }
}

const hasSession = (browser: Browser) => [...browser.jar.keys()].some((name) => name.includes("session-token"))

describe("an email link", () => {
  function emailApp(gate: ReturnType<typeof policy>, adapter: Adapter = MemoryAdapter()) {
    const links: string[] = []
    const spied = spyTokens(adapter)
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: spied.adapter,
      rateLimit: false,
      logger: quiet,
      providers: [Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", interstitial: false, sendVerificationRequest: async ({ url }) => void links.push(url) })],
      ...gate.config,
    }
    return { adapter, links, tokens: spied.created, browser: () => new Browser(direct(config)) }
  }

  it("is not mailed to a refused address: AccountSuspended, no token stored, no user, no createUser", async () => {
    const gate = policy()
    const { adapter, links, tokens, browser } = emailApp(gate)
    const response = await requestLink(browser(), "new@refused.test")
    expect(redirectOf(response)).toMatchObject({ path: "/auth/signin", error: "AccountSuspended" })
    expect(links).toEqual([])
    expect(tokens).toEqual([])
    expect(await adapter.getUserByEmail!("new@refused.test")).toBeNull()
    expect(gate.created).toEqual([])
    // Asked by the address alone: nobody to look up yet.
    expect(gate.asked).toEqual([{ email: "new@refused.test", provider: "email" }])
  })

  it("is refused alike for a known address (asked without its id), so the answer tells nobody who has an account", async () => {
    const gate = policy()
    const { adapter, links, browser } = emailApp(gate)
    await adapter.createUser!({ id: "user-known", email: "known@refused.test", emailVerified: new Date(), name: null, image: null })
    const response = await requestLink(browser(), "known@refused.test")
    expect(redirectOf(response)).toMatchObject({ path: "/auth/signin", error: "AccountSuspended" })
    expect(links).toEqual([])
    expect(gate.asked).toEqual([{ email: "known@refused.test", provider: "email" }])
  })

  it("refused once opened (the policy changed after the mailing) makes no user and no session, and fires no createUser", async () => {
    const gate = policy(() => false)
    const { adapter, links, browser } = emailApp(gate)
    const b = browser()
    await requestLink(b, "late@example.com")
    expect(links).toHaveLength(1)
    gate.state.refuses = () => true
    const opened = await openLink(b, new URL(links[0]!).pathname + new URL(links[0]!).search)
    expect(redirectOf(opened)).toMatchObject({ path: "/auth/signin", error: "AccountSuspended" })
    expect(await adapter.getUserByEmail!("late@example.com")).toBeNull()
    expect(gate.created).toEqual([])
    expect(hasSession(b)).toBe(false)
  })

  it("refused once opened over an unverified user (T67): that user is kept as it was, not replaced", async () => {
    const gate = policy(() => false)
    const { adapter, links, browser } = emailApp(gate)
    await adapter.createUser!({ id: "user-early", email: "early@example.com", emailVerified: null, name: "Early", image: null })
    const b = browser()
    await requestLink(b, "early@example.com")
    gate.state.refuses = () => true
    const opened = await openLink(b, new URL(links[0]!).pathname + new URL(links[0]!).search)
    expect(redirectOf(opened).error).toBe("AccountSuspended")
    expect(await adapter.getUserByEmail!("early@example.com")).toMatchObject({ id: "user-early", emailVerified: null })
    expect(gate.created).toEqual([])
  })
})

describe("an OAuth sign-in", () => {
  const holder = useFakeOP()
  function oauthApp(gate: ReturnType<typeof policy>, provider: Partial<OAuthConfig<any>> = {}) {
    const memory = MemoryAdapter()
    const { adapter, writes } = recordWrites(memory)
    const fake = { id: "fake", name: "Fake", type: "oidc", issuer: holder.op.issuer, clientId: holder.op.clientId, clientSecret: holder.op.clientSecret, allowInsecureLoopback: true, ...provider } as OAuthConfig<any>
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, rateLimit: false, logger: quiet, providers: [fake], ...gate.config }
    return { memory, writes, browser: () => new Browser(direct(config)) }
  }

  it("of a new user, refused: no user, no account, no session, nothing written, no createUser or linkAccount", async () => {
    const gate = policy((asked) => asked.email === "alice@example.com")
    const { memory, writes, browser } = oauthApp(gate)
    const b = browser()
    const response = await signInThrough(b, "fake")
    expect(redirectOf(response)).toMatchObject({ path: "/auth/signin", error: "AccountSuspended" })
    expect(await memory.getUserByEmail!("alice@example.com")).toBeNull()
    expect(await memory.getUserByAccount!({ provider: "fake", providerAccountId: "user-1" })).toBeNull()
    expect(writes).toEqual([])
    expect(gate.created).toEqual([])
    expect(gate.linked).toEqual([])
    expect(hasSession(b)).toBe(false)
    expect(gate.asked).toEqual([{ email: "alice@example.com", provider: "fake" }])
  })

  it("linking to a verified owner of the address, refused: the gate sees the owner's id, and nothing is linked", async () => {
    const gate = policy((asked) => asked.userId === "user-alice")
    const { memory, writes, browser } = oauthApp(gate, { allowDangerousEmailAccountLinking: true })
    await memory.createUser!({ id: "user-alice", email: "alice@example.com", emailVerified: new Date(), name: "Alice", image: null })
    const response = await signInThrough(browser(), "fake")
    expect(redirectOf(response).error).toBe("AccountSuspended")
    expect(await memory.getUserByAccount!({ provider: "fake", providerAccountId: "user-1" })).toBeNull()
    expect(writes).toEqual([])
    expect(gate.linked).toEqual([])
    expect(gate.asked).toEqual([{ userId: "user-alice", email: "alice@example.com", provider: "fake" }])
  })
})

describe("a passkey registration (sign-up)", () => {
  it("refused: no user, no passkey, no account, no session, no createUser", async () => {
    const gate = policy()
    const adapter = MemoryAdapter()
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, rateLimit: false, experimental: { enableWebAuthn: true }, providers: [Passkey], logger: quiet, ...gate.config }
    const browser = new PasskeyBrowser(direct(config), ORIGIN)
    const response = await browser.register(new SoftCredential(ORIGIN, "localhost"), { email: "pat@refused.test" })
    expectRefused(response, browser, "AccountSuspended")
    expect(await adapter.getUserByEmail!("pat@refused.test")).toBeNull()
    expect(await authenticators(adapter, "pat@refused.test")).toEqual([])
    expect(gate.created).toEqual([])
    expect(gate.linked).toEqual([])
    expect(gate.asked).toEqual([{ email: "pat@refused.test", provider: "passkey" }])
  })

  it("let through, the sign-up still works (and the gate is asked again with the new user's id)", async () => {
    const gate = policy()
    const adapter = MemoryAdapter()
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, rateLimit: false, experimental: { enableWebAuthn: true }, providers: [Passkey], logger: quiet, ...gate.config }
    const browser = new PasskeyBrowser(direct(config), ORIGIN)
    expect((await browser.register(new SoftCredential(ORIGIN, "localhost"), { email: "pat@example.com" })).status).toBe(302)
    const user = await adapter.getUserByEmail!("pat@example.com")
    expect(gate.created).toEqual(["pat@example.com"])
    expect(gate.asked[0]).toEqual({ email: "pat@example.com", provider: "passkey" })
    expect(gate.asked.slice(1)).toEqual([
      { userId: user!.id, email: "pat@example.com", provider: "passkey" },
      { userId: user!.id, email: "pat@example.com", provider: "passkey" },
    ])
  })
})

describe("credentials with database sessions", () => {
  function credentialsApp(gate: ReturnType<typeof policy>) {
    const memory = MemoryAdapter()
    const { adapter, writes } = recordWrites(memory)
    const config = credentialsConfig({ adapter, session: { strategy: "database" }, rateLimit: false, logger: quiet, ...gate.config })
    return { memory, writes, browser: () => new Browser(direct(config)) }
  }

  it("a first sign-in refused: no user stored, no session, nothing written, no createUser", async () => {
    const gate = policy((asked) => asked.email === "ada@example.com")
    const { memory, writes, browser } = credentialsApp(gate)
    const b = browser()
    const response = await b.signIn()
    expect(redirectOf(response)).toMatchObject({ path: "/auth/signin", error: "AccountSuspended" })
    expect(await memory.getUser!("user-ada")).toBeNull()
    expect(writes).toEqual([])
    expect(gate.created).toEqual([])
    expect(await b.session()).toBeNull()
  })

  it("the gate sees no userId (and the address) for a new user, and the userId for an existing one", async () => {
    const gate = policy(() => false)
    const { browser } = credentialsApp(gate)
    expect((await browser().signIn()).status).toBe(302)
    const asked = { email: "ada@example.com", provider: "credentials" }
    // Before the user is stored; then before and after the session, with the new user's id.
    expect(gate.asked).toEqual([asked, { userId: "user-ada", ...asked }, { userId: "user-ada", ...asked }])
    expect(gate.asked[0]).not.toHaveProperty("userId")
    gate.asked.length = 0
    expect((await browser().signIn()).status).toBe(302)
    expect(gate.asked).toEqual([{ userId: "user-ada", ...asked }, { userId: "user-ada", ...asked }])
    expect(gate.created).toEqual(["ada@example.com"])
  })
})

describe("a password sign-up", () => {
  function signUpApp(gate: ReturnType<typeof policy>) {
    const adapter = MemoryAdapter()
    const mails: string[] = []
    const mailer = Nodemailer({ server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ identifier }) => void mails.push(identifier) })
    const app = passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { session: { strategy: "database" }, ...gate.config } })
    return { adapter, mails, browser: app.browser }
  }

  it("of a refused address: AccountSuspended, no user, no mail, no createUser", async () => {
    const gate = policy()
    const { adapter, mails, browser } = signUpApp(gate)
    const result = await postStep(browser(), "signup", { email: "new@refused.test", password: STRONG })
    expect(result).toMatchObject({ path: "/auth/signin", error: "AccountSuspended" })
    expect(await adapter.getUserByEmail!("new@refused.test")).toBeNull()
    expect(mails).toEqual([])
    expect(gate.created).toEqual([])
    expect(gate.asked).toEqual([{ email: "new@refused.test", provider: "password" }])
  })

  it("of a refused address that has a user: the same answer (asked without its id), and no mail either", async () => {
    const gate = policy()
    const { adapter, mails, browser } = signUpApp(gate)
    await adapter.createUser!({ id: "user-taken", email: "taken@refused.test", emailVerified: new Date(), name: null, image: null })
    const result = await postStep(browser(), "signup", { email: "taken@refused.test", password: STRONG })
    expect(result).toMatchObject({ path: "/auth/signin", error: "AccountSuspended" })
    expect(mails).toEqual([])
    expect(gate.asked).toEqual([{ email: "taken@refused.test", provider: "password" }])
  })

  it("of another address goes on as ever", async () => {
    const gate = policy()
    const { adapter, mails, browser } = signUpApp(gate)
    const result = await postStep(browser(), "signup", { email: "new@example.com", password: STRONG })
    expect(result.path).toBe("/auth/password/sent")
    expect(await adapter.getUserByEmail!("new@example.com")).toMatchObject({ emailVerified: null })
    expect(mails).toEqual(["new@example.com"])
    expect(gate.created).toEqual(["new@example.com"])
  })
})

describe("an extension's own sign-in (req.signIn)", () => {
  function ssoApp(gate: ReturnType<typeof policy>) {
    const adapter = MemoryAdapter()
    const outcomes: ExtensionSignInOutcome[] = []
    const config = credentialsConfig({ adapter, rateLimit: false, logger: quiet, ...gate.config, extensions: [ssoExtension(outcomes), ...gate.config.extensions!] })
    const browser = () => new Browser(direct(config), "http://localhost:3000")
    const assert = (b: Browser) => b.request("/auth/sso/acs", { json: identity(), headers: { origin: "https://idp.example" } })
    return { adapter, outcomes, browser, assert }
  }

  it("of a new address, refused: no user, no account, no createUser or linkAccount", async () => {
    const gate = policy((asked) => asked.email === "ada@acme.com")
    const { adapter, outcomes, browser, assert } = ssoApp(gate)
    const b = browser()
    const response = await assert(b)
    expect(redirectOf(response).error).toBe("AccountSuspended")
    expect(outcomes[0]).toMatchObject({ refused: "AccountSuspended", userId: null, session: null })
    expect(await adapter.getUserByEmail!("ada@acme.com")).toBeNull()
    expect(await adapter.getUserByAccount!({ provider: SSO_PROVIDER, providerAccountId: "nameid-ada" })).toBeNull()
    expect(gate.created).toEqual([])
    expect(gate.linked).toEqual([])
    expect(hasSession(b)).toBe(false)
    expect(gate.asked).toEqual([{ email: "ada@acme.com", provider: SSO_PROVIDER }])
  })

  it("over an unverified owner (T67), refused: the owner is kept, nothing replaced or linked", async () => {
    const gate = policy((asked) => asked.email === "ada@acme.com")
    const { adapter, assert, browser } = ssoApp(gate)
    await adapter.createUser!({ id: "user-early", email: "ada@acme.com", emailVerified: null, name: "Early", image: null })
    expect(redirectOf(await assert(browser())).error).toBe("AccountSuspended")
    expect(await adapter.getUserByEmail!("ada@acme.com")).toMatchObject({ id: "user-early" })
    expect(await adapter.getUserByAccount!({ provider: SSO_PROVIDER, providerAccountId: "nameid-ada" })).toBeNull()
    expect(gate.created).toEqual([])
  })

  it("linking to a verified owner, refused: the gate sees the owner's id, and nothing is linked", async () => {
    const gate = policy((asked) => asked.userId === "user-ada")
    const { adapter, assert, browser } = ssoApp(gate)
    await adapter.createUser!({ id: "user-ada", email: "ada@acme.com", emailVerified: new Date(), name: "Ada", image: null })
    expect(redirectOf(await assert(browser())).error).toBe("AccountSuspended")
    expect(await adapter.getUserByAccount!({ provider: SSO_PROVIDER, providerAccountId: "nameid-ada" })).toBeNull()
    expect(gate.linked).toEqual([])
    expect(gate.asked).toEqual([{ userId: "user-ada", email: "ada@acme.com", provider: SSO_PROVIDER }])
  })
})

describe("a gate whose store is down", () => {
  /** A gate reading a policy store through `host.wrapStore`, as the admin console's bans and SSO's domains are read. */
  function failingPolicy() {
    const state = { down: true, created: [] as string[] }
    const extension = defineExtension({
      id: "policy",
      setup: (host) => ({
        store: host.wrapStore("policy", {
          async refused(_email: string | undefined): Promise<boolean> {
            if (state.down) throw new Error("connect ECONNREFUSED 10.0.0.9:5432 password=hunter2")
            return false
          },
        }),
      }),
      signInGate: async ({ email, locals }) => ((await locals.store.refused(email)) ? { refuse: "policy" } : undefined),
    })
    return { state, config: { extensions: [extension], events: { createUser: ({ user }) => void state.created.push(user.email ?? "") } } satisfies Partial<AuthConfig> }
  }

  it("refuses a first sign-in before the user is created (fail closed): the outage's answer, no user, no createUser", async () => {
    const gate = failingPolicy()
    const adapter = MemoryAdapter()
    const config = credentialsConfig({ adapter, session: { strategy: "database" }, rateLimit: false, logger: quiet, ...gate.config })
    const b = new Browser(direct(config))
    const response = await b.signIn()
    expect(redirectOf(response)).toMatchObject({ path: "/auth/error", error: "ServiceUnavailable" })
    expect(await adapter.getUser!("user-ada")).toBeNull()
    expect(gate.state.created).toEqual([])
    expect(hasSession(b)).toBe(false)
    // A fetch client gets the 503 itself, without the store's message.
    const csrfToken = await b.csrfToken()
    const fetched = await b.request("/auth/callback/credentials", { form: { username: "ada", password: "correct horse battery staple", csrfToken }, headers: { "x-auth-return-redirect": "1" } })
    expect(fetched.status).toBe(503)
    expect(await fetched.text()).not.toMatch(/hunter2|ECONNREFUSED|\n\s+at /)
    expect(await adapter.getUser!("user-ada")).toBeNull()
    // The store back, the sign-in goes through.
    gate.state.down = false
    expect((await b.signIn()).status).toBe(302)
    expect(gate.state.created).toEqual(["ada@example.com"])
  })

  it("mails no email link while down", async () => {
    const gate = failingPolicy()
    const links: string[] = []
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      rateLimit: false,
      logger: quiet,
      providers: [Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ url }) => void links.push(url) })],
      ...gate.config,
    }
    const response = await requestLink(new Browser(direct(config)), "ada@example.com")
    expect(redirectOf(response)).toMatchObject({ path: "/auth/error", error: "ServiceUnavailable" })
    expect(links).toEqual([])
  })
})
