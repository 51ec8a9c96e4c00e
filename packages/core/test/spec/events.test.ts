/**
 * Spec §6, the event messages not held by another suite: `updateUser` on every update of a
 * user, `linkAccount`'s `{ user, account, profile }`, and `session` with each strategy
 * (`{ session }` with database sessions, `{ session, token }` with JWT ones).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, credentialsConfig, direct, SECRET } from "../helpers.js"
import { startSmtp, type TestSmtp } from "../email/support.js"
import { signInThrough, useFakeOP } from "../oauth/flow.js"
import { confirmVerification, LIGHT, passwordApp, postStep, STRONG } from "../password/support.js"

describe("the updateUser event", () => {
  let smtp: TestSmtp
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(() => smtp.close())

  function app(updateUser: NonNullable<AuthConfig["events"]>["updateUser"]) {
    const adapter = MemoryAdapter()
    const mailer = Nodemailer({ server: smtp.url, from: "auth@example.com" })
    return { adapter, ...passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { events: { updateUser } } }) }
  }

  it("fires once, with the updated user, when a password sign-up's verification link marks the address verified", async () => {
    const updateUser = vi.fn()
    const { adapter, browser } = app(updateUser)
    const b = browser()
    const email = `verify-${crypto.randomUUID().slice(0, 8)}@example.com`
    expect((await postStep(b, "signup", { email, password: STRONG })).path).toBe("/auth/password/sent")
    expect(updateUser).not.toHaveBeenCalled()

    // Confirmed (the link's page posts) with the sign-up's password: the user is kept and updated.
    expect((await confirmVerification(b, smtp.linkFor(email), STRONG)).path).toBe("/auth/password/verified")
    expect(updateUser).toHaveBeenCalledTimes(1)
    const stored = await adapter.getUserByEmail!(email)
    expect(updateUser.mock.calls[0]![0]).toEqual({ user: stored })
    expect(updateUser.mock.calls[0]![0].user.emailVerified).toBeInstanceOf(Date)
  })

  it("does not fire when nothing was updated (an address verified already)", async () => {
    const updateUser = vi.fn()
    const { adapter, browser } = app(updateUser)
    const b = browser()
    const email = `twice-${crypto.randomUUID().slice(0, 8)}@example.com`
    await postStep(b, "signup", { email, password: STRONG })
    const link = smtp.linkFor(email)
    // Verified by some other road before the link is opened: no update is made.
    const user = (await adapter.getUserByEmail!(email))!
    await adapter.updateUser!({ id: user.id, emailVerified: new Date() })
    // The link is bound to the unverified state it was mailed for: confirming it now is refused.
    const confirmed = await confirmVerification(b, link)
    expect(confirmed.path).not.toBe("/auth/password/verified")
    expect(updateUser).not.toHaveBeenCalled()
  })

  it("a throwing handler does not change the flow", async () => {
    const { browser } = app(() => {
      throw new Error("audit log down")
    })
    const b = browser()
    const email = `throws-${crypto.randomUUID().slice(0, 8)}@example.com`
    await postStep(b, "signup", { email, password: STRONG })
    expect((await confirmVerification(b, smtp.linkFor(email))).path).toBe("/auth/password/verified")
  })
})

describe("the linkAccount event", () => {
  const holder = useFakeOP()

  it("gets { user, account, profile }: the stored user, the stored account and the provider's profile as a user", async () => {
    const { op } = holder
    op.user = { sub: "op-user-7", email: "grace@example.com", email_verified: true, name: "Grace Hopper" }
    const adapter = MemoryAdapter()
    const linkAccount = vi.fn()
    const provider = { id: "op", name: "OP", type: "oidc", issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>
    const browser = new Browser(direct({ secret: SECRET, trustHost: true, adapter, providers: [provider], events: { linkAccount } }))
    await signInThrough(browser, "op")

    expect(linkAccount).toHaveBeenCalledTimes(1)
    const message = linkAccount.mock.calls[0]![0]
    expect(Object.keys(message).sort()).toEqual(["account", "profile", "user"])
    const user = await adapter.getUserByAccount!({ provider: "op", providerAccountId: "op-user-7" })
    expect(message.user).toEqual(user)
    expect(message.account).toMatchObject({ provider: "op", providerAccountId: "op-user-7", type: "oidc", userId: user!.id })
    expect(message.account).toEqual(await adapter.getAccount!("op-user-7", "op"))
    expect(message.profile).toMatchObject({ id: "op-user-7", name: "Grace Hopper", email: "grace@example.com" })
  })
})

describe("the session event", () => {
  it("with database sessions gets { session }: the session the client is answered", async () => {
    const session = vi.fn()
    const browser = new Browser(direct(credentialsConfig({ adapter: MemoryAdapter(), session: { strategy: "database" }, events: { session } })))
    await browser.signIn()
    const answered = await browser.session()
    expect(answered.user.email).toBe("ada@example.com")
    expect(session).toHaveBeenCalledTimes(1)
    expect(session.mock.calls[0]![0]).toEqual({ session: answered })
    expect(Object.keys(session.mock.calls[0]![0])).toEqual(["session"])
  })

  it("with JWT sessions gets { session, token }", async () => {
    const session = vi.fn()
    const browser = new Browser(direct(credentialsConfig({ events: { session } })))
    await browser.signIn()
    const answered = await browser.session()
    expect(session).toHaveBeenCalledTimes(1)
    const message = session.mock.calls[0]![0]
    expect(message.session).toEqual(answered)
    expect(message.token).toMatchObject({ sub: "user-ada", email: "ada@example.com" })
  })
})
