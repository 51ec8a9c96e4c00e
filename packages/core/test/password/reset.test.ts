/**
 * Forgot password, reset by a single-use link, and change password (issue 20, part 2,
 * step 3): the same answer for known and unknown addresses, links bound to their address
 * and purpose and usable once, and every session of the user ended on a reset (the other
 * sessions on a change), with JWT sessions (a registry) and database sessions, on the
 * memory adapter, SQLite and PostgreSQL, mails through a real SMTP server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import { Auth, type AuthConfig } from "@portcullis/core"
import { listSessions } from "@portcullis/core/integration"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Password, { type PasswordUserConfig } from "@portcullis/core/providers/password"
import { postgresGate } from "../postgres-gate.js"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { openTestDatabase } from "@portcullis/sql-adapter/testing"
import { captureLogger, SECRET } from "../helpers.js"
import { startSmtp, type TestSmtp } from "../email/support.js"
import { LIGHT, passwordApp, passwordSignIn, postStep, seedUser, STRONG } from "./support.js"

const { service, postgres } = await postgresGate()

let smtp: TestSmtp
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(() => smtp.close())

type Open = () => Promise<{ adapter: Adapter; close(): Promise<void> }>
const memory: Open = async () => ({ adapter: MemoryAdapter(), close: async () => {} })

function app(adapter: Adapter, strategy: "jwt" | "database" = "jwt", provider: PasswordUserConfig = {}, extra: Partial<AuthConfig> = {}) {
  const mailer = Nodemailer({ server: smtp.url, from: "Portcullis Tests <auth@example.com>" })
  const session = strategy === "jwt" ? { strategy, registry: new MemorySessionRegistry() } : { strategy }
  return passwordApp(adapter, { provider: { mailer, hashing: LIGHT, ...provider }, extra: { session, ...extra } })
}

const unique = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}@example.com`
const OLD = "the old and well worn passphrase"
const NEW = "a brand new passphrase for grace"

function mailsTo(address: string) {
  return smtp.messages.filter((m) => m.to.includes(address))
}

function resetSuite(label: string, open: Open) {
  describe.each(["jwt", "database"] as const)(`reset on ${label} with %s sessions`, (strategy) => {
    it("mails a link, sets the new password through it, ends every session of the user and refuses the old password", async () => {
      const db = await open()
      try {
        const email = unique("grace")
        await seedUser(db.adapter, { email, password: OLD })
        const { browser } = app(db.adapter, strategy)
        // Two signed-in devices.
        const laptop = browser()
        const phone = browser("198.51.100.8")
        expect((await passwordSignIn(laptop, { email, password: OLD })).error).toBeNull()
        expect((await passwordSignIn(phone, { email, password: OLD })).error).toBeNull()
        expect((await laptop.session())?.user?.email).toBe(email)

        const someone = browser("198.51.100.9")
        const asked = await postStep(someone, "forgot", { email })
        expect(asked.path).toBe("/auth/password/sent")
        const mail = mailsTo(email).at(-1)!
        expect(mail.parsed.subject).toBe("Reset your password for localhost:3000")
        const link = new URL(smtp.linkFor(email))
        expect(link.pathname).toBe("/auth/password/reset")

        const form = await (await someone.request(link.href)).text()
        expect(form).toContain('name="token"')
        const done = await postStep(someone, "reset", { token: link.searchParams.get("token")!, email, password: NEW })
        expect(done.path).toBe("/auth/password/done")

        expect(await laptop.session()).toBeNull()
        expect(await phone.session()).toBeNull()
        expect((await passwordSignIn(browser("198.51.100.10"), { email, password: OLD })).error).toBe("CredentialsSignin")
        expect((await passwordSignIn(browser("198.51.100.11"), { email, password: NEW })).error).toBeNull()

        // Replay: the link worked once.
        const replay = await postStep(someone, "reset", { token: link.searchParams.get("token")!, email, password: "yet another passphrase again" })
        expect(replay.error).toBe("Verification")
        expect((await passwordSignIn(browser("198.51.100.12"), { email, password: NEW })).error).toBeNull()
      } finally {
        await db.close()
      }
    })

    it("reports the sessions a reset ended with the ids session management listed them under", async () => {
      const db = await open()
      try {
        const email = unique("revoked")
        const user = await seedUser(db.adapter, { email, password: OLD })
        const revoked: { userId: string; sessionIds: string[]; scope: string; strategy: string }[] = []
        const { browser, config } = app(db.adapter, strategy, {}, { events: { sessionRevoked: (message) => void revoked.push(message) } })
        const laptop = browser()
        const phone = browser("198.51.100.8")
        await passwordSignIn(laptop, { email, password: OLD })
        await passwordSignIn(phone, { email, password: OLD })
        const request = { origin: "http://localhost:3000", headers: new Headers({ cookie: laptop.cookieHeader() }), csrfToken: await laptop.csrfToken() }
        const listed = (await listSessions(request, config)).map((s) => s.id).sort()
        expect(listed).toHaveLength(2)

        await postStep(browser("198.51.100.9"), "forgot", { email })
        const token = new URL(smtp.linkFor(email)).searchParams.get("token")!
        expect((await postStep(browser("198.51.100.9"), "reset", { token, email, password: NEW })).path).toBe("/auth/password/done")
        expect(revoked).toEqual([{ userId: user.id, sessionIds: expect.any(Array), scope: "everywhere", strategy }])
        expect([...revoked[0]!.sessionIds].sort()).toEqual(listed)
      } finally {
        await db.close()
      }
    })

    it("changes the password of the signed-in user with the current one, ending the other sessions only", async () => {
      const db = await open()
      try {
        const email = unique("change")
        await seedUser(db.adapter, { email, password: OLD })
        const { browser } = app(db.adapter, strategy)
        const here = browser()
        const elsewhere = browser("198.51.100.20")
        await passwordSignIn(here, { email, password: OLD })
        await passwordSignIn(elsewhere, { email, password: OLD })

        const wrong = await postStep(here, "change", { currentPassword: "not the current one", password: NEW })
        expect(wrong.error).toBe("PasswordMismatch")
        expect((await elsewhere.session())?.user?.email).toBe(email)

        const changed = await postStep(here, "change", { currentPassword: OLD, password: NEW })
        expect(changed.error).toBeNull()
        expect((await here.session())?.user?.email).toBe(email)
        expect(await elsewhere.session()).toBeNull()
        expect((await passwordSignIn(browser("198.51.100.21"), { email, password: NEW })).error).toBeNull()
        expect((await passwordSignIn(browser("198.51.100.22"), { email, password: OLD })).error).toBe("CredentialsSignin")
      } finally {
        await db.close()
      }
    })
  })
}

resetSuite("the memory adapter", memory)
resetSuite("SQLite", () => openTestDatabase("sqlite"))
postgres.describe("reset on PostgreSQL (gate)", () => resetSuite("PostgreSQL", () => openTestDatabase("postgres", { url: service.url })))

describe("attacks on forgot and reset", () => {
  it("answers forgot-password for a known and an unknown address identically, and mails only the known one", async () => {
    const adapter = MemoryAdapter()
    const known = unique("known")
    const unknown = unique("unknown")
    await seedUser(adapter, { email: known, password: OLD })
    const { browser } = app(adapter)
    const a = await postStep(browser(), "forgot", { email: known })
    const b = await postStep(browser(), "forgot", { email: unknown })
    expect(a.status).toBe(b.status)
    expect(a.location).toBe(b.location)
    expect([...a.response.headers.keys()].sort()).toEqual([...b.response.headers.keys()].sort())
    expect(await a.response.text()).toBe(await b.response.text())
    expect(mailsTo(known)).toHaveLength(1)
    expect(mailsTo(unknown)).toHaveLength(0)
  })

  it("refuses a reset link used with another user's address", async () => {
    const adapter = MemoryAdapter()
    const attacker = unique("attacker")
    const victim = unique("victim")
    await seedUser(adapter, { email: attacker, password: OLD })
    await seedUser(adapter, { email: victim, password: OLD })
    const { browser } = app(adapter)
    await postStep(browser(), "forgot", { email: attacker })
    const token = new URL(smtp.linkFor(attacker)).searchParams.get("token")!
    const result = await postStep(browser(), "reset", { token, email: victim, password: NEW })
    expect(result.error).toBe("Verification")
    expect((await passwordSignIn(browser(), { email: victim, password: OLD })).error).toBeNull()
  })

  it("refuses a forged token and a link whose token has expired", async () => {
    const base = MemoryAdapter()
    // The store hands back every new token already expired: the link's lifetime is over without waiting.
    const adapter: Adapter = { ...base, createVerificationToken: (vt) => base.createVerificationToken!({ ...vt, expires: new Date(Date.now() - 1000) }) }
    const email = unique("expired")
    await seedUser(adapter, { email, password: OLD })
    const { browser } = app(adapter)
    await postStep(browser(), "forgot", { email })
    const token = new URL(smtp.linkFor(email)).searchParams.get("token")!
    expect((await postStep(browser(), "reset", { token, email, password: NEW })).error).toBe("Verification")
    expect((await postStep(browser(), "reset", { token: "f".repeat(64), email, password: NEW })).error).toBe("Verification")
    expect((await passwordSignIn(browser(), { email, password: OLD })).error).toBeNull()
  })

  it("keeps the link usable when the new password is refused by the policy", async () => {
    const adapter = MemoryAdapter()
    const email = unique("policy")
    await seedUser(adapter, { email, password: OLD })
    const { browser } = app(adapter)
    await postStep(browser(), "forgot", { email })
    const token = new URL(smtp.linkFor(email)).searchParams.get("token")!
    const weak = await postStep(browser(), "reset", { token, email, password: "password1" })
    expect(weak.path).toBe("/auth/password/reset")
    expect(weak.error).toBe("PasswordTooWeak")
    const long = await postStep(browser(), "reset", { token, email, password: "x".repeat(5000) })
    expect(long.error).toBe("PasswordTooLong")
    expect((await postStep(browser(), "reset", { token, email, password: NEW })).path).toBe("/auth/password/done")
  })

  it("replaces an unverified user on reset (T67): the owner gets a fresh verified user, the pre-registrant's account link is gone", async () => {
    const adapter = MemoryAdapter()
    const email = unique("unverified")
    // Someone signed up with this address first and linked an OAuth account to that user.
    const squatter = await seedUser(adapter, { email, password: OLD, verified: false })
    await adapter.linkAccount!({ userId: squatter.id, type: "oauth", provider: "github", providerAccountId: "squatter-gh" })
    const { browser } = app(adapter, "jwt", { emailVerification: "optional" })
    const squatterSession = browser("198.51.100.66")
    expect((await passwordSignIn(squatterSession, { email, password: OLD })).error).toBeNull()

    await postStep(browser(), "forgot", { email })
    const token = new URL(smtp.linkFor(email)).searchParams.get("token")!
    expect((await postStep(browser(), "reset", { token, email, password: NEW })).path).toBe("/auth/password/done")

    const owner = await adapter.getUserByEmail!(email)
    expect(owner?.id).not.toBe(squatter.id)
    expect(owner?.emailVerified).toBeInstanceOf(Date)
    expect(await adapter.getUserByAccount!({ provider: "github", providerAccountId: "squatter-gh" })).toBeNull()
    expect(await squatterSession.session()).toBeNull()
    expect((await passwordSignIn(browser(), { email, password: OLD })).error).toBe("CredentialsSignin")
    expect((await passwordSignIn(browser(), { email, password: NEW })).error).toBeNull()
  })

  it("lets exactly one of 20 concurrent uses of a reset link through", async () => {
    const adapter = MemoryAdapter()
    const email = unique("concurrent")
    await seedUser(adapter, { email, password: OLD })
    const { browser } = app(adapter)
    await postStep(browser(), "forgot", { email })
    const token = new URL(smtp.linkFor(email)).searchParams.get("token")!
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => postStep(browser(`203.0.113.${i + 1}`), "reset", { token, email, password: `${NEW} ${i}` })))
    expect(results.filter((r) => r.path === "/auth/password/done")).toHaveLength(1)
    expect(results.filter((r) => r.error === "Verification")).toHaveLength(19)
  })

  it("refuses a change without a session, and without the CSRF token", async () => {
    const adapter = MemoryAdapter()
    const email = unique("nosession")
    await seedUser(adapter, { email, password: OLD })
    const { browser } = app(adapter)
    const anonymous = await postStep(browser(), "change", { currentPassword: OLD, password: NEW })
    expect(anonymous.status).toBe(302)
    expect(anonymous.path).toBe("/auth/signin")
    expect(anonymous.error).toBe("SessionRequired")
    const b = browser()
    await passwordSignIn(b, { email, password: OLD })
    const noCsrf = await b.request("/auth/password/change", { form: { currentPassword: OLD, password: NEW } })
    expect(new URL(noCsrf.headers.get("location")!).searchParams.get("error")).toBe("MissingCSRF")
    expect((await passwordSignIn(browser(), { email, password: OLD })).error).toBeNull()
  })

  it("never logs a password, a token or a link", async () => {
    const adapter = MemoryAdapter()
    const email = unique("logs")
    await seedUser(adapter, { email, password: OLD })
    const { lines, logger } = captureLogger()
    const mailer = Nodemailer({ server: smtp.url, from: "Portcullis Tests <auth@example.com>" })
    const { browser } = passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { logger, debug: true } })
    await postStep(browser(), "forgot", { email })
    const link = smtp.linkFor(email)
    const token = new URL(link).searchParams.get("token")!
    await postStep(browser(), "reset", { token, email, password: "weak" })
    await postStep(browser(), "reset", { token, email, password: NEW })
    await postStep(browser(), "signup", { email: unique("new"), password: STRONG })
    const log = lines.join("\n")
    expect(lines.length).toBeGreaterThan(0)
    for (const secret of [OLD, NEW, STRONG, token, link]) expect(log).not.toContain(secret)
  })
})

describe("a store that fails while a reset ends the sessions", () => {
  it("is an outage (ServiceUnavailable): the reset does not report done, the session stays and the password is the old one", async () => {
    const adapter = MemoryAdapter()
    const deleteSession = adapter.deleteSession!
    let down = false
    adapter.deleteSession = (token) => (down ? Promise.reject(new Error("connection refused")) : deleteSession(token))
    const email = unique("outage")
    await seedUser(adapter, { email, password: OLD })
    const { browser } = app(adapter, "database", {}, { logger: { error: () => {}, warn: () => {}, debug: () => {} } })
    const laptop = browser()
    expect((await passwordSignIn(laptop, { email, password: OLD })).error).toBeNull()

    await postStep(browser("198.51.100.9"), "forgot", { email })
    const token = new URL(smtp.linkFor(email)).searchParams.get("token")!
    down = true
    const failed = await postStep(browser("198.51.100.9"), "reset", { token, email, password: NEW })
    down = false
    expect(failed.path).not.toBe("/auth/password/done")
    expect(failed.error).toBe("ServiceUnavailable")
    // Nothing was half done: the session is still there and the old password still works.
    expect((await laptop.session())?.user?.email).toBe(email)
    expect((await passwordSignIn(browser("198.51.100.10"), { email, password: NEW })).error).not.toBeNull()
    expect((await passwordSignIn(browser("198.51.100.11"), { email, password: OLD })).error).toBeNull()
  })
})

describe("configuration of the password provider's mail", () => {
  it("answers forgot-password with a configuration error when there is neither a mailer nor an email provider", async () => {
    const { lines, logger } = captureLogger()
    const config = { secret: SECRET, trustHost: false, trustedOrigins: ["http://localhost:3000"], adapter: MemoryAdapter(), providers: [Password()], logger }
    const csrf = await Auth(new Request("http://localhost:3000/auth/csrf"), config)
    const { csrfToken } = (await csrf.json()) as { csrfToken: string }
    const cookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ")
    const response = await Auth(new Request("http://localhost:3000/auth/password/forgot", { method: "POST", headers: { cookie, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ email: "a@example.com", csrfToken }) }), config)
    expect(response.status).toBe(302)
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("Configuration")
    expect(lines.join("\n")).toMatch(/InvalidConfig.*needs a mailer/)
  })

  it.each([
    [{ resetMaxAge: -1 }, /resetMaxAge/],
    [{ policy: { minLength: 0 } }, /policy.minLength/],
    [{ policy: { minScore: 7 as 4 } }, /policy.minScore/],
    [{ mailer: { type: "oauth" } as never }, /mailer/],
  ])("refuses bad options at the first request: %j", async (options, message) => {
    const { lines, logger } = captureLogger()
    const response = await Auth(new Request("http://localhost:3000/auth/session"), { secret: SECRET, trustHost: true, adapter: MemoryAdapter(), providers: [Password(options)], logger })
    expect(response.status).toBe(500)
    expect(lines.join("\n")).toMatch(message)
  })
})

describe("mail flooding", () => {
  it("limits the mails one address can be sent: the sixth sign-up or reset request within the hour is RateLimited, known or unknown", async () => {
    const adapter = MemoryAdapter()
    const known = unique("flooded")
    const unknown = unique("nobody")
    await seedUser(adapter, { email: known, password: OLD })
    const mailer = Nodemailer({ server: smtp.url, from: "Portcullis Tests <auth@example.com>" })
    const { browser } = passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { rateLimit: {} } })
    const outcomes = async (email: string) => {
      const results = []
      // From many client addresses, as a botnet would: the per-address limit does not save the victim.
      for (let i = 0; i < 6; i++) results.push(await postStep(browser(`203.0.113.${i + 1}`), i % 2 ? "signup" : "forgot", { email, password: STRONG }))
      return results
    }
    const forKnown = await outcomes(known)
    const forUnknown = await outcomes(unknown)
    expect(forKnown.slice(0, 5).every((r) => r.path === "/auth/password/sent")).toBe(true)
    expect(forKnown[5]!.error).toBe("RateLimited")
    expect(forUnknown.map((r) => [r.status, r.path, r.error])).toEqual(forKnown.map((r) => [r.status, r.path, r.error]))
    expect(mailsTo(known).length).toBeLessThanOrEqual(5)
  })
})

describe("guessing the current password on a change", () => {
  it("counts toward the sign-in lockout of the address: after five wrong guesses the right one is refused too", async () => {
    const adapter = MemoryAdapter()
    const email = unique("guess")
    await seedUser(adapter, { email, password: OLD })
    const mailer = Nodemailer({ server: smtp.url, from: "Portcullis Tests <auth@example.com>" })
    const { browser } = passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { rateLimit: {} } })
    const thief = browser()
    expect((await passwordSignIn(thief, { email, password: OLD })).error).toBeNull()
    for (let i = 0; i < 5; i++) expect((await postStep(thief, "change", { currentPassword: `guess ${i}`, password: NEW })).error).toBe("PasswordMismatch")
    expect((await postStep(thief, "change", { currentPassword: OLD, password: NEW })).error).toBe("RateLimited")
    expect((await passwordSignIn(browser("198.51.100.99"), { email, password: OLD })).error).toBe("RateLimited")
  })
})
