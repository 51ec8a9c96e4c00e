/**
 * The password provider's sign-in (issue 20, part 2, step 1): `POST /callback/password`
 * with email and password, on the memory adapter, SQLite and PostgreSQL, with JWT and
 * database sessions. Every refusal looks the same; hashes made with weaker parameters are
 * upgraded on the way; the identifier is locked out after repeated failures.
 */
import { describe, expect, it } from "vitest"
import { Auth } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { needsRehash, verifyPassword } from "@portcullis/core/password"
import Password from "@portcullis/core/providers/password"
import { postgresGate } from "../postgres-gate.js"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { openTestDatabase } from "@portcullis/sql-adapter/testing"
import { captureLogger, SECRET } from "../helpers.js"
import { grace, LIGHT, passwordApp, passwordSignIn, seedUser } from "./support.js"

const { service, postgres } = await postgresGate()

type Open = () => Promise<{ adapter: Adapter; close(): Promise<void> }>

const memory: Open = async () => ({ adapter: MemoryAdapter(), close: async () => {} })

/** Response parts an observer can compare; the session cookie differs by design only on success. */
function shape(result: Awaited<ReturnType<typeof passwordSignIn>>) {
  return {
    status: result.status,
    location: result.location,
    headers: [...result.response.headers.keys()].sort(),
    cookies: result.response.headers.getSetCookie().map((c) => c.split("=")[0]).sort(),
  }
}

function signInSuite(label: string, open: Open) {
  describe.each(["jwt", "database"] as const)(`password sign-in on ${label} with %s sessions`, (strategy) => {
    // JWT sessions need a registry beside a password provider (a reset ends the user's sessions).
    const session = strategy === "jwt" ? { strategy, registry: new MemorySessionRegistry() } : { strategy }
    const app = (adapter: Adapter, provider = {}) => passwordApp(adapter, { provider, extra: { session } })

    it("signs in with the right password and the session names the user", async () => {
      const db = await open()
      try {
        const user = await seedUser(db.adapter, grace)
        const b = app(db.adapter).browser()
        const result = await passwordSignIn(b, grace)
        expect(result.status).toBe(302)
        expect(result.error).toBeNull()
        expect(result.location).toBe("http://localhost:3000")
        const session = await b.session()
        expect(session.user.email).toBe(grace.email)
        if (strategy === "database") expect(session.user).toBeDefined()
        expect(user.email).toBe(grace.email)
      } finally {
        await db.close()
      }
    })

    it("answers a wrong password and an unknown address identically: CredentialsSignin, no session", async () => {
      const db = await open()
      try {
        await seedUser(db.adapter, grace)
        const { browser } = app(db.adapter)
        const wrong = await passwordSignIn(browser(), { email: grace.email, password: "not the password at all" })
        const unknown = await passwordSignIn(browser(), { email: "nobody@example.com", password: "not the password at all" })
        expect(wrong.error).toBe("CredentialsSignin")
        expect(shape(unknown)).toEqual(shape(wrong))
        const wrongJson = await passwordSignIn(browser(), { email: grace.email, password: "still wrong" }, { json: true })
        const unknownJson = await passwordSignIn(browser(), { email: "nobody@example.com", password: "still wrong" }, { json: true })
        expect(await unknownJson.response.text()).toBe(await wrongJson.response.text())
        expect(unknownJson.status).toBe(wrongJson.status)
      } finally {
        await db.close()
      }
    })

    it("tells the owner of an unverified address (right password) to confirm it: CredentialsSignin with code unverified, no session", async () => {
      const db = await open()
      try {
        await seedUser(db.adapter, { ...grace, verified: false })
        const { browser } = app(db.adapter)
        const b = browser()
        const unverified = await passwordSignIn(b, grace)
        expect(unverified.error).toBe("CredentialsSignin")
        expect(new URL(unverified.location!).searchParams.get("code")).toBe("unverified")
        expect((await b.session())?.user).toBeUndefined()
      } finally {
        await db.close()
      }
    })

    it("answers a wrong password on an unverified address like one on an unknown address (existence stays hidden)", async () => {
      const db = await open()
      try {
        await seedUser(db.adapter, { ...grace, verified: false })
        const { browser } = app(db.adapter)
        const wrong = await passwordSignIn(browser(), { email: grace.email, password: "not the password at all" })
        const unknown = await passwordSignIn(browser(), { email: "nobody@example.com", password: "not the password at all" })
        expect(new URL(wrong.location!).searchParams.get("code")).toBe("credentials")
        expect(shape(wrong)).toEqual(shape(unknown))
      } finally {
        await db.close()
      }
    })

    it("lets an unverified address sign in with emailVerification: optional", async () => {
      const db = await open()
      try {
        await seedUser(db.adapter, { ...grace, verified: false })
        const b = app(db.adapter, { emailVerification: "optional" }).browser()
        expect((await passwordSignIn(b, grace)).error).toBeNull()
        expect((await b.session()).user.email).toBe(grace.email)
      } finally {
        await db.close()
      }
    })

    it("replaces a hash made with weaker parameters by an OWASP-strength one at sign-in", async () => {
      const db = await open()
      try {
        const user = await seedUser(db.adapter, grace)
        const before = (await db.adapter.getUserPassword!(user.id))!
        expect(needsRehash(before)).toBe(true)
        await passwordSignIn(app(db.adapter).browser(), grace)
        const after = (await db.adapter.getUserPassword!(user.id))!
        expect(after).not.toBe(before)
        expect(needsRehash(after)).toBe(false)
        expect(await verifyPassword(grace.password, after)).toBe(true)
      } finally {
        await db.close()
      }
    })
  })
}

signInSuite("the memory adapter", memory)
signInSuite("SQLite", () => openTestDatabase("sqlite"))
postgres.describe("password sign-in on PostgreSQL (gate)", () => signInSuite("PostgreSQL", () => openTestDatabase("postgres", { url: service.url })))

describe("attacks on password sign-in", () => {
  it("locks the identifier after five wrong passwords, and then refuses the right one too", async () => {
    const adapter = MemoryAdapter()
    await seedUser(adapter, grace)
    const b = passwordApp(adapter, { extra: { rateLimit: {} } }).browser()
    for (let i = 0; i < 5; i++) expect((await passwordSignIn(b, { email: grace.email, password: `wrong ${i}` })).error).toBe("CredentialsSignin")
    const right = await passwordSignIn(b, grace)
    expect(right.error).toBe("RateLimited")
    expect(b.sessionCookie()).toBeUndefined()
  })

  it("locks an unknown address the same way, so the lockout says nothing about who has an account", async () => {
    const adapter = MemoryAdapter()
    const b = passwordApp(adapter, { extra: { rateLimit: {} } }).browser()
    for (let i = 0; i < 5; i++) await passwordSignIn(b, { email: "nobody@example.com", password: `wrong ${i}` })
    expect((await passwordSignIn(b, { email: "nobody@example.com", password: "x" })).error).toBe("RateLimited")
  })

  it("refuses a password longer than 1024 bytes with CredentialsSignin, not a crash", async () => {
    const adapter = MemoryAdapter()
    await seedUser(adapter, grace)
    const result = await passwordSignIn(passwordApp(adapter).browser(), { email: grace.email, password: "p".repeat(100_000) })
    expect(result.status).toBe(302)
    expect(result.error).toBe("CredentialsSignin")
  })

  it("refuses a missing or malformed address and a missing password with CredentialsSignin", async () => {
    const adapter = MemoryAdapter()
    await seedUser(adapter, grace)
    const { browser } = passwordApp(adapter)
    for (const fields of [{ password: grace.password }, { email: "not an address", password: grace.password }, { email: grace.email }, { email: "a@b.c\r\nBcc: x@y.z", password: "x" }]) {
      const result = await passwordSignIn(browser(), fields as Record<string, string>)
      expect(result.status).toBe(302)
      expect(result.error).toBe("CredentialsSignin")
    }
  })

  it("refuses a post without the CSRF token", async () => {
    const adapter = MemoryAdapter()
    await seedUser(adapter, grace)
    const b = passwordApp(adapter).browser()
    const response = await b.request("/auth/callback/password", { form: { ...grace } })
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("MissingCSRF")
    expect(b.sessionCookie()).toBeUndefined()
  })

  it("never logs the password or its hash", async () => {
    const adapter = MemoryAdapter()
    const user = await seedUser(adapter, grace)
    const hash = (await adapter.getUserPassword!(user.id))!
    const { lines, logger } = captureLogger()
    const b = passwordApp(adapter, { extra: { logger, debug: true } }).browser()
    await passwordSignIn(b, { email: grace.email, password: "a wrong guess of some length" })
    await passwordSignIn(b, grace)
    const log = lines.join("\n")
    expect(lines.length).toBeGreaterThan(0)
    for (const secret of [grace.password, "a wrong guess of some length", hash, hash.split("$").at(-1)!]) expect(log).not.toContain(secret)
  })

  it("signs in 20 concurrent requests with the right password, each with its own session", async () => {
    const adapter = MemoryAdapter()
    await seedUser(adapter, grace, )
    const { browser } = passwordApp(adapter, { provider: { hashing: LIGHT } })
    const results = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
      const b = browser(`198.51.100.${i + 1}`)
      const result = await passwordSignIn(b, grace)
      return { error: result.error, cookie: b.sessionCookie() }
    }))
    expect(results.every((r) => r.error === null)).toBe(true)
    expect(new Set(results.map((r) => r.cookie)).size).toBe(20)
  })
})

describe("configuration checks", () => {
  it("names the missing password capability: MissingAdapterMethods getUserPassword, setUserPassword", async () => {
    const { lines, logger } = captureLogger()
    const { getUserPassword: _g, setUserPassword: _s, ...partial } = MemoryAdapter()
    const response = await Auth(new Request("http://localhost:3000/auth/session"), { secret: SECRET, trustHost: true, adapter: partial, providers: [Password()], logger })
    expect(response.status).toBe(500)
    expect(lines.join("\n")).toMatch(/MissingAdapterMethods.*getUserPassword, setUserPassword/)
  })

  it("refuses a password provider without an adapter: MissingAdapter", async () => {
    const { lines, logger } = captureLogger()
    const response = await Auth(new Request("http://localhost:3000/auth/session"), { secret: SECRET, trustHost: true, providers: [Password()], logger })
    expect(response.status).toBe(500)
    expect(lines.join("\n")).toMatch(/MissingAdapter/)
  })

  it("refuses an emailVerification that is neither required nor optional: InvalidConfig", async () => {
    const { lines, logger } = captureLogger()
    const provider = Password({ emailVerification: "sometimes" as "required" })
    const response = await Auth(new Request("http://localhost:3000/auth/session"), { secret: SECRET, trustHost: true, adapter: MemoryAdapter(), providers: [provider], logger })
    expect(response.status).toBe(500)
    expect(lines.join("\n")).toMatch(/InvalidConfig.*emailVerification/)
  })

  it("shows an email and password form on the built-in sign-in page", async () => {
    const b = passwordApp(MemoryAdapter()).browser()
    const page = await (await b.request("/auth/signin")).text()
    expect(page).toContain('action="http://localhost:3000/auth/callback/password"')
    expect(page).toMatch(/type="password"[^>]*autocomplete="current-password"|autocomplete="current-password"[^>]*type="password"/)
    expect(page).toContain('href="/auth/password/signup"')
    expect(page).toContain('href="/auth/password/forgot"')
    const german = await (await b.request("/auth/signin", { headers: { "accept-language": "de" } })).text()
    expect(german).toContain("Passwort")
    expect(german).toContain("Konto erstellen")
    const japanese = await (await b.request("/auth/signin", { headers: { "accept-language": "ja" } })).text()
    expect(japanese).toContain("パスワードをお忘れですか？")
  })
})
