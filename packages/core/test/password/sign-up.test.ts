/**
 * Sign-up with the password provider (issue 20, part 2, step 2): a policy on the new
 * password, an unverified user and a verification link by real SMTP, sign-in refused until
 * the link is opened (emailVerification: "required"), and no difference in the answer for
 * an address that already has an account — only the email differs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import type { PasswordUserConfig } from "@portcullis/core/providers/password"
import { postgresGate } from "../postgres-gate.js"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { openTestDatabase } from "@portcullis/sql-adapter/testing"
import { startSmtp, type TestSmtp } from "../email/support.js"
import { confirmVerification, LIGHT, passwordApp, passwordSignIn, postStep, seedUser, STRONG } from "./support.js"

const { service, postgres } = await postgresGate()

let smtp: TestSmtp
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(() => smtp.close())

type Open = () => Promise<{ adapter: Adapter; close(): Promise<void> }>
const memory: Open = async () => ({ adapter: MemoryAdapter(), close: async () => {} })

function app(adapter: Adapter, provider: PasswordUserConfig = {}, strategy: "jwt" | "database" = "jwt") {
  const mailer = Nodemailer({ server: smtp.url, from: "Portcullis Tests <auth@example.com>" })
  // JWT sessions need a registry beside a password provider (a reset ends the user's sessions).
  const session = strategy === "jwt" ? { strategy, registry: new MemorySessionRegistry() } : { strategy }
  return passwordApp(adapter, { provider: { mailer, hashing: LIGHT, ...provider }, extra: { session } })
}

const unique = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}@example.com`

function mailTo(address: string) {
  const mail = smtp.messages.findLast((m) => m.to.includes(address))
  if (!mail) throw new Error(`no mail to ${address}`)
  return mail
}

function signUpSuite(label: string, open: Open) {
  describe.each(["jwt", "database"] as const)(`sign-up on ${label} with %s sessions`, (strategy) => {
    it("creates an unverified user, mails a verification link, refuses sign-in until it is confirmed with its password, then signs in", async () => {
      const db = await open()
      try {
        const email = unique("ada")
        const { browser } = app(db.adapter, {}, strategy)
        const b = browser()
        const result = await postStep(b, "signup", { email, password: STRONG })
        expect(result.status).toBe(302)
        expect(result.path).toBe("/auth/password/sent")
        const user = await db.adapter.getUserByEmail!(email)
        expect(user?.emailVerified).toBeNull()
        expect(await db.adapter.getUserPassword!(user!.id)).toMatch(/^\$argon2id\$/)
        const mail = mailTo(email)
        expect(mail.parsed.subject).toBe("Confirm your email address for localhost:3000")

        expect((await passwordSignIn(b, { email, password: STRONG })).error).toBe("CredentialsSignin")

        const link = smtp.linkFor(email)
        expect(new URL(link).pathname).toBe("/auth/password/verify")
        const opened = await confirmVerification(b, link, STRONG)
        expect(opened.path).toBe("/auth/password/verified")
        // Confirmed with the password chosen at sign-up: the same user, with its password.
        expect(opened.search?.get("password")).toBeNull()
        expect(await (await b.request(opened.location!)).text()).toContain("You can sign in now.")
        expect(await db.adapter.getUserByEmail!(email)).toMatchObject({ id: user!.id, emailVerified: expect.any(Date) })

        expect((await passwordSignIn(b, { email, password: STRONG })).error).toBeNull()
        expect((await b.session()).user.email).toBe(email)

        // The link is single-use.
        const again = await confirmVerification(b, link, STRONG)
        expect(again.error).toBe("Verification")
      } finally {
        await db.close()
      }
    })

    it("answers a sign-up for an existing address exactly as for a new one, and mails 'you already have an account' instead", async () => {
      const db = await open()
      try {
        const known = unique("known")
        await seedUser(db.adapter, { email: known, password: "the owner's own passphrase here" })
        const before = (await db.adapter.getUserPassword!((await db.adapter.getUserByEmail!(known))!.id))!
        const fresh = unique("fresh")
        const { browser } = app(db.adapter, {}, strategy)
        const a = await postStep(browser(), "signup", { email: known, password: STRONG })
        const b = await postStep(browser(), "signup", { email: fresh, password: STRONG })
        expect(a.status).toBe(b.status)
        expect(a.location).toBe(b.location)
        expect([...a.response.headers.keys()].sort()).toEqual([...b.response.headers.keys()].sort())
        expect(a.response.headers.getSetCookie().map((c) => c.split("=")[0]).sort()).toEqual(b.response.headers.getSetCookie().map((c) => c.split("=")[0]).sort())
        expect(await a.response.text()).toBe(await b.response.text())
        // The owner's password is untouched; the mail tells them, with a reset link.
        expect(await db.adapter.getUserPassword!((await db.adapter.getUserByEmail!(known))!.id)).toBe(before)
        expect(mailTo(known).parsed.subject).toBe("You already have an account at localhost:3000")
        expect(new URL(smtp.linkFor(known)).pathname).toBe("/auth/password/reset")
        expect(mailTo(fresh).parsed.subject).toBe("Confirm your email address for localhost:3000")
      } finally {
        await db.close()
      }
    })

    it("makes one user of 50 concurrent sign-ups of one address", async () => {
      const db = await open()
      try {
        const email = unique("race")
        const { browser } = app(db.adapter, { policy: { minScore: 0 } }, strategy)
        const results = await Promise.all(Array.from({ length: 50 }, (_, i) => postStep(browser(`203.0.113.${i + 1}`), "signup", { email, password: `${STRONG} ${i}` })))
        expect(results.every((r) => r.path === "/auth/password/sent")).toBe(true)
        const user = await db.adapter.getUserByEmail!(email)
        expect(user).not.toBeNull()
        const verifications = smtp.messages.filter((m) => m.to.includes(email) && m.parsed.subject?.startsWith("Confirm"))
        expect(verifications).toHaveLength(1)
      } finally {
        await db.close()
      }
    })
  })
}

signUpSuite("the memory adapter", memory)
signUpSuite("SQLite", () => openTestDatabase("sqlite"))
postgres.describe("sign-up on PostgreSQL (gate)", () => signUpSuite("PostgreSQL", () => openTestDatabase("postgres", { url: service.url })))

describe("the sign-up policy", () => {
  const cases: [string, string, string][] = [
    ["shorter than 8 characters", "Ab1!xyz", "PasswordTooShort"],
    ["longer than 1024 bytes", "correct horse ".repeat(80), "PasswordTooLong"],
    ["a common password", "password123", "PasswordTooWeak"],
    ["the address itself", "ada.lovelace@example.com", "PasswordTooWeak"],
  ]
  it.each(cases)("refuses a password %s, stores nothing and sends nothing", async (_, password, code) => {
    const adapter = MemoryAdapter()
    const sent = smtp.messages.length
    const result = await postStep(app(adapter).browser(), "signup", { email: "ada.lovelace@example.com", password })
    expect(result.path).toBe("/auth/password/signup")
    expect(result.error).toBe(code)
    expect(await adapter.getUserByEmail!("ada.lovelace@example.com")).toBeNull()
    expect(smtp.messages.length).toBe(sent)
  })

  it("counts characters, not bytes, for the minimum: eight CJK characters pass the length check", async () => {
    const adapter = MemoryAdapter()
    const result = await postStep(app(adapter, { policy: { minScore: 0 } }).browser(), "signup", { email: unique("cjk"), password: "雪山飛狐笑傲江湖" })
    expect(result.path).toBe("/auth/password/sent")
  })

  it("takes a configurable minimum score: minScore 0 accepts a weak password of the right length", async () => {
    const adapter = MemoryAdapter()
    const email = unique("weak")
    const result = await postStep(app(adapter, { policy: { minScore: 0 } }).browser(), "signup", { email, password: "password123" })
    expect(result.path).toBe("/auth/password/sent")
    expect(await adapter.getUserByEmail!(email)).not.toBeNull()
  })

  it("refuses a malformed address with InvalidEmail, the same for any address", async () => {
    const result = await postStep(app(MemoryAdapter()).browser(), "signup", { email: "not-an-address", password: STRONG })
    expect(result.error).toBe("InvalidEmail")
  })

  it("shows the sign-up page with the policy hint, in the request's language", async () => {
    const b = app(MemoryAdapter()).browser()
    const english = await (await b.request("/auth/password/signup")).text()
    expect(english).toContain("At least 8 characters")
    expect(english).toContain('autocomplete="new-password"')
    const german = await (await b.request("/auth/password/signup?error=PasswordTooShort", { headers: { "accept-language": "de" } })).text()
    expect(german).toContain("Das Passwort muss mindestens 8 Zeichen lang sein.")
  })

  it("lets an unverified user sign in with emailVerification: optional", async () => {
    const adapter = MemoryAdapter()
    const email = unique("optional")
    const { browser } = app(adapter, { emailVerification: "optional" })
    const b = browser()
    await postStep(b, "signup", { email, password: STRONG })
    expect((await passwordSignIn(b, { email, password: STRONG })).error).toBeNull()
  })
})

describe("attacks on sign-up", () => {
  it("refuses a sign-up without the CSRF token, creating nothing", async () => {
    const adapter = MemoryAdapter()
    const b = app(adapter).browser()
    const response = await b.request("/auth/password/signup", { form: { email: "csrf@example.com", password: STRONG } })
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("MissingCSRF")
    expect(await adapter.getUserByEmail!("csrf@example.com")).toBeNull()
  })

  it("does not accept a verification link for another address, nor a forged token", async () => {
    const adapter = MemoryAdapter()
    const { browser } = app(adapter)
    const email = unique("victim")
    await postStep(browser(), "signup", { email, password: STRONG })
    const link = new URL(smtp.linkFor(email))
    const other = new URL(link)
    other.searchParams.set("email", unique("attacker"))
    const forged = new URL(link)
    forged.searchParams.set("token", "0".repeat(64))
    for (const url of [other, forged]) {
      const response = await confirmVerification(browser(), url.href)
      expect(response.error).toBe("Verification")
    }
    expect((await adapter.getUserByEmail!(email))?.emailVerified).toBeNull()
  })

  it("refuses sign-up and sign-in links of the other kind: a verification token is no reset token", async () => {
    const adapter = MemoryAdapter()
    const { browser } = app(adapter)
    const email = unique("crossed")
    await postStep(browser(), "signup", { email, password: STRONG })
    const link = new URL(smtp.linkFor(email))
    const b = browser()
    const result = await postStep(b, "reset", { token: link.searchParams.get("token")!, email, password: "another strong passphrase entirely" })
    expect(result.error).toBe("Verification")
  })
})

describe("the server API for apps with their own UI", () => {
  it("takes a JSON sign-up from a fetch client and answers with the URL to go to, the same for any address", async () => {
    const adapter = MemoryAdapter()
    const known = unique("json-known")
    await seedUser(adapter, { email: known, password: "the owner's own passphrase" })
    const { browser } = app(adapter)
    const post = async (email: string, password = STRONG) => {
      const b = browser()
      const csrfToken = await b.csrfToken()
      const response = await b.request("/auth/password/signup", { json: { email, password, csrfToken }, headers: { "x-auth-return-redirect": "1" } })
      return { status: response.status, body: (await response.json()) as { url: string } }
    }
    const fresh = await post(unique("json-new"))
    const existing = await post(known)
    expect(fresh.status).toBe(200)
    expect(new URL(fresh.body.url).pathname).toBe("/auth/password/sent")
    expect(existing).toEqual(fresh)
    // A refused password names its reason in the URL the client is sent to.
    const weak = await post(unique("json-weak"), "password123")
    expect(new URL(weak.body.url).pathname).toBe("/auth/password/signup")
    expect(new URL(weak.body.url).searchParams.get("error")).toBe("PasswordTooWeak")
  })
})
