/**
 * Attack classes 3 and 5 (rate-limit half) on fee586c3: the new asks before an email link is
 * mailed and before a password sign-up is taken must not tell who has an account, or who is
 * banned. A known and an unknown address are compared on everything a client or a mailbox
 * sees apart from timing — status, redirect, body, the names of the cookies set, the tokens
 * stored, the mails sent, the users created — under a gate that refuses the address, one that
 * lets it through, and the admin console's ban gate (which can only refuse by user id). And a
 * refused request spends the per-mailbox rate-limit budget exactly as an allowed one does.
 */
import { describe, expect, it } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { admin } from "@portcullis/admin"
import { memoryBanStore } from "@portcullis/admin/memory"
import { Browser, SECRET } from "../../helpers.js"
import { spyTokens } from "../../email/support.js"
import { LIGHT, passwordApp, seedUser, STRONG } from "../../password/support.js"
import { policy, quiet } from "./support.js"

/** What a client or a mailbox can see of one request, timing aside. */
interface Observed {
  status: number
  location: string | null
  cookies: string[]
  body: string
  mails: number
  tokens: number
  created: number
}

function emailApp(extra: Partial<AuthConfig>, adapter: Adapter = MemoryAdapter(), rateLimit: AuthConfig["rateLimit"] = false) {
  const mails: string[] = []
  const spied = spyTokens(adapter)
  const created: string[] = []
  const auth = createAuth({
    secret: SECRET,
    trustHost: true,
    adapter: spied.adapter,
    rateLimit,
    logger: quiet,
    providers: [Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ identifier }) => void mails.push(identifier) })],
    ...extra,
    events: { ...extra.events, createUser: ({ user }) => void created.push(user.email ?? "") },
  })
  const browser = (address = "198.51.100.7") => new Browser((request) => auth.handle(request, { clientAddress: address }), "http://localhost:3000")
  /** One request for a link to `email`, from a fresh browser (so the jars do not differ), observed. */
  async function observe(email: string, address?: string): Promise<Observed> {
    const before = { mails: mails.length, tokens: spied.created.length, created: created.length }
    const b = browser(address)
    const csrfToken = await b.csrfToken()
    const response = await b.request("/auth/signin/email", { form: { email, csrfToken } })
    return {
      status: response.status,
      location: response.headers.get("location"),
      cookies: b.lastSetCookies.map((c) => c.name).sort(),
      body: await response.text(),
      mails: mails.length - before.mails,
      tokens: spied.created.length - before.tokens,
      created: created.length - before.created,
    }
  }
  return { adapter, mails, observe }
}

function signUpApp(extra: Partial<AuthConfig>, adapter: Adapter = MemoryAdapter()) {
  const mails: { to: string; subject: string }[] = []
  const created: string[] = []
  const mailer = Nodemailer({ server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ identifier }) => void mails.push({ to: identifier, subject: "" }) })
  const app = passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { session: { strategy: "database" }, ...extra, events: { ...extra.events, createUser: ({ user }) => void created.push(user.email ?? "") } } })
  async function observe(email: string): Promise<Observed> {
    const before = { mails: mails.length, created: created.length }
    const b = app.browser()
    const csrfToken = await b.csrfToken()
    const response = await b.request("/auth/password/signup", { form: { email, password: STRONG, csrfToken } })
    return {
      status: response.status,
      location: response.headers.get("location"),
      cookies: b.lastSetCookies.map((c) => c.name).sort(),
      body: await response.text(),
      mails: mails.length - before.mails,
      tokens: 0,
      created: created.length - before.created,
    }
  }
  return { adapter, mails, observe }
}

const ban = (userId: string) => ({ userId, reason: "abuse", bannedBy: "user-admin", bannedAt: new Date(), expires: null })

describe("the email link request", () => {
  it("under a gate refusing the domain: a known and an unknown address get the same answer, and neither a token nor a mail", async () => {
    const gate = policy()
    const { adapter, observe } = emailApp(gate.config)
    await adapter.createUser!({ id: "user-known", email: "known@refused.test", emailVerified: new Date(), name: null, image: null })
    const known = await observe("known@refused.test")
    const unknown = await observe("nobody@refused.test")
    expect(known).toEqual(unknown)
    expect(known).toMatchObject({ status: 302, mails: 0, tokens: 0, created: 0 })
    expect(new URL(known.location!).searchParams.get("error")).toBe("AccountSuspended")
    // The redirect names neither the address nor the reason.
    expect(known.location).not.toMatch(/refused\.test|policy|known|nobody/)
    // Both asked the same question: the address and the provider, no id.
    expect(gate.state.asked).toEqual([
      { email: "known@refused.test", provider: "email" },
      { email: "nobody@refused.test", provider: "email" },
    ])
  })

  it("under a gate letting the domain through: the same answer for both, one token and one mail each, no user created", async () => {
    const gate = policy(() => false)
    const { adapter, observe } = emailApp(gate.config)
    await adapter.createUser!({ id: "user-known", email: "known@example.com", emailVerified: new Date(), name: null, image: null })
    const known = await observe("known@example.com")
    const unknown = await observe("nobody@example.com")
    expect(known).toEqual(unknown)
    expect(known).toMatchObject({ status: 302, mails: 1, tokens: 1, created: 0 })
  })

  it("under the admin console's ban gate: a banned user, an unbanned user and an unknown address are answered alike, each mailed once", async () => {
    const store = memoryBanStore()
    const { adapter, observe } = emailApp({ extensions: [admin({ store, isAdmin: () => false })] })
    await adapter.createUser!({ id: "user-banned", email: "banned@example.com", emailVerified: new Date(), name: null, image: null })
    await adapter.createUser!({ id: "user-fine", email: "fine@example.com", emailVerified: new Date(), name: null, image: null })
    await store.ban(ban("user-banned"))
    const banned = await observe("banned@example.com")
    const fine = await observe("fine@example.com")
    const unknown = await observe("nobody@example.com")
    expect(banned).toEqual(fine)
    expect(fine).toEqual(unknown)
    expect(banned).toMatchObject({ status: 302, mails: 1, tokens: 1 })
  })
})

describe("the password sign-up", () => {
  it("under a gate refusing the domain: a known and an unknown address get the same answer, no mail, no user", async () => {
    const gate = policy()
    const { adapter, observe } = signUpApp(gate.config)
    await seedUser(adapter, { email: "known@refused.test", password: "a passphrase the owner chose long ago" })
    const known = await observe("known@refused.test")
    const unknown = await observe("nobody@refused.test")
    expect(known).toEqual(unknown)
    expect(known).toMatchObject({ status: 302, mails: 0, created: 0 })
    expect(new URL(known.location!).searchParams.get("error")).toBe("AccountSuspended")
    expect(await adapter.getUserByEmail!("nobody@refused.test")).toBeNull()
  })

  it("under a gate letting the domain through: the same answer and one mail for both (a reset link for the known one)", async () => {
    const gate = policy(() => false)
    const { adapter, observe } = signUpApp(gate.config)
    await seedUser(adapter, { email: "known@example.com", password: "a passphrase the owner chose long ago" })
    const known = await observe("known@example.com")
    const unknown = await observe("nobody@example.com")
    expect({ ...known, created: 0 }).toEqual({ ...unknown, created: 0 })
    expect(known).toMatchObject({ status: 302, mails: 1, created: 0 })
    expect(unknown).toMatchObject({ status: 302, mails: 1, created: 1 })
    expect(new URL(known.location!).pathname).toBe("/auth/password/sent")
  })

  it("under the admin console's ban gate: a banned user's address is answered as any known address (mailed, not refused)", async () => {
    const store = memoryBanStore()
    const { adapter, mails, observe } = signUpApp({ extensions: [admin({ store, isAdmin: () => false })] })
    const banned = await seedUser(adapter, { email: "banned@example.com", password: "a passphrase the owner chose long ago" })
    await seedUser(adapter, { email: "fine@example.com", password: "a passphrase the owner chose long ago" })
    await store.ban(ban(banned.id))
    const a = await observe("banned@example.com")
    const b = await observe("fine@example.com")
    expect(a).toEqual(b)
    expect(new URL(a.location!).pathname).toBe("/auth/password/sent")
    expect(mails.map((m) => m.to)).toEqual(["banned@example.com", "fine@example.com"])
  })
})

describe("the per-mailbox rate limit of email links", () => {
  const rateLimit = { perIdentifier: { email: { max: 3, window: 3600 } } } as const

  /** `count` requests for `email`, each from another client address: the error codes answered. */
  async function errors(observe: (email: string, address?: string) => Promise<Observed>, email: string, count: number) {
    const out: (string | null)[] = []
    for (let i = 0; i < count; i++) {
      const seen = await observe(email, `203.0.113.${10 + i}`)
      out.push(seen.location ? new URL(seen.location).searchParams.get("error") : `status ${seen.status}`)
    }
    return out
  }

  it("is spent by a refused request exactly as by an allowed one, for known and unknown addresses alike", async () => {
    const gate = policy()
    const { adapter, observe, mails } = emailApp(gate.config, MemoryAdapter(), rateLimit)
    await adapter.createUser!({ id: "user-known", email: "known@refused.test", emailVerified: new Date(), name: null, image: null })
    const refusedKnown = await errors(observe, "known@refused.test", 5)
    const refusedUnknown = await errors(observe, "nobody@refused.test", 5)
    const allowed = await errors(observe, "someone@example.com", 5)
    expect(refusedKnown).toEqual(["AccountSuspended", "AccountSuspended", "AccountSuspended", "RateLimited", "RateLimited"])
    expect(refusedUnknown).toEqual(refusedKnown)
    // The allowed address reaches its limit at the same count.
    expect(allowed.map((e) => e === "RateLimited")).toEqual(refusedKnown.map((e) => e === "RateLimited"))
    expect(mails).toEqual(["someone@example.com", "someone@example.com", "someone@example.com"])
    // Once limited, the gate is not even asked: a limited request answers the same whatever the policy says.
    expect(gate.state.asked.filter((a) => a.email === "known@refused.test")).toHaveLength(3)
  })
})
