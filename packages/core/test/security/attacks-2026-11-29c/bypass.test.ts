/**
 * Attack class 1 on fee586c3 (the sign-in gates asked before a sign-in writes anything): every
 * way in that could still create a user, link an account or a passkey, or end in a session
 * for an address or user a gate refuses — credentials with JWT and database sessions, the
 * password sign-up's confirmation and the password reset of an unverified user, an email
 * link opened after the policy changed, a passkey added while signed in, an OAuth account
 * linked to the signed-in user (a real `oidc-provider`), `allowDangerousEmailAccountLinking`
 * over an unverified owner, and a two-factor sign-in completed after the policy changed.
 *
 * What it looks at: users left (adapter `getUserByEmail`, `listUsers`), accounts
 * (`getUserByAccount`), passkeys, the `createUser` / `linkAccount` events, session cookies.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Passkey from "@portcullis/core/providers/passkey"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { demoOidcAccount, startDemoOidcProvider, type DemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import { Browser, SECRET, credentialsConfig, direct } from "../../helpers.js"
import { openLink, requestLink } from "../../email/support.js"
import { recordWrites, signInThrough, useFakeOP } from "../../oauth/flow.js"
import { clientId, clientSecret, demoProvider, signInAtOP } from "../../oauth/real-op.js"
import { LIGHT, confirmVerification, passwordApp, postStep, seedUser, STRONG } from "../../password/support.js"
import { ORIGIN, PasskeyBrowser, authenticators } from "../../webauthn/support.js"
import { SoftCredential } from "../../webauthn/soft-authenticator.js"
import { enroll, firstFactor, secondFactor, twoFactorApp } from "../../two-factor/support.js"
import { allUsers, answerOf, hasSession, policy, quiet } from "./support.js"

describe("credentials with JWT sessions (no user stored)", () => {
  it("refused by the gate: AccountSuspended, no session cookie, nothing written to the adapter", async () => {
    const gate = policy((asked) => asked.email === "ada@example.com")
    const { adapter, writes } = recordWrites(MemoryAdapter())
    const b = new Browser(direct(credentialsConfig({ adapter, session: { strategy: "jwt" }, rateLimit: false, logger: quiet, ...gate.config })))
    const response = await b.signIn()
    expect(answerOf(response)).toMatchObject({ status: 302, path: "/auth/signin", error: "AccountSuspended" })
    expect(hasSession(b)).toBe(false)
    expect(await b.session()).toBeNull()
    expect(writes).toEqual([])
    expect(gate.state.created).toEqual([])
    // JWT credentials create nobody: only the session's ask, with authorize()'s id.
    expect(gate.state.asked).toEqual([{ userId: "user-ada", email: "ada@example.com", provider: "credentials" }])
  })
})

describe("the password sign-up's verification link, opened after the policy started refusing the address", () => {
  function app() {
    const gate = policy(() => false)
    const adapter = MemoryAdapter()
    const links: string[] = []
    const mailer = Nodemailer({ server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ url }) => void links.push(url) })
    const made = passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { session: { strategy: "database" }, ...gate.config } })
    return { gate, adapter, links, browser: made.browser }
  }

  it("confirmed with the sign-up's password: the user is only marked verified, no user is created", async () => {
    const { gate, adapter, links, browser } = app()
    expect((await postStep(browser(), "signup", { email: "late@refused.test", password: STRONG })).path).toBe("/auth/password/sent")
    const registrant = await adapter.getUserByEmail!("late@refused.test")
    gate.state.refuses = (asked) => !!asked.email?.endsWith("@refused.test")
    gate.state.created.length = 0
    const confirmed = await confirmVerification(browser(), links.at(-1)!, STRONG)
    expect(confirmed.path).toBe("/auth/password/verified")
    expect(await adapter.getUserByEmail!("late@refused.test")).toMatchObject({ id: registrant!.id })
    expect(gate.state.created).toEqual([])
  })

  // WEAKNESS (low): `POST /password/verify` without the sign-up's password replaces the
  // unverified user (T67) through `replaceUnverifiedUser` with no gate asked: a fresh verified
  // user is created for an address the gates refuse (a domain that now requires SSO), its
  // `createUser` event fired — the very leftover fee586c3 set out to remove. It signs nobody in
  // (the session gate still refuses a later sign-in), which is why first-verification.ts says
  // the confirmation "does not" ask; but the user and its event are written all the same.
  // Fix: ask `admitSignIn(ctx, { email, provider })` before `replaceUnverifiedUser` in
  // `verify()` (and on a refusal keep the unverified user as it is, answering AccountSuspended).
  it("confirmed without the password (a first verification by the owner): no fresh user is created for the refused address", async () => {
    const { gate, adapter, links, browser } = app()
    expect((await postStep(browser(), "signup", { email: "owner@refused.test", password: STRONG })).path).toBe("/auth/password/sent")
    const registrant = await adapter.getUserByEmail!("owner@refused.test")
    gate.state.refuses = (asked) => !!asked.email?.endsWith("@refused.test")
    gate.state.created.length = 0
    await confirmVerification(browser(), links.at(-1)!)
    expect(gate.state.created).toEqual([])
    expect(await adapter.getUserByEmail!("owner@refused.test")).toMatchObject({ id: registrant!.id, emailVerified: null })
  })
})

describe("the password reset of an existing unverified user whose address the gates refuse", () => {
  // WEAKNESS (low): `POST /password/reset` of an unverified user replaces it (T67) through
  // `replaceUnverifiedUser` without asking the gates: a fresh, verified user with the new
  // password is created for a refused address (`createUser` fired), and the registrant's user
  // is deleted. `forgot` mails the reset link to the refused address too. The session gate
  // still refuses every later sign-in of it, so nobody gets in — but the store is written as
  // the change promised it would not be. Repro: seed an unverified user with a password at
  // `x@refused.test`, make the policy refuse `@refused.test`, POST /password/forgot, then
  // /password/reset with the mailed token. Fix: `admitSignIn` before `replaceUnverifiedUser`
  // in `reset()` (AccountSuspended on a refusal, the link left unused or spent, nothing replaced).
  it("creates no fresh user and fires no createUser for it", async () => {
    const gate = policy()
    const adapter = MemoryAdapter()
    const links: string[] = []
    const mailer = Nodemailer({ server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ url }) => void links.push(url) })
    const { browser } = passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { session: { strategy: "database" }, ...gate.config } })
    const early = await seedUser(adapter, { email: "early@refused.test", password: "an early registrant's passphrase", verified: false })
    expect((await postStep(browser(), "forgot", { email: "early@refused.test" })).path).toBe("/auth/password/sent")
    expect(links).toHaveLength(1)
    const token = new URL(links[0]!).searchParams.get("token")!
    await postStep(browser(), "reset", { token, email: "early@refused.test", password: "a brand new passphrase for the owner" })
    expect(gate.state.created).toEqual([])
    expect(await adapter.getUserByEmail!("early@refused.test")).toMatchObject({ id: early.id, emailVerified: null })
  })

  it("still signs nobody in afterwards: the refused reset set no password, and the sign-in gets no session", async () => {
    const gate = policy()
    const adapter = MemoryAdapter()
    const links: string[] = []
    const mailer = Nodemailer({ server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ url }) => void links.push(url) })
    const { browser } = passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { session: { strategy: "database" }, ...gate.config } })
    await seedUser(adapter, { email: "early2@refused.test", password: "an early registrant's passphrase", verified: false })
    await postStep(browser(), "forgot", { email: "early2@refused.test" })
    const token = new URL(links[0]!).searchParams.get("token")!
    await postStep(browser(), "reset", { token, email: "early2@refused.test", password: "a brand new passphrase for the owner" })
    const b = browser()
    const csrfToken = await b.csrfToken()
    const signIn = await b.request("/auth/callback/password", { form: { email: "early2@refused.test", password: "a brand new passphrase for the owner", csrfToken } })
    // The reset was refused before it stored the new password: that password signs in nobody.
    expect(["AccountSuspended", "CredentialsSignin"]).toContain(answerOf(signIn).error)
    expect(hasSession(b)).toBe(false)
  })
})

describe("an email link of a verified user, opened after the policy started refusing", () => {
  it("ends in no session, keeps the user as it was, and creates nobody", async () => {
    const gate = policy(() => false)
    const adapter = MemoryAdapter()
    const links: string[] = []
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      rateLimit: false,
      logger: quiet,
      providers: [Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", interstitial: false, sendVerificationRequest: async ({ url }) => void links.push(url) })],
      ...gate.config,
    }
    await adapter.createUser!({ id: "user-vera", email: "vera@example.com", emailVerified: new Date(), name: "Vera", image: null })
    const b = new Browser(direct(config))
    await requestLink(b, "vera@example.com")
    gate.state.refuses = (asked) => asked.userId === "user-vera"
    const opened = await openLink(b, new URL(links[0]!).pathname + new URL(links[0]!).search)
    expect(answerOf(opened).error).toBe("AccountSuspended")
    expect(hasSession(b)).toBe(false)
    expect(await adapter.getUserByEmail!("vera@example.com")).toMatchObject({ id: "user-vera" })
    expect(gate.state.created).toEqual([])
    expect(gate.state.signedIn).toEqual([])
  })
})

describe("a passkey added while signed in, refused by the gate", () => {
  it("stores no second passkey and links no account; the gate is asked with the user's id", async () => {
    const gate = policy(() => false)
    const adapter = MemoryAdapter()
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, rateLimit: false, experimental: { enableWebAuthn: true }, providers: [Passkey], logger: quiet, ...gate.config }
    const b = new PasskeyBrowser(direct(config), ORIGIN)
    const first = new SoftCredential(ORIGIN, "localhost")
    expect((await b.register(first, { email: "pia@example.com" })).status).toBe(302)
    const user = await adapter.getUserByEmail!("pia@example.com")
    gate.state.refuses = (asked) => asked.userId === user!.id
    gate.state.asked.length = 0
    gate.state.linked.length = 0
    const { body } = await b.options()
    expect(body.action).toBe("register")
    const second = new SoftCredential(ORIGIN, "localhost")
    const response = await b.callback("register", second.register(body.options))
    expect(answerOf(response)).toMatchObject({ path: "/auth/signin", error: "AccountSuspended" })
    expect((await authenticators(adapter, "pia@example.com")).map((a) => a.credentialID)).toEqual([first.id.toString("base64")])
    expect(await adapter.getAccount!(second.id.toString("base64url"), "passkey")).toBeNull()
    expect(gate.state.linked).toEqual([])
    expect(gate.state.asked).toEqual([{ userId: user!.id, email: "pia@example.com", provider: "passkey" }])
  })
})

describe("an OAuth account linked to the signed-in user (a real oidc-provider), refused by the gate", () => {
  let op: DemoOidcProvider
  beforeAll(async () => {
    op = await startDemoOidcProvider({ port: 0, clientId, clientSecret, redirectUris: [`${ORIGIN}/auth/callback/demo-oidc`] })
  })
  afterAll(() => op.close())

  it("links nothing, fires no linkAccount; the gate is asked with the signed-in user's id before the link", async () => {
    const gate = policy(() => false)
    const adapter = MemoryAdapter()
    await adapter.createUser!({ id: "user-ada", email: "ada@example.com", emailVerified: new Date(), name: "Ada", image: null })
    const config = credentialsConfig({ adapter, session: { strategy: "jwt" }, rateLimit: false, logger: quiet, ...gate.config })
    config.providers.push(demoProvider(op.issuer))
    const b = new Browser(direct(config), ORIGIN)
    expect((await b.signIn()).status).toBe(302)
    gate.state.refuses = (asked) => asked.userId === "user-ada" && asked.provider === "demo-oidc"
    gate.state.asked.length = 0
    const answer = await signInAtOP(b, "demo-oidc")
    expect(answerOf(answer).error).toBe("AccountSuspended")
    expect(await adapter.getUserByAccount!({ provider: "demo-oidc", providerAccountId: demoOidcAccount.sub })).toBeNull()
    expect(await adapter.getUserByEmail!(demoOidcAccount.email)).toBeNull()
    expect(gate.state.linked).toEqual([])
    expect(gate.state.created).toEqual([])
    expect(gate.state.asked).toEqual([{ userId: "user-ada", email: "ada@example.com", provider: "demo-oidc" }])
  })
})

describe("allowDangerousEmailAccountLinking over an unverified owner, the provider vouching (T67 replacement)", () => {
  const holder = useFakeOP()
  it("refused: the unverified owner is kept, not replaced; nothing linked or created", async () => {
    const gate = policy((asked) => asked.email === "alice@example.com")
    const memory = MemoryAdapter()
    const { adapter, writes } = recordWrites(memory)
    const fake = { id: "fake", name: "Fake", type: "oidc", issuer: holder.op.issuer, clientId: holder.op.clientId, clientSecret: holder.op.clientSecret, allowInsecureLoopback: true, allowDangerousEmailAccountLinking: true } as OAuthConfig<any>
    await memory.createUser!({ id: "user-early", email: "alice@example.com", emailVerified: null, name: "Early", image: null })
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, rateLimit: false, logger: quiet, providers: [fake], ...gate.config }
    const b = new Browser(direct(config))
    const response = await signInThrough(b, "fake")
    expect(answerOf(response).error).toBe("AccountSuspended")
    expect(await memory.getUserByEmail!("alice@example.com")).toMatchObject({ id: "user-early", emailVerified: null })
    expect(await memory.getUserByAccount!({ provider: "fake", providerAccountId: "user-1" })).toBeNull()
    expect(writes).toEqual([])
    expect(gate.state.created).toEqual([])
    expect(gate.state.linked).toEqual([])
    expect(hasSession(b)).toBe(false)
    // Asked about the replacement with the replaced user's id (a ban of it is not shed).
    expect(gate.state.asked).toEqual([{ userId: "user-early", email: "alice@example.com", provider: "fake" }])
  })
})

describe("a two-factor sign-in whose policy changes between the first and the second factor", () => {
  it("is refused at the second factor: AccountSuspended, no session", async () => {
    const gate = policy(() => false)
    const adapter = MemoryAdapter()
    await adapter.createUser!({ id: "user-ada", email: "ada@example.com", emailVerified: new Date(), name: "Ada", image: null })
    const { config, browser } = twoFactorApp({ rateLimit: false, logger: quiet, ...gate.config }, adapter)
    const { secret } = await enroll(config)
    const b = browser()
    const first = await firstFactor(b)
    expect(first.headers.get("location")).toBe("http://localhost:3000/auth/two-factor")
    expect(hasSession(b)).toBe(false)
    gate.state.refuses = (asked) => asked.userId === "user-ada"
    const second = await secondFactor(b, totpCode(secret))
    expect(answerOf(second).error).toBe("AccountSuspended")
    expect(hasSession(b)).toBe(false)
    expect(await b.session()).toBeNull()
    expect(gate.state.signedIn).toEqual([])
  })
})

describe("nothing else is left: a refused OAuth first sign-in through the real provider", () => {
  let op: DemoOidcProvider
  beforeAll(async () => {
    op = await startDemoOidcProvider({ port: 0, clientId, clientSecret, redirectUris: [`${ORIGIN}/auth/callback/demo-oidc`] })
  })
  afterAll(() => op.close())

  it("with database sessions: no user, no account, no session row, no events", async () => {
    const gate = policy((asked) => asked.email === demoOidcAccount.email)
    const adapter = MemoryAdapter()
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, session: { strategy: "database" }, rateLimit: false, logger: quiet, providers: [demoProvider(op.issuer)], ...gate.config }
    const b = new Browser(direct(config), ORIGIN)
    const answer = await signInAtOP(b, "demo-oidc")
    expect(answerOf(answer).error).toBe("AccountSuspended")
    expect(await allUsers(adapter)).toEqual([])
    expect(await adapter.getUserByAccount!({ provider: "demo-oidc", providerAccountId: demoOidcAccount.sub })).toBeNull()
    expect(hasSession(b)).toBe(false)
    expect(gate.state.created).toEqual([])
    expect(gate.state.linked).toEqual([])
    expect(gate.state.asked).toEqual([{ email: demoOidcAccount.email, provider: "demo-oidc" }])
  })
})
