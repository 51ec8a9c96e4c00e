import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import type { Kysely } from "kysely"
import type { Adapter } from "@portcullis/core/adapters"
import { Auth, type AuthConfig } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { openTestDatabase } from "@portcullis/sql-adapter/testing"
import { Browser, captureLogger, direct, SECRET } from "../helpers.js"
import { httpServer } from "../http-server.js"
import { emailConfig, newBrowser, redirectOf, requestLink, spyTokens, startSmtp, type TestSmtp } from "./support.js"

/**
 * Email sign-in end to end (issue 5; spec §3 verification-token rows, §4.4; checklist
 * T46–T49, T32, T65): a real SMTP server receives the message from the Nodemailer
 * provider, the test parses the raw MIME, follows the link and is signed in — on the
 * memory adapter and on SQLite through SqlAdapter.
 */
interface Backend {
  name: string
  open(): Promise<{ adapter: Adapter; storedTokens(): Promise<{ identifier: string; token: string }[]>; close(): Promise<void> }>
}

const backends: Backend[] = [
  {
    name: "memory adapter",
    async open() {
      const spy = spyTokens(MemoryAdapter())
      return { adapter: spy.adapter, storedTokens: async () => spy.created, close: async () => {} }
    },
  },
  {
    name: "SQLite (SqlAdapter)",
    async open() {
      const { db, tables, adapter, close } = await openTestDatabase("sqlite")
      return {
        adapter,
        storedTokens: () => db.selectFrom(tables.verificationTokens).select(["identifier", "token"]).execute(),
        close,
      }
    },
  },
]

describe.each(backends)("email sign-in through Auth() on the $name", (backend) => {
  let smtp: TestSmtp
  let store: Awaited<ReturnType<Backend["open"]>>
  beforeAll(async () => {
    smtp = await startSmtp()
    store = await backend.open()
  })
  afterAll(async () => {
    await smtp.close()
    await store.close()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  function setup(extra: Partial<AuthConfig> = {}, provider = {}) {
    const log = captureLogger()
    const events = { createUser: vi.fn(), updateUser: vi.fn(), signIn: vi.fn() }
    const config = emailConfig(store.adapter, smtp.url, { logger: log.logger, debug: true, events, ...extra }, provider)
    return { config, log, events, browser: newBrowser(direct(config)) }
  }

  it("mails a link that signs a new user in, verified, and lands on the callback URL", async () => {
    const { browser, events, log } = setup()
    const before = smtp.messages.length
    const sent = await requestLink(browser, "  New.User@Example.COM ", { callbackUrl: "http://localhost:3000/dashboard" })
    expect(sent.status).toBe(302)
    expect(sent.headers.get("location")).toBe("http://localhost:3000/auth/verify-request?provider=email&type=email")

    expect(smtp.messages).toHaveLength(before + 1)
    const mail = smtp.messages.at(-1)!
    expect(mail.to).toEqual(["new.user@example.com"])
    expect(mail.parsed.subject).toBe("Sign in to localhost:3000")
    expect(mail.parsed.from?.address).toBe("auth@example.com")
    expect(mail.parsed.html).toContain("Sign in</a>")
    const link = new URL(smtp.linkFor("new.user@example.com"))
    expect(link.origin + link.pathname).toBe("http://localhost:3000/auth/callback/email")
    expect(link.searchParams.get("email")).toBe("new.user@example.com")
    expect(link.searchParams.get("callbackUrl")).toBe("http://localhost:3000/dashboard")
    const token = link.searchParams.get("token")!
    expect(token).toMatch(/^[0-9a-f]{64}$/)

    const done = await browser.request(link.href)
    expect(done.status).toBe(302)
    expect(done.headers.get("location")).toBe("http://localhost:3000/dashboard")
    const session = await browser.session()
    expect(session.user.email).toBe("new.user@example.com")

    expect(events.createUser).toHaveBeenCalledTimes(1)
    const created = events.createUser.mock.calls[0]![0].user
    expect(created.emailVerified).toBeInstanceOf(Date)
    expect(events.signIn).toHaveBeenCalledWith(expect.objectContaining({
      isNewUser: true,
      account: expect.objectContaining({ provider: "email", type: "email", providerAccountId: "new.user@example.com" }),
    }))
    // T65: the token never reaches the logs, even at debug level.
    expect(log.lines.join("\n")).not.toContain(token)
  })

  it("stores only a keyed hash of the token, bound to the address (T46)", async () => {
    const { browser } = setup()
    await requestLink(browser, "hash@example.com")
    const token = new URL(smtp.linkFor("hash@example.com")).searchParams.get("token")!
    const rows = (await store.storedTokens()).filter((r) => r.identifier === "hash@example.com")
    expect(rows).toHaveLength(1)
    expect(rows[0]!.token).not.toContain(token)
    const { createHash } = await import("node:crypto")
    expect(rows[0]!.token).toBe(createHash("sha256").update(`${token}${SECRET}`).digest("hex"))
  })

  it("replaces a known user who had no emailVerified with a fresh verified one (T67)", async () => {
    const existing = await store.adapter.createUser!({ id: crypto.randomUUID(), email: "known@example.com", emailVerified: null, name: "Known", image: "https://attacker.example/me.png" })
    const { browser, events } = setup()
    await requestLink(browser, "KNOWN@example.com")
    await browser.request(smtp.linkFor("known@example.com"))
    // Nothing the earlier registrant chose survives: not the id, the name or the image.
    const session = await browser.session()
    expect(session.user.email).toBe("known@example.com")
    expect(session.user.name ?? null).toBeNull()
    expect(session.user.image ?? null).toBeNull()
    expect(await store.adapter.getUser!(existing.id)).toBeNull()
    const fresh = await store.adapter.getUserByEmail!("known@example.com")
    expect(fresh!.id).not.toBe(existing.id)
    expect(fresh!.emailVerified).toBeInstanceOf(Date)
    expect(events.createUser).toHaveBeenCalledTimes(1)
    expect(events.updateUser).not.toHaveBeenCalled()
    expect(events.signIn).toHaveBeenCalledWith(expect.objectContaining({ isNewUser: true }))
  })

  it("keeps a known verified user as it is", async () => {
    const existing = await store.adapter.createUser!({ id: crypto.randomUUID(), email: "verified@example.com", emailVerified: new Date("2024-01-01"), name: "Verified" })
    const { browser, events } = setup()
    await requestLink(browser, "verified@example.com")
    await browser.request(smtp.linkFor("verified@example.com"))
    expect((await browser.session()).user).toMatchObject({ email: "verified@example.com", name: "Verified" })
    expect((await store.adapter.getUserByEmail!("verified@example.com"))!.id).toBe(existing.id)
    expect(events.createUser).not.toHaveBeenCalled()
  })

  it("refuses a reused link with Verification (single use)", async () => {
    const { browser } = setup()
    await requestLink(browser, "reuse@example.com")
    const link = smtp.linkFor("reuse@example.com")
    expect(redirectOf(await browser.request(link)).url.href).toBe("http://localhost:3000/")
    const again = await newBrowser(browser.transport).request(link)
    expect(redirectOf(again)).toMatchObject({ path: "/auth/error", error: "Verification" })
    const page = await newBrowser(browser.transport).request("/auth/error?error=Verification")
    expect(page.status).toBe(403)
  })

  it("refuses an expired link with Verification (fake clock)", async () => {
    const { browser } = setup({}, { maxAge: 600 })
    vi.useFakeTimers({ toFake: ["Date"] })
    await requestLink(browser, "late@example.com")
    const link = smtp.linkFor("late@example.com")
    vi.setSystemTime(Date.now() + 601_000)
    expect(redirectOf(await browser.request(link))).toMatchObject({ path: "/auth/error", error: "Verification" })
    expect(await browser.session()).toBeNull()
  })

  it("refuses a tampered token, a different address, and missing parameters", async () => {
    const { browser } = setup()
    await requestLink(browser, "victim@example.com")
    const good = new URL(smtp.linkFor("victim@example.com"))
    const token = good.searchParams.get("token")!
    const variants: URL[] = []
    const flipped = new URL(good)
    flipped.searchParams.set("token", (token[0] === "a" ? "b" : "a") + token.slice(1))
    variants.push(flipped)
    const otherEmail = new URL(good)
    otherEmail.searchParams.set("email", "attacker@example.com")
    variants.push(otherEmail)
    const noToken = new URL(good)
    noToken.searchParams.delete("token")
    variants.push(noToken)
    const noEmail = new URL(good)
    noEmail.searchParams.delete("email")
    variants.push(noEmail)
    const huge = new URL(good)
    huge.searchParams.set("token", "a".repeat(10_000))
    variants.push(huge)
    for (const url of variants) {
      const response = await newBrowser(browser.transport).request(url.href)
      expect(redirectOf(response)).toMatchObject({ path: "/auth/error", error: "Verification" })
    }
    // None of that used the real link up: it still signs the victim in.
    expect(redirectOf(await browser.request(good.href)).url.href).toBe("http://localhost:3000/")
    expect((await browser.session()).user.email).toBe("victim@example.com")
  })

  it("answers known and unknown addresses identically (T48)", async () => {
    await store.adapter.createUser!({ id: crypto.randomUUID(), email: "member@example.com", emailVerified: new Date(), name: "Member" })
    const { config } = setup()
    const shape = async (email: string) => {
      const response = await requestLink(newBrowser(direct(config)), email)
      return {
        status: response.status,
        location: response.headers.get("location"),
        cookies: response.headers.getSetCookie().map((c) => c.split("=")[0]),
        body: await response.text(),
      }
    }
    const known = await shape("member@example.com")
    const unknown = await shape("stranger@example.com")
    expect(unknown).toEqual(known)
    expect(smtp.messages.filter((m) => m.to[0] === "member@example.com" || m.to[0] === "stranger@example.com")).toHaveLength(2)
  })

  it.each([
    ["a second address after a comma", "a@example.com,b@evil.example"],
    ["a CR/LF header injection", "a@example.com\r\nBcc: b@evil.example"],
    ["a display-name form", "Ada <a@example.com>"],
    ["an over-long address", `${"a".repeat(330)}@example.com`],
  ])("refuses %s before anything is sent (T49)", async (_name, email) => {
    const { browser, log } = setup()
    const tokensBefore = (await store.storedTokens()).length
    const connections = smtp.connections
    const response = await requestLink(browser, email)
    expect(redirectOf(response)).toMatchObject({ path: "/auth/signin", error: "EmailSignin" })
    expect(smtp.connections).toBe(connections)
    expect((await store.storedTokens()).length).toBe(tokensBefore)
    // The reason is logged as a code; the raw input (and its CR/LF) is not. The client's
    // input, not a fault: a request-malformed warning, not an error with a stack.
    const logged = log.lines.join("\n")
    expect(logged).toMatch(/request-malformed \{"kind":"EmailSignInError","message":"The submitted email address was refused \((forbidden-character|too-long|not-one-address)\)/)
    expect(logged).not.toContain("evil.example")
  })

  it("sends nothing for a POST without the CSRF token", async () => {
    const { browser } = setup()
    await browser.csrfToken()
    const connections = smtp.connections
    const response = await browser.request("/auth/signin/email", { form: { email: "csrf@example.com" } })
    expect(redirectOf(response).error).toBe("MissingCSRF")
    expect(smtp.connections).toBe(connections)
  })

  it("asks the signIn callback first (verificationRequest: true), then again without it", async () => {
    const signIn = vi.fn(async () => true)
    const { browser } = setup({ callbacks: { signIn } })
    await requestLink(browser, "callback@example.com")
    expect(signIn).toHaveBeenCalledTimes(1)
    expect(signIn.mock.calls[0]![0]).toMatchObject({
      user: { email: "callback@example.com", emailVerified: null },
      account: { provider: "email", type: "email", providerAccountId: "callback@example.com" },
      email: { verificationRequest: true },
    })
    await browser.request(smtp.linkFor("callback@example.com"))
    expect(signIn).toHaveBeenCalledTimes(2)
    expect(signIn.mock.calls[1]![0]).not.toHaveProperty("email")
  })

  it("sends nothing when the signIn callback refuses (AccessDenied) or redirects", async () => {
    const connections = smtp.connections
    const refused = setup({ callbacks: { signIn: () => false } })
    expect(redirectOf(await requestLink(refused.browser, "no@example.com"))).toMatchObject({ path: "/auth/error", error: "AccessDenied" })
    const elsewhere = setup({ callbacks: { signIn: () => "/waitlist" } })
    expect((await requestLink(elsewhere.browser, "wait@example.com")).headers.get("location")).toBe("http://localhost:3000/waitlist")
    expect(smtp.connections).toBe(connections)
  })

  it("signs in with the JWT strategy too", async () => {
    const { browser } = setup({ session: { strategy: "jwt" } })
    await requestLink(browser, "jwt@example.com")
    await browser.request(smtp.linkFor("jwt@example.com"))
    const session = await browser.session()
    expect(session.user.email).toBe("jwt@example.com")
    expect(browser.sessionCookie()!.split(".")).toHaveLength(5) // a JWE, not a row id
  })

  it("re-checks the callback URL in the link: a tampered off-site target is ignored", async () => {
    const { browser } = setup()
    await requestLink(browser, "target@example.com", { callbackUrl: "https://evil.example/steal" })
    const link = new URL(smtp.linkFor("target@example.com"))
    expect(link.searchParams.get("callbackUrl")).toBe("http://localhost:3000")
    link.searchParams.set("callbackUrl", "https://evil.example/steal")
    expect((await browser.request(link.href)).headers.get("location")).toBe("http://localhost:3000")
  })
})

describe("email sign-in with a misbehaving SMTP server", () => {
  let adapter: Adapter
  beforeAll(() => {
    adapter = MemoryAdapter()
  })

  /** A config whose token generator lets the test see the token that was never mailed. */
  function withKnownToken(server: string) {
    const tokens: string[] = []
    const log = captureLogger()
    const config = emailConfig(adapter, server, { logger: log.logger }, {
      generateVerificationToken: () => {
        const t = crypto.randomUUID().replace(/-/g, "") + crypto.randomUUID().replace(/-/g, "")
        tokens.push(t)
        return t
      },
    })
    return { config, tokens, log, browser: newBrowser(direct(config)) }
  }

  async function expectUnusable(browser: Browser, token: string, email: string) {
    const url = `/auth/callback/email?token=${token}&email=${encodeURIComponent(email)}`
    expect(redirectOf(await browser.request(url))).toMatchObject({ error: "Verification" })
  }

  it("server down: EmailSignin on the sign-in page, cause logged, token unusable", async () => {
    // A port that was just listening and is now closed: connection refused.
    const gone = await startSmtp()
    await gone.close()
    const { browser, tokens, log } = withKnownToken(gone.url)
    const response = await requestLink(browser, "down@example.com")
    expect(redirectOf(response)).toMatchObject({ path: "/auth/signin", error: "EmailSignin" })
    const page = await browser.request(redirectOf(response).url.pathname + redirectOf(response).url.search)
    expect(await page.text()).toContain("We could not send the sign-in email")
    const logged = log.lines.join("\n")
    expect(logged).toContain("EmailSignInError")
    expect(logged).toMatch(/ECONNREFUSED/)
    expect(logged).not.toContain(tokens[0]!)
    await expectUnusable(browser, tokens[0]!, "down@example.com")
  })

  it("recipient refused (550 at RCPT TO): EmailSignin, token unusable", async () => {
    const refusing = await startSmtp({ refuseRecipient: (a) => a.startsWith("refused") })
    try {
      const { browser, tokens, log } = withKnownToken(refusing.url)
      const response = await requestLink(browser, "refused@example.com")
      expect(redirectOf(response)).toMatchObject({ path: "/auth/signin", error: "EmailSignin" })
      expect(refusing.messages).toHaveLength(0)
      expect(log.lines.join("\n")).toMatch(/550|recipients were rejected/i)
      await expectUnusable(browser, tokens[0]!, "refused@example.com")
      // The same server still delivers to other addresses, and that link works.
      await requestLink(browser, "fine@example.com")
      await browser.request(refusing.linkFor("fine@example.com"))
      expect((await browser.session()).user.email).toBe("fine@example.com")
    } finally {
      await refusing.close()
    }
  })
})

describe("email sign-in behind a real HTTP server", () => {
  let smtp: TestSmtp
  let server: Awaited<ReturnType<typeof httpServer>>
  beforeAll(async () => {
    smtp = await startSmtp()
    server = await httpServer(emailConfig(MemoryAdapter(), smtp.url))
  })
  afterAll(async () => {
    await server?.close()
    await smtp?.close()
  })

  it("mails a link on the server's own origin, and following it signs in", async () => {
    const browser = new Browser(server.transport, server.origin)
    const sent = await requestLink(browser, "express@example.com")
    expect(sent.headers.get("location")).toBe(`${server.origin}/auth/verify-request?provider=email&type=email`)
    const link = smtp.linkFor("express@example.com")
    expect(link.startsWith(`${server.origin}/auth/callback/email?`)).toBe(true)
    await browser.request(link)
    expect((await browser.session()).user.email).toBe("express@example.com")
  })
})

describe("links use the configured origin, not the Host header (T32)", () => {
  let smtp: TestSmtp
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(async () => {
    await smtp.close()
    vi.unstubAllEnvs()
  })

  it("a spoofed Host / X-Forwarded-Host does not reach the emailed link", async () => {
    vi.stubEnv("AUTH_URL", "https://app.example.com/auth")
    const config = emailConfig(MemoryAdapter(), smtp.url, { trustHost: false })
    const browser = new Browser(direct(config), "https://app.example.com")
    const csrfToken = await browser.csrfToken()
    const response = await browser.request("/auth/signin/email", {
      form: { email: "host@example.com", csrfToken },
      headers: { host: "evil.example", "x-forwarded-host": "evil.example" },
    })
    expect(response.headers.get("location")).toBe("https://app.example.com/auth/verify-request?provider=email&type=email")
    const link = smtp.linkFor("host@example.com")
    expect(link.startsWith("https://app.example.com/auth/callback/email?")).toBe(true)
    expect(smtp.messages.at(-1)!.raw).not.toContain("evil.example")
  })
})

describe("configuration", () => {
  it("refuses an email provider without an adapter", async () => {
    const config: AuthConfig = { ...emailConfig(MemoryAdapter(), "smtp://127.0.0.1:1"), adapter: undefined, logger: captureLogger().logger }
    const response = await Auth(new Request("http://localhost:3000/auth/signin"), config)
    expect(response.status).toBe(500)
  })
})
