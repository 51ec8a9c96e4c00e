/**
 * Attacks on the stored audit trail (issue 29) through what an attacker writes into it or
 * asks of it: SQL and Redis-key payloads in every recorded field a client controls (its user
 * agent, a user id an app lets it choose) and in every query field an app may pass straight
 * from a request (`userId`, `type`, dates, `limit`, `cursor`); forged, tampered and replayed
 * cursors. On memory, SQLite, and the real PostgreSQL and Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import { auditCursor, type AuditEvent, type AuditQuery } from "@portcullis/core/adapters"
import { auditTrail, resetTwoFactor } from "@portcullis/core/integration"
import Password from "@portcullis/core/providers/password"
import { Browser, SECRET } from "../../helpers.js"
import { LIGHT, passwordSignIn, seedUser } from "../../password/support.js"
import { onEveryBackend, type Backend } from "./audit-backends.js"
import { everyPage } from "../../audit/support.js"

const quiet = { error: () => {}, warn: () => {}, debug: () => {} }

/** Payloads that mean something to SQL, to Redis key patterns and to a log reader. */
const PAYLOADS = [
  "' OR '1'='1",
  "x'); DELETE FROM audit_records; --",
  "\\'; DROP TABLE audit_records; --",
  "%",
  "_",
  "*",
  "[a-z]*",
  "audit-all",
  "a:b",
  "..:audit-all",
  "{tag}",
  "line\r\nFLUSHALL\r\n",
  "\u202eevil\u2066",
  "😈".repeat(40),
]

/** An audit record as `audit()` writes them, with `fields` over it. */
function record(fields: Partial<AuditEvent> & { type?: AuditEvent["type"] } = {}, at = Date.now()): AuditEvent {
  return { id: crypto.randomUUID(), time: new Date(at).toISOString(), type: "signIn", outcome: "success", ...fields } as AuditEvent
}

/** What `call` threw, as its `type` (or the error itself when it has none). */
async function refusal(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call()
  } catch (error) {
    return (error as { type?: string }).type ?? error
  }
  return "not refused"
}

onEveryBackend((label, open) => {
  let backend: Backend
  let config: AuthConfig
  beforeAll(async () => {
    backend = await open()
    config = { secret: SECRET, trustHost: false, trustedOrigins: ["http://localhost:3000"], adapter: backend.adapter, providers: [Password({ hashing: LIGHT })], rateLimit: false, logger: quiet }
  })
  afterAll(() => backend?.close())

  describe(`injection through recorded fields (${label})`, () => {
    it("a user agent of SQL and key payloads is stored verbatim (cut at 512) from a refused sign-in, and the trail is intact", async () => {
      const auth = createAuth(config)
      const email = `ua-${crypto.randomUUID().slice(0, 8)}@example.com`
      await seedUser(backend.adapter, { email, password: "the right passphrase of this user" })
      const before = (await everyPage(config)).length
      const agents = PAYLOADS.filter((p) => !/[\r\n\u0080-\uffff]/.test(p)).concat(["x".repeat(600) + "' OR 1=1 --"])
      for (const agent of agents) {
        const browser = new Browser(async (request) => {
          const headers = new Headers(request.headers)
          headers.set("user-agent", agent)
          return auth.handle(new Request(request, { headers }), { clientAddress: "203.0.113.9" })
        })
        expect((await passwordSignIn(browser, { email, password: "a wrong guess" })).error).toBe("CredentialsSignin")
      }
      const stored = await everyPage(config, { type: "signInFailed" })
      const mine = stored.filter((r) => r.ip === "203.0.113.9" && agents.some((a) => a.slice(0, 512) === r.userAgent))
      expect(mine.map((r) => r.userAgent).sort()).toEqual(agents.map((a) => a.slice(0, 512)).sort())
      // Nothing was deleted or dropped: every earlier record is still there, and the new ones.
      expect((await everyPage(config)).length).toBe(before + agents.length)
    })

    it("user ids, actors and reasons of payloads (an app's ids may be anything) are stored verbatim and each read back under its own id only", async () => {
      const written = PAYLOADS.map((payload) => record({ type: "twoFactorReset", userId: payload, actor: payload, reason: payload, details: { wasEnabled: true, sessionsRevoked: 0 } } as Partial<AuditEvent>))
      for (const r of written) await backend.adapter.createAuditRecord!(r)
      for (const r of written) {
        const found = await everyPage(config, { userId: r.userId })
        expect(found, `userId ${JSON.stringify(r.userId)}`).toEqual([r])
      }
    })
  })

  describe(`a NUL in a support action's reason or actor (${label})`, () => {
    it("is refused by resetTwoFactor before anything changes, so no store loses the reset's record", async () => {
      const twoFactorConfig: AuthConfig = { ...config, twoFactor: {} }
      const user = await seedUser(backend.adapter, { email: `nul-${crypto.randomUUID().slice(0, 8)}@example.com`, password: "the right passphrase of this user" })
      await backend.adapter.setTwoFactor!({ userId: user.id, secret: "sealed-secret", enabled: true, lastUsedStep: null, backupCodes: [] })
      for (const input of [{ reason: "lost phone\u0000", actor: "support-1" }, { reason: "lost phone", actor: "support\u0000-1" }]) {
        await expect(resetTwoFactor({ userId: user.id, ...input }, twoFactorConfig)).rejects.toThrow(/without NUL/)
      }
      expect(await backend.adapter.getTwoFactor!(user.id)).not.toBeNull()
      // And the reset with a clean reason is stored on every backend.
      await resetTwoFactor({ userId: user.id, reason: "lost phone,\nidentity checked", actor: "support-1" }, twoFactorConfig)
      expect((await everyPage(config, { userId: user.id, type: "twoFactorReset" })).map((r) => r.reason)).toEqual(["lost phone,\nidentity checked"])
    })
  })

  describe(`injection through query fields (${label})`, () => {
    it("a userId filter of payloads matches only a user of exactly that id: no pattern, no wildcard, no other key", async () => {
      const victim = record({ userId: `victim-${crypto.randomUUID()}` })
      await backend.adapter.createAuditRecord!(victim)
      for (const payload of [...PAYLOADS, "victim-%", "victim-*", `${victim.userId!.slice(0, -1)}_`, `${victim.userId!.slice(0, -1)}?`, `${victim.userId} `, victim.userId!.toUpperCase()]) {
        const found = await everyPage(config, { userId: `${payload}-nobody-has-this` })
        expect(found).toEqual([])
        if (!PAYLOADS.includes(payload)) expect(await everyPage(config, { userId: payload }), JSON.stringify(payload)).toEqual([])
      }
      expect(await everyPage(config, { userId: victim.userId })).toEqual([victim])
    })

    it("a type, userId, date or limit that is not one is InvalidAuditQuery before the store, never a store error or a wider answer", async () => {
      const hostile: unknown[] = [
        { type: "signIn' OR '1'='1" },
        { type: ["signIn", "*"] },
        { type: ["signIn", { toString: () => "signIn" }] },
        { type: [] },
        { type: { 0: "signIn", length: 1 } },
        { userId: { $ne: null } },
        { userId: ["a", "b"] },
        { userId: "" },
        // PostgreSQL fails a query holding NUL ("invalid byte sequence"): a 500 from `?user=%00`.
        { userId: "victim\u0000" },
        { userId: 42 },
        { since: "yesterday; DROP TABLE audit_records" },
        { since: 0 },
        { until: {} },
        { since: new Date(Number.NaN) },
        { limit: -1 },
        { limit: 0 },
        { limit: Number.NaN },
        { limit: Number.POSITIVE_INFINITY },
        { limit: "10" },
        { limit: 1.5 },
        { limit: "1; DROP TABLE audit_records" },
        null,
        "userId=1",
      ]
      for (const query of hostile) {
        expect(await refusal(() => auditTrail(config, query as AuditQuery)), JSON.stringify(query)).toBe("InvalidAuditQuery")
        // An adapter asked directly (an app calling it, not through auditTrail) refuses the same way.
        expect(await refusal(() => backend.adapter.listAuditRecords!(query as AuditQuery)), JSON.stringify(query)).toBe("InvalidAuditQuery")
      }
    })

    it("the refusal's message echoes none of the input, so a log line of it cannot be forged or flooded", async () => {
      const marker = "\r\n[auth][error] forged line DROP"
      for (const query of [{ type: marker }, { userId: { marker } }, { since: marker }, { limit: marker }, { cursor: marker }, { cursor: "A".repeat(5_000) }]) {
        const error = await auditTrail(config, query as unknown as AuditQuery).then(() => undefined, (e: Error) => e)
        expect(error?.message).toBeTypeOf("string")
        expect(error!.message).not.toContain("DROP")
        expect(error!.message).not.toMatch(/[\r\n]/)
        expect(error!.message.length).toBeLessThan(120)
      }
    })

    it("a huge limit is clamped to 100, and extreme but valid dates answer without a store error", async () => {
      for (let i = 0; i < 105; i++) await backend.adapter.createAuditRecord!(record({ type: "emailVerified", userId: "clamp-user" } as Partial<AuditEvent>, Date.now() - i))
      const page = await auditTrail(config, { userId: "clamp-user", limit: 1e12 })
      expect(page.records).toHaveLength(100)
      expect(page.next).toBeDefined()
      expect((await auditTrail(config, { userId: "clamp-user", limit: Number.MAX_SAFE_INTEGER })).records).toHaveLength(100)
      // The widest dates a Date can hold, and a range that is empty.
      const first = new Date(-8.64e15)
      const last = new Date(8.64e15)
      expect((await auditTrail(config, { userId: "clamp-user", since: first, until: last, limit: 100 })).records).toHaveLength(100)
      expect((await auditTrail(config, { userId: "clamp-user", since: last })).records).toEqual([])
      expect((await auditTrail(config, { userId: "clamp-user", until: first })).records).toEqual([])
      expect((await auditTrail(config, { userId: "clamp-user", since: new Date(), until: new Date(0) })).records).toEqual([])
    })
  })

  describe(`cursor attacks (${label})`, () => {
    let alice: AuditEvent[]
    let bob: AuditEvent[]
    beforeAll(async () => {
      // Interleaved in time, so a position in Alice's trail is also one in Bob's.
      const base = Date.now() - 60_000
      alice = []
      bob = []
      for (let i = 0; i < 12; i++) {
        const a = record({ userId: `alice-${label}` }, base + i * 10)
        const b = record({ userId: `bob-${label}`, type: "signOut" } as Partial<AuditEvent>, base + i * 10 + 5)
        alice.push(a)
        bob.push(b)
        await backend.adapter.createAuditRecord!(a)
        await backend.adapter.createAuditRecord!(b)
      }
    })

    it("a cursor from Alice's query, replayed with Bob's filter, reads on in Bob's trail only: a position, not a permission to skip a filter", async () => {
      const first = await auditTrail(config, { userId: `alice-${label}`, limit: 5 })
      expect(first.next).toBeDefined()
      const replayed = await everyPage(config, { userId: `bob-${label}`, cursor: first.next })
      const position = Date.parse(first.records.at(-1)!.time)
      expect(replayed.every((r) => r.userId === `bob-${label}`)).toBe(true)
      expect(replayed.map((r) => r.id)).toEqual(bob.filter((r) => Date.parse(r.time) < position).reverse().map((r) => r.id))
      // And with a type filter: the cursor does not carry or widen the type.
      expect((await everyPage(config, { type: "signIn", cursor: first.next })).every((r) => r.type === "signIn")).toBe(true)
    })

    it("every one-character change, truncation, padding or re-encoding of a cursor is refused, never read as another position", async () => {
      const { next } = await auditTrail(config, { userId: `alice-${label}`, limit: 3 })
      const cursor = next!
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
      const forged = new Set<string>()
      for (let i = 0; i < cursor.length; i++) {
        for (const c of [alphabet[(alphabet.indexOf(cursor[i]!) + 1) % 64]!, alphabet[(alphabet.indexOf(cursor[i]!) + 37) % 64]!]) forged.add(cursor.slice(0, i) + c + cursor.slice(i + 1))
        forged.add(cursor.slice(0, i) + cursor.slice(i + 1))
      }
      for (const variant of [cursor.slice(0, -1), `${cursor}=`, `${cursor}==`, `${cursor}A`, cursor.replace(/-/g, "+").replace(/_/g, "/"), ` ${cursor}`, `${cursor}\n`, encodeURIComponent(`${cursor}=`), cursor.toUpperCase()]) forged.add(variant)
      forged.delete(cursor)
      let refused = 0
      for (const variant of forged) {
        const outcome = await refusal(() => auditTrail(config, { userId: `alice-${label}`, cursor: variant }))
        // A base64 change in the last character's padding bits may decode to the same text:
        // then the canonical re-encoding check refuses it too.
        expect(outcome, `cursor ${variant} was read`).toBe("InvalidAuditQuery")
        refused++
      }
      expect(refused).toBe(forged.size)
    })

    it("oversized, non-string and non-base64 cursors are refused before the store, on the adapter too", async () => {
      const payloads: unknown[] = ["A".repeat(201), "A".repeat(100_000), btoa("1.x.0").repeat(50), "", "💥", "%00", "../", 12, {}, ["a"], { toString: () => "x" }, btoa("' OR 1=1 --")]
      for (const cursor of payloads) {
        expect(await refusal(() => auditTrail(config, { cursor } as AuditQuery))).toBe("InvalidAuditQuery")
        expect(await refusal(() => backend.adapter.listAuditRecords!({ cursor } as AuditQuery))).toBe("InvalidAuditQuery")
      }
    })

    it("a cursor forged with a valid checksum is only a position: at the ends of time it answers all or nothing, never another filter's records", async () => {
      const oldest = auditCursor({ time: new Date(0).toISOString(), id: "0" })
      const newest = auditCursor({ time: new Date(999_999_999_999_999).toISOString(), id: "z".repeat(64) })
      expect(await everyPage(config, { userId: `alice-${label}`, cursor: oldest })).toEqual([])
      expect((await everyPage(config, { userId: `alice-${label}`, cursor: newest })).map((r) => r.id)).toEqual([...alice].reverse().map((r) => r.id))
    })
  })
})
