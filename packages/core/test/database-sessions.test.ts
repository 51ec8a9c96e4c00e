import { createHash } from "node:crypto"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import { Auth, type AuthConfig } from "@portcullis/core"
import { postgresGate } from "./postgres-gate.js"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, captureLogger, credentialsConfig, direct } from "./helpers.js"

/**
 * Database sessions through `Auth()` on real databases (spec §2.7, §2.13, §3; checklist
 * T39–T42): the cookie holds only the token, a check is one read, extension is throttled
 * by updateAge, expiry and sign-out delete the row.
 */
const DAY = 24 * 60 * 60

/** Counts adapter calls by method, and can make one method fail. */
function instrument(adapter: Adapter) {
  const calls: Record<string, number> = {}
  const failing = new Set<string>()
  const wrapped: Adapter = {}
  for (const [name, fn] of Object.entries(adapter)) {
    ;(wrapped as any)[name] = async (...args: unknown[]) => {
      calls[name] = (calls[name] ?? 0) + 1
      if (failing.has(name)) throw new Error(`${name}: connection refused (simulated outage)`)
      return (fn as Function).apply(adapter, args)
    }
  }
  return { adapter: wrapped, calls, failing }
}

const { service, postgres } = await postgresGate()

function databaseSessionSuite(label: string, open: () => Promise<TestDatabase>) {
  describe(`database sessions on ${label}`, () => {
    let backend: TestDatabase
    let probe: ReturnType<typeof instrument>
    let config: AuthConfig
    const { lines, logger } = captureLogger()
    beforeAll(async () => {
      backend = await open()
      probe = instrument(backend.adapter)
      config = credentialsConfig({ adapter: probe.adapter, logger, session: { updateAge: DAY, maxAge: 30 * DAY } })
    })
    afterAll(() => backend?.close())
    afterEach(() => {
      vi.useRealTimers()
      probe.failing.clear()
    })

    const sessionRow = async (token: string) =>
      backend.db.selectFrom(backend.tables.sessions).selectAll().where("sessionToken", "=", token).executeTakeFirst()

    it("credentials sign-in stores a user and a session row; the cookie holds only the token", async () => {
      const browser = new Browser(direct(config))
      const response = await browser.signIn()
      expect(response.status).toBe(302)
      const token = browser.sessionCookie()!
      expect(token).toMatch(/^[0-9a-f]{64}$/)
      const row = await sessionRow(token)
      expect(row?.userId).toBe("user-ada")
      const user = await backend.adapter.getUser!("user-ada")
      expect(user).toMatchObject({ email: "ada@example.com", name: "Ada Lovelace" })
      const session = await browser.session()
      expect(session.user).toEqual({ name: "Ada Lovelace", email: "ada@example.com", image: "https://example.com/ada.png" })
    })

    it("a session check is one getSessionAndUser call and no write while younger than updateAge", async () => {
      const browser = new Browser(direct(config))
      await browser.signIn()
      const before = { ...probe.calls }
      const response = await browser.request("/auth/session")
      expect(response.headers.getSetCookie()).toEqual([])
      expect((probe.calls.getSessionAndUser ?? 0) - (before.getSessionAndUser ?? 0)).toBe(1)
      expect(probe.calls.updateSession ?? 0).toBe(before.updateSession ?? 0)
    })

    it("extends the row once updateAge has passed, and 50 concurrent checks write once", async () => {
      const browser = new Browser(direct(config))
      await browser.signIn()
      const token = browser.sessionCookie()!
      const originalExpiry = new Date((await sessionRow(token))!.expires).getTime()
      vi.useFakeTimers({ toFake: ["Date"] })
      vi.setSystemTime(Date.now() + DAY * 1000 + 60_000)
      const writesBefore = probe.calls.updateSession ?? 0
      const responses = await Promise.all(Array.from({ length: 50 }, () => browser.request("/auth/session")))
      for (const r of responses) expect(((await r.json()) as any).user.name).toBe("Ada Lovelace")
      expect((probe.calls.updateSession ?? 0) - writesBefore).toBe(1)
      const extended = new Date((await sessionRow(token))!.expires).getTime()
      expect(extended).toBeGreaterThan(originalExpiry + DAY * 1000 - 5_000)
      expect(responses.some((r) => r.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=")))).toBe(true)
    })

    it("an expired session: the row is deleted and the cookie cleared", async () => {
      const browser = new Browser(direct(config))
      await browser.signIn()
      const token = browser.sessionCookie()!
      vi.useFakeTimers({ toFake: ["Date"] })
      vi.setSystemTime(Date.now() + 31 * DAY * 1000)
      expect(await browser.session()).toBeNull()
      expect(browser.sessionCookie()).toBeUndefined()
      vi.useRealTimers()
      expect(await sessionRow(token)).toBeUndefined()
    })

    it("sign-out deletes the row; replaying the old cookie gives null (T41)", async () => {
      const browser = new Browser(direct(config))
      await browser.signIn()
      const token = browser.sessionCookie()!
      await browser.signOut()
      expect(await sessionRow(token)).toBeUndefined()
      const replay = await Auth(new Request("http://localhost:3000/auth/session", { headers: { cookie: `authjs.session-token=${token}` } }), config)
      expect(await replay.json()).toBeNull()
    })

    it("every sign-in gets a fresh token; a planted token is never adopted (T39)", async () => {
      const browser = new Browser(direct(config))
      browser.jar.set("authjs.session-token", { value: "attacker-chosen", attributes: {} })
      await browser.signIn()
      expect(browser.sessionCookie()).not.toBe("attacker-chosen")
      const first = browser.sessionCookie()!
      await browser.signIn()
      expect(browser.sessionCookie()).not.toBe(first)
      expect(await sessionRow(first)).toBeUndefined() // the old row went with the old token
    })

    it("database down during a session check: 503 ServiceUnavailable, logged, cookie kept", async () => {
      const browser = new Browser(direct(config))
      await browser.signIn()
      probe.failing.add("getSessionAndUser")
      lines.length = 0
      const response = await browser.request("/auth/session")
      expect(response.status).toBe(503)
      expect(await response.json()).toMatchObject({ error: "ServiceUnavailable" })
      expect(response.headers.getSetCookie()).toEqual([])
      expect(lines.join("\n")).toContain("ServiceUnavailable")
    })

    it("50 concurrent checks of one session share one read; a read that fails fails them all with 503, and the next check reads again", async () => {
      const browser = new Browser(direct(config))
      await browser.signIn()
      const before = probe.calls.getSessionAndUser ?? 0
      const answers = await Promise.all(Array.from({ length: 50 }, async () => (await browser.request("/auth/session")).json()))
      for (const a of answers) expect((a as any).user).toEqual({ name: "Ada Lovelace", email: "ada@example.com", image: "https://example.com/ada.png" })
      // At least one read, and far fewer than one per check (those in flight together share).
      const reads = (probe.calls.getSessionAndUser ?? 0) - before
      expect(reads).toBeGreaterThanOrEqual(1)
      expect(reads).toBeLessThan(50)

      probe.failing.add("getSessionAndUser")
      const failed = await Promise.all(Array.from({ length: 50 }, () => browser.request("/auth/session")))
      for (const r of failed) {
        expect(r.status).toBe(503)
        expect(r.headers.getSetCookie()).toEqual([])
      }
      // Nothing of the failed read is kept: once the store answers again, so does the check.
      probe.failing.clear()
      const after = probe.calls.getSessionAndUser ?? 0
      expect((await browser.session()).user.name).toBe("Ada Lovelace")
      expect((probe.calls.getSessionAndUser ?? 0) - after).toBe(1)
    })

    it("database down during sign-in: the error page with ServiceUnavailable, and no session", async () => {
      probe.failing.add("createSession")
      const browser = new Browser(direct(config))
      const response = await browser.signIn()
      expect(response.headers.get("location")).toBe("http://localhost:3000/auth/error?error=ServiceUnavailable")
      expect(browser.sessionCookie()).toBeUndefined()
    })

    it("with session.hashTokens, the table holds only a SHA-256 of each token (T40)", async () => {
      const hashed = credentialsConfig({ adapter: probe.adapter, session: { hashTokens: true } })
      const browser = new Browser(direct(hashed))
      await browser.signIn()
      const token = browser.sessionCookie()!
      expect(await sessionRow(token)).toBeUndefined()
      const digest = createHash("sha256").update(token).digest("hex")
      expect((await sessionRow(digest))?.userId).toBe("user-ada")
      expect((await browser.session()).user.name).toBe("Ada Lovelace")
      // The raw token is not a key of anything: presenting the digest as a cookie fails too.
      const forged = await Auth(new Request("http://localhost:3000/auth/session", { headers: { cookie: `authjs.session-token=${digest}` } }), hashed)
      expect(await forged.json()).toBeNull()
      await browser.signOut()
      expect(await sessionRow(digest)).toBeUndefined()
    })

    it("the session callback receives the stored user", async () => {
      const withCallback = credentialsConfig({
        adapter: probe.adapter,
        callbacks: { session: ({ session, user }) => ({ ...session, userId: user?.id }) as any },
      })
      const browser = new Browser(direct(withCallback))
      await browser.signIn()
      expect((await browser.session()).userId).toBe("user-ada")
    })
  })
}

databaseSessionSuite("SQLite", () => openTestDatabase("sqlite"))
postgres.describe("database sessions on PostgreSQL (gate)", () => databaseSessionSuite("PostgreSQL", () => openTestDatabase("postgres", { url: service.url })))

describe("adapter checks at the first request", () => {
  it("names the methods a database-session config needs but the adapter lacks", async () => {
    const { lines, logger } = captureLogger()
    const { getSessionAndUser: _g, updateSession: _u, ...partial } = MemoryAdapter()
    const response = await Auth(new Request("http://localhost:3000/auth/session"), credentialsConfig({ adapter: partial, logger }))
    expect(response.status).toBe(500)
    expect(lines.join("\n")).toMatch(/MissingAdapterMethods.*getSessionAndUser, updateSession/)
  })

  it("an explicit jwt strategy wins over an adapter", async () => {
    const adapter = instrument(MemoryAdapter())
    const browser = new Browser(direct(credentialsConfig({ adapter: adapter.adapter, session: { strategy: "jwt" } })))
    await browser.signIn()
    expect(browser.sessionCookie()!.split(".")).toHaveLength(5)
    expect(adapter.calls.createSession).toBeUndefined()
  })
})
