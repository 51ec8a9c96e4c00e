/**
 * Issue 29, the audit trail's event stream: every flow emits the `audit` events it should —
 * exact types, outcome, method, provider, the client address the integration reported and
 * the browser's user agent — at the moment its outcome is known, and no event ever holds a
 * password, code, token or cookie used along the way (the last test scans them all). A
 * handler that throws never breaks a flow.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import { confirmTwoFactor, disableTwoFactor, regenerateTwoFactorBackupCodes, resetTwoFactor, revokeOtherSessions, startTwoFactor } from "@portcullis/core/integration"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { ada, captureLogger, credentialsConfig, SECRET } from "../helpers.js"
import { LIGHT, passwordApp, passwordSignIn, postStep, seedUser, STRONG } from "../password/support.js"
import { attempt, lockoutApp, wrong } from "../rate-limit/support.js"
import { captureMailer } from "../notifications/support.js"
import { openLink, requestLink } from "../email/support.js"
import { FakeOP } from "../oauth/fixtures/fake-op.js"
import { deliver, signInThrough } from "../oauth/flow.js"
import { steppedUp } from "../step-up/support.js"
import Passkey from "@portcullis/core/providers/passkey"
import { SoftCredential } from "../webauthn/soft-authenticator.js"
import { ORIGIN, PasskeyBrowser } from "../webauthn/support.js"
import { ADA_ID, secondFactor } from "../two-factor/support.js"
import { auditedBrowser, auditedTransport, auditLog, everyEvent, everySecret, fromTheBrowser, IP, secret } from "./support.js"
import { previousStepCode } from "../two-factor/previous-step.js"

const OLD = "the old and well worn passphrase"
/** The refusals' warnings are not this suite's subject (test/logs). */
const quiet = { error: () => {}, warn: () => {}, debug: () => {} }
secret(ada.password, OLD, STRONG, SECRET, wrong.password)

/** A credentials app (JWT sessions) whose `audit` events are recorded. */
function credentialsApp(extra: Partial<AuthConfig> = {}) {
  const log = auditLog()
  const config = credentialsConfig({ events: { audit: log.audit }, logger: quiet, ...extra })
  const auth = createAuth(config)
  return { log, config, auth, browser: () => auditedBrowser(auth) }
}

describe("a credentials sign-in", () => {
  it("that succeeds emits signIn with the method, the provider, the client address and the user agent", async () => {
    const { log, browser } = credentialsApp()
    const response = await browser().signIn()
    expect(response.status).toBe(302)
    expect(log.events).toEqual([
      { ...fromTheBrowser, type: "signIn", outcome: "success", userId: "user-ada", method: "credentials", provider: "credentials", details: { isNewUser: false } },
    ])
  })

  it("that fails emits signInFailed with the error's type as the reason, and names no user", async () => {
    const { log, browser } = credentialsApp()
    await browser().signIn({ username: "ada", password: "not the password" })
    secret("not the password")
    expect(log.events).toEqual([{ ...fromTheBrowser, type: "signInFailed", outcome: "failure", method: "credentials", provider: "credentials", reason: "CredentialsSignin" }])
  })

  it("that is a forged form (no CSRF token) is a failed sign-in too", async () => {
    const { log, browser } = credentialsApp()
    await browser().request("/auth/callback/credentials", { form: { ...ada } })
    expect(log.events).toEqual([{ ...fromTheBrowser, type: "signInFailed", outcome: "failure", method: "credentials", provider: "credentials", reason: "MissingCSRF" }])
  })
})

describe("the sign-in lockout", () => {
  it("emits one signInFailed per wrong password, then lockout with the action and a keyed hash of the identifier, never the identifier", async () => {
    const log = auditLog()
    const { browser } = lockoutApp({}, { events: { audit: log.audit } })
    const b = browser(IP)
    for (let i = 0; i < 6; i++) await attempt(b, wrong)
    expect(log.types()).toEqual(["signInFailed", "signInFailed", "signInFailed", "signInFailed", "signInFailed", "lockout"])
    const [lockout] = log.of("lockout")
    expect(lockout).toEqual({
      id: expect.any(String),
      time: expect.any(String),
      type: "lockout",
      outcome: "failure",
      ip: IP,
      details: { action: "credentials", limit: "lockout", retryAfter: expect.any(Number), identifier: expect.stringMatching(/^[0-9a-f]{32}$/) },
    })
    expect(JSON.stringify(lockout)).not.toContain('"ada"')
    // One event per trip: the identifier refused again while locked out is no new event.
    await attempt(b, wrong)
    expect(log.of("lockout")).toHaveLength(1)
    // The same identifier, the same hash — on another runtime with the same secret, however
    // it is spelled: trips can be grouped.
    const other = auditLog()
    const elsewhere = lockoutApp({}, { events: { audit: other.audit } }).browser(IP)
    for (let i = 0; i < 6; i++) await attempt(elsewhere, { username: "ADA", password: "wrong" })
    expect(other.of("lockout")).toHaveLength(1)
    expect(other.of("lockout")[0]!.details.identifier).toBe(lockout!.details.identifier)
  })

  it("emits rateLimited when the address's limit refuses", async () => {
    const log = auditLog()
    const { browser } = lockoutApp({ perAddress: { credentials: { max: 1, window: 60 } } }, { events: { audit: log.audit } })
    const b = browser(IP)
    await attempt(b, wrong)
    await attempt(b, wrong)
    expect(log.of("rateLimited")).toEqual([
      { id: expect.any(String), time: expect.any(String), type: "rateLimited", outcome: "failure", ip: IP, details: { action: "credentials", limit: "address", retryAfter: expect.any(Number) } },
    ])
  })
})

/** A password app with JWT sessions in a registry (so they can be revoked) or database sessions, its notices and mails captured. */
async function passwordFlows(strategy: "jwt" | "database" = "jwt") {
  const log = auditLog()
  const adapter = MemoryAdapter()
  const capture = captureMailer()
  const { auth } = passwordApp(adapter, {
    provider: { mailer: capture.mailer, hashing: LIGHT },
    extra: { session: strategy === "jwt" ? { strategy, registry: new MemorySessionRegistry() } : { strategy }, events: { audit: log.audit } },
  })
  const email = `grace-${crypto.randomUUID().slice(0, 8)}@example.com`
  const user = await seedUser(adapter, { email, password: OLD })
  return { log, auth, capture, email, user, browser: () => auditedBrowser(auth) }
}

describe("a password sign-in", () => {
  it("that succeeds emits signIn with the password method; a wrong password emits signInFailed", async () => {
    const { log, email, user, browser } = await passwordFlows()
    const b = browser()
    await passwordSignIn(b, { email, password: "a wrong guess at it" })
    secret("a wrong guess at it")
    await passwordSignIn(b, { email, password: OLD })
    expect(log.events).toEqual([
      { ...fromTheBrowser, type: "signInFailed", outcome: "failure", method: "password", provider: "password", reason: "CredentialsSignin" },
      { ...fromTheBrowser, type: "signIn", outcome: "success", userId: user.id, method: "password", provider: "password", details: { isNewUser: false } },
    ])
  })
})

describe("a password change", () => {
  it("emits passwordChanged from the browser that changed it", async () => {
    const { log, email, user, browser } = await passwordFlows()
    const b = browser()
    await passwordSignIn(b, { email, password: OLD })
    const changed = await postStep(b, "change", { currentPassword: OLD, password: STRONG })
    expect(changed.error).toBeNull()
    expect(log.of("passwordChanged")).toEqual([{ ...fromTheBrowser, type: "passwordChanged", outcome: "success", userId: user.id }])
  })
})

describe("a password reset", () => {
  it("emits sessionRevoked (every session of the user) and passwordReset, and never the reset token", async () => {
    const { log, capture, email, user, browser } = await passwordFlows()
    const signedIn = browser()
    await passwordSignIn(signedIn, { email, password: OLD })
    const someone = browser()
    await postStep(someone, "forgot", { email })
    await vi.waitFor(() => expect(capture.sent.some((m) => m.to === email && m.kind === undefined)).toBe(true))
    const token = new URL(capture.sent.findLast((m) => m.to === email && m.kind === undefined)!.url).searchParams.get("token")!
    secret(token, encodeURIComponent(token))
    const done = await postStep(someone, "reset", { token, email, password: STRONG })
    expect(done.path).toBe("/auth/password/done")
    expect(log.types().slice(1)).toEqual(["sessionRevoked", "passwordReset"])
    expect(log.events.slice(1)).toEqual([
      { ...fromTheBrowser, type: "sessionRevoked", outcome: "success", userId: user.id, details: { scope: "everywhere", count: 1, strategy: "jwt" } },
      { ...fromTheBrowser, type: "passwordReset", outcome: "success", userId: user.id },
    ])
  })
})

describe.each(["jwt", "database"] as const)("sign-out and session revocation (%s sessions)", (strategy) => {
  it("emits signOut for the user of the session", async () => {
    const { log, email, user, browser } = await passwordFlows(strategy)
    const b = browser()
    await passwordSignIn(b, { email, password: OLD })
    await b.signOut()
    expect(log.of("signOut")).toEqual([{ ...fromTheBrowser, type: "signOut", outcome: "success", userId: user.id }])
  })

  it("emits sessionRevoked with the scope and how many, not the sessions' ids", async () => {
    const { log, auth, email, user, browser } = await passwordFlows(strategy)
    const laptop = browser()
    const phone = browser()
    await passwordSignIn(laptop, { email, password: OLD })
    await passwordSignIn(phone, { email, password: OLD })
    const revoked = await revokeOtherSessions({ origin: "http://localhost:3000", headers: new Headers({ cookie: laptop.cookieHeader(), origin: "http://localhost:3000" }), skipCSRF: true }, auth)
    expect(revoked).toBe(1)
    expect(log.of("sessionRevoked")).toEqual([
      { id: expect.any(String), time: expect.any(String), type: "sessionRevoked", outcome: "success", userId: user.id, details: { scope: "others", count: 1, strategy } },
    ])
    expect(JSON.stringify(log.of("sessionRevoked"))).not.toContain("sessionIds")
  })
})

describe("step-up re-authentication", () => {
  it("emits stepUp, failed for a wrong password and passed for the right one", async () => {
    const { log, email, user, browser } = await passwordFlows()
    const b = browser()
    await passwordSignIn(b, { email, password: OLD })
    const reauthenticate = async (password: string) => b.request("/auth/reauthenticate", { form: { password, csrfToken: await b.csrfToken() } })
    await reauthenticate("surely not my password")
    secret("surely not my password")
    await reauthenticate(OLD)
    expect(log.of("stepUp")).toEqual([
      { ...fromTheBrowser, type: "stepUp", outcome: "failure", userId: user.id, method: "password", reason: "PasswordMismatch" },
      { ...fromTheBrowser, type: "stepUp", outcome: "success", userId: user.id, method: "password" },
    ])
  })
})

describe("two-factor authentication", () => {
  /** A credentials app with 2FA on an adapter holding Ada, enrolled. */
  async function enrolled() {
    const { log, config, auth, browser } = credentialsApp({ adapter: MemoryAdapter(), twoFactor: {}, session: { strategy: "jwt" } })
    const request = await steppedUp(config, ADA_ID)
    const { secret: totpSecret } = await startTwoFactor({ ...request, account: "ada@example.com" }, config)
    const confirming = await previousStepCode(totpSecret)
    const { backupCodes } = await confirmTwoFactor({ ...request, code: confirming }, config)
    secret(totpSecret, ...backupCodes, confirming)
    return { log, config, auth, browser, totpSecret, backupCodes }
  }

  it("emits twoFactorEnabled on enrolment, twoFactorDisabled and backupCodesRegenerated after", async () => {
    const { log, config, totpSecret } = await enrolled()
    const regenerated = await regenerateTwoFactorBackupCodes({ ...(await steppedUp(config, ADA_ID)), code: totpCode(totpSecret) }, config)
    secret(...regenerated.backupCodes, totpCode(totpSecret))
    await disableTwoFactor({ ...(await steppedUp(config, ADA_ID)), code: regenerated.backupCodes[0]! }, config)
    expect(log.events).toEqual([
      { id: expect.any(String), time: expect.any(String), type: "twoFactorEnabled", outcome: "success", userId: ADA_ID },
      { id: expect.any(String), time: expect.any(String), type: "backupCodesRegenerated", outcome: "success", userId: ADA_ID },
      { id: expect.any(String), time: expect.any(String), type: "twoFactorDisabled", outcome: "success", userId: ADA_ID },
    ])
  })

  it("emits signInFailed for a wrong code (the user is known: the first factor passed), then backupCodeUsed and signIn with the second factor", async () => {
    const { log, browser, backupCodes } = await enrolled()
    const b = browser()
    await b.signIn()
    expect(log.of("signIn")).toEqual([])
    await secondFactor(b, "000000")
    await secondFactor(b, backupCodes[1]!)
    expect(log.events.slice(1)).toEqual([
      { ...fromTheBrowser, type: "signInFailed", outcome: "failure", userId: ADA_ID, method: "twoFactor", reason: "TwoFactorCodeInvalid", details: { code: "wrong" } },
      { ...fromTheBrowser, type: "backupCodeUsed", outcome: "success", userId: ADA_ID },
      { ...fromTheBrowser, type: "signIn", outcome: "success", userId: ADA_ID, method: "credentials", provider: "credentials", details: { isNewUser: false, secondFactor: "backup" } },
    ])
  })

  it("emits twoFactorReset with the actor and the reason a support action gave, and the sessions it revoked", async () => {
    const { log, config } = await enrolled()
    await resetTwoFactor({ userId: ADA_ID, reason: "lost phone, identity checked by video call", actor: "support-agent-7" }, config)
    expect(log.of("twoFactorReset")).toEqual([
      {
        id: expect.any(String),
        time: expect.any(String),
        type: "twoFactorReset",
        outcome: "success",
        userId: ADA_ID,
        actor: "support-agent-7",
        reason: "lost phone, identity checked by video call",
        details: { wasEnabled: true, sessionsRevoked: 0 },
      },
    ])
  })
})

describe("a magic link", () => {
  function emailApp() {
    const log = auditLog()
    const links: string[] = []
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      providers: [Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ url }) => void links.push(url) })],
      events: { audit: log.audit },
      logger: quiet,
    }
    const auth = createAuth(config)
    return { log, links, browser: () => auditedBrowser(auth) }
  }

  it("emits emailVerified for the new user and signIn with the email method", async () => {
    const { log, links, browser } = emailApp()
    const b = browser()
    await requestLink(b, "lin@example.com")
    const link = links.at(-1)!
    secret(new URL(link).searchParams.get("token")!)
    expect((await openLink(b, link)).status).toBe(302)
    const userId = log.of("signIn")[0]?.userId
    expect(log.events).toEqual([
      { ...fromTheBrowser, type: "emailVerified", outcome: "success", userId },
      { ...fromTheBrowser, type: "signIn", outcome: "success", userId, method: "email", provider: "email", details: { isNewUser: true } },
    ])
  })

  it("that is forged emits signInFailed with the Verification reason", async () => {
    const { log, browser } = emailApp()
    const b = browser()
    await openLink(b, "/auth/callback/email?token=forged-token-of-the-attacker&email=lin%40example.com")
    expect(log.events).toEqual([{ ...fromTheBrowser, type: "signInFailed", outcome: "failure", method: "email", provider: "email", reason: "Verification" }])
  })
})

describe("an OAuth sign-in (the test OP)", () => {
  let op: FakeOP
  beforeAll(async () => {
    op = await FakeOP.start()
  })
  afterAll(() => op.close())
  beforeEach(() => {
    op.reset()
    op.user = { sub: "op-user-1", email: "alice@example.com", email_verified: true, name: "Alice" }
  })

  function oauthApp() {
    const log = auditLog()
    const provider = { id: "alpha", name: "Alpha", type: "oidc", issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>
    secret(op.clientSecret)
    const auth = createAuth({ secret: SECRET, trustHost: true, adapter: MemoryAdapter(), providers: [provider], events: { audit: log.audit }, logger: quiet })
    return { log, browser: () => auditedBrowser(auth) }
  }

  it("emits accountLinked and signIn with the oidc method and the provider's id", async () => {
    const { log, browser } = oauthApp()
    const response = await signInThrough(browser(), "alpha")
    expect(response.status).toBe(302)
    const userId = log.of("signIn")[0]?.userId
    expect(userId).toEqual(expect.any(String))
    expect(log.events).toEqual([
      { ...fromTheBrowser, type: "accountLinked", outcome: "success", userId, method: "oidc", provider: "alpha" },
      { ...fromTheBrowser, type: "signIn", outcome: "success", userId, method: "oidc", provider: "alpha", details: { isNewUser: true } },
    ])
  })

  it("that is a forged callback emits signInFailed with the check's reason", async () => {
    const { log, browser } = oauthApp()
    await deliver(browser(), new URL("http://localhost:3000/auth/callback/alpha?code=stolen-code&state=forged-state"))
    expect(log.events).toEqual([{ ...fromTheBrowser, type: "signInFailed", outcome: "failure", method: "oidc", provider: "alpha", reason: "InvalidCheck" }])
  })
})

describe("a passkey", () => {
  it("emits accountLinked and signIn on sign-up, then accountLinked and passkeyAdded for a second passkey; an unknown one fails", async () => {
    const log = auditLog()
    const auth = createAuth({ secret: SECRET, trustHost: true, adapter: MemoryAdapter(), experimental: { enableWebAuthn: true }, providers: [Passkey], events: { audit: log.audit }, logger: quiet })
    const b = new PasskeyBrowser(auditedTransport(auth), ORIGIN)
    expect((await b.register(new SoftCredential(ORIGIN, "localhost"), { email: "pat@example.com" })).status).toBe(302)
    const userId = log.of("signIn")[0]?.userId
    expect(log.events).toEqual([
      { ...fromTheBrowser, type: "accountLinked", outcome: "success", userId, method: "webauthn", provider: "passkey" },
      { ...fromTheBrowser, type: "signIn", outcome: "success", userId, method: "webauthn", provider: "passkey", details: { isNewUser: true } },
    ])
    expect((await b.register(new SoftCredential(ORIGIN, "localhost"))).status).toBe(302)
    expect(log.types().slice(2, 4)).toEqual(["accountLinked", "passkeyAdded"])
    expect(log.of("passkeyAdded")).toEqual([{ ...fromTheBrowser, type: "passkeyAdded", outcome: "success", userId }])

    const stranger = new PasskeyBrowser(auditedTransport(auth), ORIGIN)
    await stranger.authenticate(new SoftCredential(ORIGIN, "localhost"))
    expect(log.events.at(-1)).toEqual({ ...fromTheBrowser, type: "signInFailed", outcome: "failure", method: "webauthn", provider: "passkey", reason: "WebAuthnVerificationError" })
  })
})

describe("a throwing audit handler", () => {
  it.each([
    ["throws", () => {
      throw new Error("the audit sink is down")
    }],
    ["rejects", async () => {
      throw new Error("the audit sink is down")
    }],
  ])("that %s never breaks the flow: the sign-in goes through and the error is logged", async (_how, handler) => {
    const log = captureLogger()
    const auth = createAuth(credentialsConfig({ events: { audit: handler }, logger: log.logger }))
    const b = auditedBrowser(auth)
    const response = await b.signIn()
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("http://localhost:3000")
    expect(b.sessionCookie()).toBeDefined()
    expect((await b.session()).user.email).toBe("ada@example.com")
    expect(log.lines.some((line) => line.includes("The audit event handler threw"))).toBe(true)
  })
})

describe("no event", () => {
  it("holds a password, code, token, cookie or secret any flow above used", () => {
    expect(everyEvent.length).toBeGreaterThan(30)
    expect(everySecret.size).toBeGreaterThan(10)
    const text = JSON.stringify(everyEvent)
    for (const value of everySecret) expect(text, `an event holds ${value.slice(0, 12)}…`).not.toContain(value)
  })
})
