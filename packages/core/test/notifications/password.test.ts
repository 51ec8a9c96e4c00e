/**
 * Issue 28, security notifications: a password change and a password reset each mail the
 * account's address one notice — in the request's language, through the password mails'
 * own sender, without the reset token — and fire the `securityNotice` event; a sender that
 * fails or hangs never fails the change. Through `Auth()` and behind a real HTTP server.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { Browser, captureLogger, type Transport } from "../helpers.js"
import { httpServer, type TestServer } from "../http-server.js"
import { startSmtp, type TestSmtp } from "../email/support.js"
import { LIGHT, passwordApp, passwordSignIn, postStep, seedUser, STRONG } from "../password/support.js"
import { captureMailer, expectCleanNotice, FIREFOX_WINDOWS, recordEvents } from "./support.js"

const OLD = "the old and well worn passphrase"
const unique = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}@example.com`

const servers: TestServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

/** A password app whose password mails and notices go through `capture`; a browser on `transport`. */
async function setup(transport: "Auth()" | "HTTP server", options: { fail?: "throw" | "hang"; extra?: Partial<AuthConfig> } = {}) {
  const adapter = MemoryAdapter()
  const capture = captureMailer(options.fail ? { fail: options.fail } : {})
  const recorded = recordEvents()
  const log = captureLogger()
  const { auth, config } = passwordApp(adapter, {
    provider: { mailer: capture.mailer, hashing: LIGHT },
    extra: {
      session: { strategy: "jwt", registry: new MemorySessionRegistry() },
      events: recorded.events,
      logger: log.logger,
      // The real server is reached on 127.0.0.1 (its Host): loopback, so trusted outside production.
      ...(transport === "HTTP server" && { trustHost: true }),
      ...options.extra,
    },
  })
  let browser: (headers?: Record<string, string>) => Browser
  if (transport === "HTTP server") {
    const server = await httpServer(config)
    servers.push(server)
    browser = (headers = {}) => new Browser(withHeaders(server.transport, headers), server.origin)
  } else {
    browser = (headers = {}) => new Browser(withHeaders((request) => auth.handle(request, { clientAddress: "198.51.100.7" }), headers), "http://localhost:3000")
  }
  return { adapter, capture, recorded, log, config, browser }
}

/** The browser's own headers on every request (its language, its user agent). */
function withHeaders(transport: Transport, headers: Record<string, string>): Transport {
  return (request) => {
    for (const [name, value] of Object.entries(headers)) request.headers.set(name, value)
    return transport(request)
  }
}

describe.each(["Auth()", "HTTP server"] as const)("through %s", (transport) => {
  describe("a password change", () => {
    it("mails the account one passwordChanged notice, with when and from which browser, and fires the event", async () => {
      const { adapter, capture, recorded, browser } = await setup(transport)
      const email = unique("grace")
      const user = await seedUser(adapter, { email, password: OLD })
      const b = browser({ "user-agent": FIREFOX_WINDOWS })
      expect((await passwordSignIn(b, { email, password: OLD })).error).toBeNull()

      const changed = await postStep(b, "change", { currentPassword: OLD, password: STRONG })
      expect(changed.error).toBeNull()

      const notices = capture.noticesTo(email)
      expect(notices).toHaveLength(1)
      const [notice] = notices
      expectCleanNotice(notice, "passwordChanged", [OLD, STRONG])
      expect(notice!.rendered.subject).toMatch(/^Your password for .+ was changed$/)
      expect(notice!.rendered.text).toContain("Firefox on Windows")
      expect(notice!.rendered.text).toMatch(/When: .+ 20\d\d/)
      // Where a worried owner can act: the forgot-password page, not a link that does anything by itself.
      expect(new URL(notice!.url).pathname).toBe("/auth/password/forgot")
      expect(notice!.rendered.text).toContain("If it was not, reset your password now")

      expect(recorded.notices).toEqual([
        expect.objectContaining({ kind: "passwordChanged", userId: user.id, email, emailed: true, device: expect.objectContaining({ browser: "Firefox", os: "Windows" }) }),
      ])
    })

    it("is written in the request's language (German)", async () => {
      const { adapter, capture, browser } = await setup(transport)
      const email = unique("greta")
      await seedUser(adapter, { email, password: OLD })
      const b = browser({ "accept-language": "de-DE,de;q=0.9", "user-agent": FIREFOX_WINDOWS })
      await passwordSignIn(b, { email, password: OLD })
      await postStep(b, "change", { currentPassword: OLD, password: STRONG })

      const [notice] = capture.noticesTo(email)
      expectCleanNotice(notice, "passwordChanged")
      expect(notice!.locale).toBe("de")
      expect(notice!.rendered.subject).toMatch(/^Ihr Passwort für .+ wurde geändert$/)
      expect(notice!.rendered.text).toContain("Firefox unter Windows")
      expect(notice!.rendered.html).toContain("Passwort zurücksetzen")
      expect(notice!.rendered.html).toContain('lang="de"')
    })

    it("sends nothing when the current password was wrong (nothing changed)", async () => {
      const { adapter, capture, recorded, browser } = await setup(transport)
      const email = unique("grace")
      await seedUser(adapter, { email, password: OLD })
      const b = browser()
      await passwordSignIn(b, { email, password: OLD })
      expect((await postStep(b, "change", { currentPassword: "not the password at all", password: STRONG })).error).toBe("PasswordMismatch")
      expect(capture.noticesTo(email)).toEqual([])
      expect(recorded.notices).toEqual([])
    })
  })

  describe("a password reset", () => {
    it("mails one passwordReset notice besides the reset link, without the link's token", async () => {
      const { adapter, capture, recorded, browser } = await setup(transport)
      const email = unique("ada")
      const user = await seedUser(adapter, { email, password: OLD })
      const someone = browser()
      await postStep(someone, "forgot", { email })
      // The reset link is stored and mailed after the answer (an unknown address must not answer sooner).
      await vi.waitFor(() => expect(capture.sent.some((m) => m.to === email && m.kind === undefined)).toBe(true))
      const resetMail = capture.sent.findLast((m) => m.to === email && m.kind === undefined)!
      const token = new URL(resetMail.url).searchParams.get("token")!
      expect(token).toBeTruthy()

      const done = await postStep(someone, "reset", { token, email, password: STRONG })
      expect(done.path).toBe("/auth/password/done")

      const notices = capture.noticesTo(email)
      expect(notices).toHaveLength(1)
      expectCleanNotice(notices[0], "passwordReset", [token, encodeURIComponent(token), STRONG])
      expect(notices[0]!.rendered.subject).toMatch(/was reset$/)
      expect(recorded.notices).toEqual([expect.objectContaining({ kind: "passwordReset", userId: user.id, email, emailed: true })])
    })
  })

  describe("a sender that fails", () => {
    // A hanging sender holds the action for the 15 s bound: once, not per transport.
    it.each(transport === "Auth()" ? (["throw", "hang"] as const) : (["throw"] as const))("(%s) does not fail the change: the new password holds, a bounded warning is logged, the event says emailed: false", async (fail) => {
      const { adapter, recorded, log, browser } = await setup(transport, { fail })
      const email = unique("grace")
      await seedUser(adapter, { email, password: OLD })
      const b = browser()
      expect((await passwordSignIn(b, { email, password: OLD })).error).toBeNull()
      const started = Date.now()
      const changed = await postStep(b, "change", { currentPassword: OLD, password: STRONG })
      expect(changed.error).toBeNull()
      expect(changed.status).toBe(302)
      if (fail === "hang") expect(Date.now() - started).toBeLessThan(20_000)
      expect((await passwordSignIn(browser(), { email, password: STRONG })).error).toBeNull()
      expect(recorded.notices).toEqual([expect.objectContaining({ kind: "passwordChanged", emailed: false })])
      const warnings = log.lines.filter((l) => l.startsWith("security-notice-unsent"))
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).not.toContain(OLD)
    }, 30_000)
  })
})

describe("the sender", () => {
  let smtp: TestSmtp
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(() => smtp.close())

  it("is the password provider's own mailer by default: the notice arrives over SMTP like the reset mails", async () => {
    const adapter = MemoryAdapter()
    const mailer = Nodemailer({ server: smtp.url, from: "Portcullis Tests <auth@example.com>" })
    const { auth } = passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { session: { strategy: "jwt", registry: new MemorySessionRegistry() } } })
    const email = unique("grace")
    await seedUser(adapter, { email, password: OLD })
    const b = new Browser((request) => auth.handle(request, { clientAddress: "198.51.100.7" }), "http://localhost:3000")
    await passwordSignIn(b, { email, password: OLD })
    await postStep(b, "change", { currentPassword: OLD, password: STRONG })

    const received = smtp.messages.filter((m) => m.to.includes(email))
    expect(received).toHaveLength(1)
    expect(received[0]!.parsed.subject).toBe("Your password for localhost:3000 was changed")
    expect(received[0]!.parsed.text).toContain("http://localhost:3000/auth/password/forgot")
    expect(received[0]!.parsed.text).toContain("198.51.100.7")
  })

  it("can be turned off per kind: the event still fires", async () => {
    const adapter = MemoryAdapter()
    const capture = captureMailer()
    const recorded = recordEvents()
    const { auth } = passwordApp(adapter, {
      provider: { mailer: capture.mailer, hashing: LIGHT },
      extra: { session: { strategy: "jwt", registry: new MemorySessionRegistry() }, events: recorded.events, notifications: { email: { passwordChanged: false } } },
    })
    const email = unique("grace")
    await seedUser(adapter, { email, password: OLD })
    const b = new Browser((request) => auth.handle(request), "http://localhost:3000")
    await passwordSignIn(b, { email, password: OLD })
    await postStep(b, "change", { currentPassword: OLD, password: STRONG })
    expect(capture.noticesTo(email)).toEqual([])
    expect(recorded.notices).toEqual([expect.objectContaining({ kind: "passwordChanged", emailed: false })])
  })
})
