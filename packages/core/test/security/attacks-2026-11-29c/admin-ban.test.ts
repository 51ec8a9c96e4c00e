/**
 * Attack class 6 on fee586c3, with the real admin extension (`@portcullis/admin`, its memory
 * ban store): a banned user who still holds a session (the ban stored, its revocation not
 * run yet — the documented order) cannot link a new OAuth account (a real `oidc-provider`)
 * or add a passkey, since the gates now see the user's id before the link; a ban written
 * between the pre-creation ask and the session still refuses the session (the session's own
 * two asks); and a banned *unverified* user tries to shed the ban through the address's first
 * verification (T67), which replaces the user by a fresh one with a new id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { admin } from "@portcullis/admin"
import { memoryBanStore } from "@portcullis/admin/memory"
import { demoOidcAccount, startDemoOidcProvider, type DemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import { Browser, SECRET, credentialsConfig, direct } from "../../helpers.js"
import { openLink, requestLink } from "../../email/support.js"
import { clientId, clientSecret, demoProvider, signInAtOP } from "../../oauth/real-op.js"
import { LIGHT, passwordApp, passwordSignIn, postStep, seedUser } from "../../password/support.js"
import { ORIGIN, PasskeyBrowser, authenticators } from "../../webauthn/support.js"
import { SoftCredential } from "../../webauthn/soft-authenticator.js"
import { answerOf, hasSession, quiet } from "./support.js"

const ban = (userId: string) => ({ userId, reason: "abuse", bannedBy: "user-admin", bannedAt: new Date(), expires: null })

function consoleWithEvents() {
  const store = memoryBanStore()
  const events = { created: [] as string[], linked: [] as string[], signedIn: [] as string[] }
  const config = {
    extensions: [admin({ store, isAdmin: () => false })],
    events: {
      createUser: ({ user }: { user: { email?: string | null } }) => void events.created.push(user.email ?? ""),
      linkAccount: ({ account }: { account: { provider: string } }) => void events.linked.push(account.provider),
      signIn: ({ user }: { user: { id?: string } }) => void events.signedIn.push(user.id ?? ""),
    },
  } satisfies Partial<AuthConfig>
  return { store, events, config }
}

let op: DemoOidcProvider
beforeAll(async () => {
  op = await startDemoOidcProvider({ port: 0, clientId, clientSecret, redirectUris: [`${ORIGIN}/auth/callback/demo-oidc`] })
})
afterAll(() => op.close())

describe("a banned user who still holds a session", () => {
  it("cannot link a new OAuth account: AccountSuspended, no account, no linkAccount event", async () => {
    const { store, events, config: extra } = consoleWithEvents()
    const adapter = MemoryAdapter()
    await adapter.createUser!({ id: "user-ada", email: "ada@example.com", emailVerified: new Date(), name: "Ada", image: null })
    const config = credentialsConfig({ adapter, session: { strategy: "jwt" }, rateLimit: false, logger: quiet, ...extra })
    config.providers.push(demoProvider(op.issuer))
    const b = new Browser(direct(config), ORIGIN)
    expect((await b.signIn()).status).toBe(302)
    expect(hasSession(b)).toBe(true)
    // The ban is stored; its revocation has not reached this session yet.
    await store.ban(ban("user-ada"))
    const answer = await signInAtOP(b, "demo-oidc")
    expect(answerOf(answer).error).toBe("AccountSuspended")
    expect(await adapter.getUserByAccount!({ provider: "demo-oidc", providerAccountId: demoOidcAccount.sub })).toBeNull()
    expect(await adapter.getUserByEmail!(demoOidcAccount.email)).toBeNull()
    expect(events.linked).toEqual([])
    expect(events.created).toEqual([])
  })

  it("cannot add a passkey: no authenticator, no account, no linkAccount event", async () => {
    const { store, events, config: extra } = consoleWithEvents()
    const adapter = MemoryAdapter()
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, rateLimit: false, experimental: { enableWebAuthn: true }, providers: [Passkey], logger: quiet, ...extra }
    const b = new PasskeyBrowser(direct(config), ORIGIN)
    const first = new SoftCredential(ORIGIN, "localhost")
    expect((await b.register(first, { email: "pat@example.com" })).status).toBe(302)
    const user = (await adapter.getUserByEmail!("pat@example.com"))!
    await store.ban(ban(user.id))
    events.linked.length = 0
    const { body } = await b.options()
    expect(body.action).toBe("register")
    const second = new SoftCredential(ORIGIN, "localhost")
    const response = await b.callback("register", second.register(body.options))
    expect(answerOf(response)).toMatchObject({ path: "/auth/signin", error: "AccountSuspended" })
    expect((await authenticators(adapter, "pat@example.com")).map((a) => a.credentialID)).toEqual([first.id.toString("base64")])
    expect(await adapter.getAccount!(second.id.toString("base64url"), "passkey")).toBeNull()
    expect(events.linked).toEqual([])
  })
})

describe("a ban written between the pre-creation ask and the session", () => {
  /** The adapter, with a hook run right after `method` succeeds. */
  function hooked(adapter: Adapter, method: "createUser" | "createSession", after: (result: any) => Promise<void>): Adapter {
    const original = (adapter as any)[method].bind(adapter)
    return { ...adapter, [method]: async (input: unknown) => {
      const result = await original(input)
      await after(result)
      return result
    } } as Adapter
  }

  it("written once the new user exists (credentials, database sessions): the session's first ask refuses, no session row", async () => {
    const { store, events, config: extra } = consoleWithEvents()
    const memory = MemoryAdapter()
    const adapter = hooked(memory, "createUser", (user) => store.ban(ban(user.id)))
    const b = new Browser(direct(credentialsConfig({ adapter, session: { strategy: "database" }, rateLimit: false, logger: quiet, ...extra })))
    const response = await b.signIn()
    expect(answerOf(response).error).toBe("AccountSuspended")
    expect(hasSession(b)).toBe(false)
    expect(await memory.listSessions!("user-ada")).toEqual([])
    expect(events.signedIn).toEqual([])
  })

  it("written while the session is being stored: the second ask ends the session just made", async () => {
    const { store, events, config: extra } = consoleWithEvents()
    const memory = MemoryAdapter()
    await memory.createUser!({ id: "user-ada", email: "ada@example.com", emailVerified: new Date(), name: "Ada", image: null })
    const adapter = hooked(memory, "createSession", (session) => store.ban(ban(session.userId)))
    const b = new Browser(direct(credentialsConfig({ adapter, session: { strategy: "database" }, rateLimit: false, logger: quiet, ...extra })))
    const response = await b.signIn()
    expect(answerOf(response).error).toBe("AccountSuspended")
    expect(hasSession(b)).toBe(false)
    expect(await memory.listSessions!("user-ada")).toEqual([])
    expect(events.signedIn).toEqual([])
  })

  it("written once an OAuth user exists (real oidc-provider): no session", async () => {
    const { store, events, config: extra } = consoleWithEvents()
    const memory = MemoryAdapter()
    const adapter = hooked(memory, "createUser", (user) => store.ban(ban(user.id)))
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, session: { strategy: "database" }, rateLimit: false, logger: quiet, providers: [demoProvider(op.issuer)], ...extra }
    const b = new Browser(direct(config), ORIGIN)
    const answer = await signInAtOP(b, "demo-oidc")
    expect(answerOf(answer).error).toBe("AccountSuspended")
    expect(hasSession(b)).toBe(false)
    expect(events.signedIn).toEqual([])
  })
})

describe("a banned unverified user proving the address (T67 replaces the user by a fresh one)", () => {
  // WEAKNESS (medium; not new in fee586c3, but on its path): the first verification of an
  // address (an email link here; a password reset, a vouching OAuth provider or an SSO
  // assertion alike) replaces the unverified user by a fresh user with a NEW id
  // (`replaceUnverifiedUser`). The new pre-creation ask is made without any `userId` ("a new
  // user"), and the session's asks carry the fresh id — so the admin console's ban, which is
  // of the old id, is never consulted: a spammer banned while unverified opens a sign-in link
  // and is signed in, unbanned. Repro: create an unverified user, `store.ban(its id)`, request
  // an email link for its address, open it → a session for a new user id. Fix: pass the stale
  // user's id along at that ask (e.g. `admitSignIn(ctx, { replacing: found.id, email, … })`,
  // the admin gate refusing when `replacing` is banned), or carry the ban over to the fresh
  // user in `replaceUnverifiedUser` — a deliberate choice either way, since T67 assumes the
  // unverified user may be a squatter's rather than the owner's.
  it("by an email link: the sign-in is refused (the ban is not shed by the replacement)", async () => {
    const { store, config: extra } = consoleWithEvents()
    const adapter = MemoryAdapter()
    const links: string[] = []
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      rateLimit: false,
      logger: quiet,
      providers: [Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", interstitial: false, sendVerificationRequest: async ({ url }) => void links.push(url) })],
      ...extra,
    }
    const spammer = await adapter.createUser!({ id: "user-spam", email: "spam@example.com", emailVerified: null, name: "Spam", image: null })
    await store.ban(ban(spammer.id))
    const b = new Browser(direct(config))
    await requestLink(b, "spam@example.com")
    const opened = await openLink(b, new URL(links[0]!).pathname + new URL(links[0]!).search)
    expect(answerOf(opened).error).toBe("AccountSuspended")
    expect(hasSession(b)).toBe(false)
  })

  // The same weakness through the password reset: the fresh user gets the new password and
  // signs in with it, unbanned.
  it("by a password reset: the reset itself is refused (nothing replaced), and no sign-in follows", async () => {
    const { store, config: extra } = consoleWithEvents()
    const adapter = MemoryAdapter()
    const links: string[] = []
    const mailer = Nodemailer({ server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ url }) => void links.push(url) })
    const { browser } = passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { session: { strategy: "database" }, ...extra } })
    const spammer = await seedUser(adapter, { email: "spam2@example.com", password: "the spammer's first passphrase", verified: false })
    await store.ban(ban(spammer.id))
    await postStep(browser(), "forgot", { email: "spam2@example.com" })
    const token = new URL(links[0]!).searchParams.get("token")!
    const reset = await postStep(browser(), "reset", { token, email: "spam2@example.com", password: "the spammer's second passphrase" })
    expect(reset.error).toBe("AccountSuspended")
    // The banned user is still the address's user: the ban was not shed by a replacement.
    expect((await adapter.getUserByEmail!("spam2@example.com"))?.id).toBe(spammer.id)
    const b = browser()
    const signIn = await passwordSignIn(b, { email: "spam2@example.com", password: "the spammer's second passphrase" })
    expect(["AccountSuspended", "CredentialsSignin"]).toContain(signIn.error)
    expect(hasSession(b)).toBe(false)
  })

  it("a banned VERIFIED user's email link is still refused (control)", async () => {
    const { store, config: extra } = consoleWithEvents()
    const adapter = MemoryAdapter()
    const links: string[] = []
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      rateLimit: false,
      logger: quiet,
      providers: [Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", interstitial: false, sendVerificationRequest: async ({ url }) => void links.push(url) })],
      ...extra,
    }
    const user = await adapter.createUser!({ id: "user-v", email: "v@example.com", emailVerified: new Date(), name: "V", image: null })
    await store.ban(ban(user.id))
    const b = new Browser(direct(config))
    await requestLink(b, "v@example.com")
    const opened = await openLink(b, new URL(links[0]!).pathname + new URL(links[0]!).search)
    expect(answerOf(opened).error).toBe("AccountSuspended")
    expect(hasSession(b)).toBe(false)
    expect(await adapter.getUserByEmail!("v@example.com")).toMatchObject({ id: "user-v" })
  })
})
