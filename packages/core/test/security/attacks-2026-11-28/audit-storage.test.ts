/**
 * Attacks on the stored audit trail's capacity and availability (issue 29): a query whose
 * filter matches little made to read the whole trail; an audit store that hangs or is down
 * while sign-ins go on (a real Redis client and a real PostgreSQL pool aimed at a socket that
 * never answers); two runtimes pruning one store while 50 writers and a reader race them; and
 * what a refused sign-in for an account that does not exist leaves at rest.
 */
import { createServer, type Server } from "node:net"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import type { Adapter, AuditEvent, AuditQuery } from "@portcullis/core/adapters"
import { auditTrail, pruneAuditTrail } from "@portcullis/core/integration"
import Password from "@portcullis/core/providers/password"
import { postgresService, redisService } from "@portcullis/adapter-test"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { createRedisClient, RedisAdapter } from "@portcullis/redis-adapter"
import { createPostgresKysely, SqlAdapter } from "@portcullis/sql-adapter"
import { Browser, SECRET } from "../../helpers.js"
import { LIGHT, passwordSignIn, seedUser } from "../../password/support.js"
import { gates, onEveryBackend, onRedis, type Backend } from "./audit-backends.js"
import { everyPage } from "../../audit/support.js"

const quiet = { error: () => {}, warn: () => {}, debug: () => {} }

function record(fields: Partial<AuditEvent> = {}, at = Date.now()): AuditEvent {
  return { id: crypto.randomUUID(), time: new Date(at).toISOString(), type: "signInFailed", outcome: "failure", reason: "CredentialsSignin", ...fields } as AuditEvent
}

/** A TCP server on loopback that accepts and never answers: a store that hangs. */
async function blackhole(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<import("node:net").Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on("error", () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

onRedis((open) => {
  describe("a query whose filter matches little, on Redis", () => {
    let backend: Backend
    beforeAll(async () => {
      backend = await open()
    })
    afterAll(() => backend?.close())

    it("does not read the whole trail: two rare types among 2,000 common records cost a bounded number of reads", { timeout: 60_000 }, async () => {
      const adapter = backend.adapter
      const base = Date.now() - 3_600_000
      await adapter.createAuditRecord!(record({ type: "stepUp", outcome: "success", userId: "u1", method: "password" } as Partial<AuditEvent>, base))
      await adapter.createAuditRecord!(record({ type: "emailVerified", outcome: "success", userId: "u2" } as Partial<AuditEvent>, base + 1))
      const many: Promise<void>[] = []
      for (let i = 0; i < 2_000; i++) many.push(adapter.createAuditRecord!(record({}, base + 10 + i)))
      await Promise.all(many)

      const client = backend.redis!
      const ranges = vi.spyOn(client, "zrevrangebylex")
      const reads = vi.spyOn(client, "mget")
      try {
        const page = await adapter.listAuditRecords!({ type: ["stepUp", "emailVerified"], limit: 1 })
        expect(page.records.map((r) => r.type)).toEqual(["emailVerified"])
        const next = await adapter.listAuditRecords!({ type: ["stepUp", "emailVerified"], limit: 1, cursor: page.next })
        expect(next.records.map((r) => r.type)).toEqual(["stepUp"])
        expect(next.next).toBeUndefined()
        // Two pages of one record: a handful of round trips and records, not 2,000.
        const keysRead = reads.mock.calls.reduce((sum, call) => sum + call.length, 0)
        expect(keysRead, "records read for two one-record pages").toBeLessThanOrEqual(8)
        expect(ranges.mock.calls.length).toBeLessThanOrEqual(6)
      } finally {
        ranges.mockRestore()
        reads.mockRestore()
      }
    })
  })
})

describe("an audit store that hangs or is down", () => {
  /** A password app whose users live in memory and whose audit capability is `audit`'s. */
  async function appWith(audit: Pick<Adapter, "createAuditRecord" | "listAuditRecords" | "deleteAuditRecordsBefore">) {
    const memory = MemoryAdapter()
    const errors: unknown[] = []
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: false,
      trustedOrigins: ["http://localhost:3000"],
      // Users in memory; only the audit capability on the failing store.
      adapter: { ...memory, createAuditRecord: audit.createAuditRecord, listAuditRecords: audit.listAuditRecords, deleteAuditRecordsBefore: audit.deleteAuditRecordsBefore },
      adapterTimeout: 500,
      providers: [Password({ hashing: LIGHT })],
      rateLimit: false,
      logger: { error: (e) => void errors.push(e), warn: () => {}, debug: () => {} },
    }
    const auth = createAuth(config)
    const email = `down-${crypto.randomUUID().slice(0, 8)}@example.com`
    await seedUser(memory, { email, password: "the right passphrase of this user" })
    const signIn = async (password: string) => {
      const browser = new Browser((request) => auth.handle(request, { clientAddress: "203.0.113.5" }))
      await browser.csrfToken()
      const started = performance.now()
      const result = await passwordSignIn(browser, { email, password })
      return { ...result, ms: performance.now() - started }
    }
    return { signIn, errors, config }
  }

  function timeAndOutcome(stores: () => Promise<{ audit: Parameters<typeof appWith>[0]; close(): Promise<void> }>) {
    it("signs in and refuses as usual, each within adapterTimeout and a margin, and logs the audit store's outage", { timeout: 30_000 }, async () => {
      const { audit, close } = await stores()
      try {
        const { signIn, errors } = await appWith(audit)
        const good = await signIn("the right passphrase of this user")
        expect(good.error).toBeNull()
        expect(good.location).toBe("http://localhost:3000")
        const bad = await signIn("a wrong guess")
        expect(bad.error).toBe("CredentialsSignin")
        for (const ms of [good.ms, bad.ms]) expect(ms).toBeLessThan(500 + 1_500)
        expect(errors.length).toBeGreaterThanOrEqual(1)
        expect(errors.map((e) => (e as { type?: string }).type)).toContain("AdapterError")
      } finally {
        await close()
      }
    })
  }

  gates.redis.describe("a real Redis client aimed at a socket that never answers", () => {
    timeAndOutcome(async () => {
      const hole = await blackhole()
      const url = new URL(redisService().url)
      url.port = String(hole.port)
      const client = createRedisClient(url.toString(), { commandTimeoutMs: 30_000, logger: { error() {}, warn() {} } })
      return {
        audit: RedisAdapter(client, { prefix: "pcl-audit-hole:" }),
        close: async () => {
          client.disconnect()
          await hole.close()
        },
      }
    })
  })

  gates.postgres.describe("a real PostgreSQL pool aimed at a socket that never answers", () => {
    timeAndOutcome(async () => {
      const hole = await blackhole()
      const url = new URL(postgresService().url)
      url.port = String(hole.port)
      const db = createPostgresKysely(url.toString())
      return {
        audit: SqlAdapter(db, { auditTrail: true }),
        close: async () => {
          await hole.close()
          await db.destroy().catch(() => {})
        },
      }
    })
  })

  gates.postgres.describe("a real PostgreSQL pool aimed at a port nothing listens on", () => {
    timeAndOutcome(async () => {
      const hole = await blackhole()
      await hole.close()
      const url = new URL(postgresService().url)
      url.port = String(hole.port)
      const db = createPostgresKysely(url.toString())
      return { audit: SqlAdapter(db, { auditTrail: true }), close: () => db.destroy().catch(() => {}) }
    })
  })
})

onEveryBackend((label, open) => {
  describe(`two runtimes pruning one ${label} store while 50 writers and a reader race them`, () => {
    let backend: Backend
    beforeAll(async () => {
      backend = await open()
    })
    afterAll(() => backend?.close())

    it("deletes every expired record exactly once between them, keeps every fresh one, and pages without a duplicate", { timeout: 60_000 }, async () => {
      const tag = crypto.randomUUID().slice(0, 8)
      const common = { secret: SECRET, adapter: backend.adapter, providers: [Password({ hashing: LIGHT })], logger: quiet, audit: { retention: 3_600 } } satisfies AuthConfig
      const one: AuthConfig = { ...common }
      const two: AuthConfig = { ...common }
      const expired: AuditEvent[] = []
      for (let i = 0; i < 150; i++) expired.push(record({ userId: `old-${tag}` }, Date.now() - 7_200_000 - i))
      for (const r of expired) await backend.adapter.createAuditRecord!(r)

      const fresh = Array.from({ length: 50 }, (_, i) => record({ userId: `new-${tag}` }, Date.now() - i))
      const pages: AuditEvent[][] = []
      const read = (async () => {
        let page = await auditTrail(one, { limit: 7 })
        pages.push(page.records)
        while (page.next) {
          page = await auditTrail(two, { limit: 7, cursor: page.next })
          pages.push(page.records)
        }
      })()
      const [a, b] = await Promise.all([pruneAuditTrail(one), pruneAuditTrail(two), ...fresh.map((r) => backend.adapter.createAuditRecord!(r)), read])
      const deleted = (a as { deleted: number }).deleted + (b as { deleted: number }).deleted

      expect(deleted, "records deleted, counted across both runtimes").toBe(expired.length)
      expect(await everyPage(one, { userId: `old-${tag}` })).toEqual([])
      expect((await everyPage(two, { userId: `new-${tag}` })).map((r) => r.id).sort()).toEqual(fresh.map((r) => r.id).sort())
      const ids = pages.flat().map((r) => r.id)
      expect(new Set(ids).size, "a record listed twice while paging").toBe(ids.length)
      // Pages are in the trail's order across page boundaries.
      const times = pages.flat().map((r) => Date.parse(r.time))
      expect([...times].sort((x, y) => y - x)).toEqual(times)
    })
  })

  describe(`50 concurrent forged sign-ins and two runtimes' background prunes on ${label}`, () => {
    let backend: Backend
    beforeAll(async () => {
      backend = await open()
    })
    afterAll(() => backend?.close())

    it("store one record each, none twice, while both runtimes prune in the background without an error", { timeout: 60_000 }, async () => {
      const tag = crypto.randomUUID().slice(0, 8)
      for (let i = 0; i < 40; i++) await backend.adapter.createAuditRecord!(record({ userId: `stale-${tag}` }, Date.now() - 7_200_000 - i))
      const errors: unknown[] = []
      const waited: Promise<unknown>[] = []
      const runtime = () => {
        const config: AuthConfig = {
          secret: SECRET,
          trustHost: false,
          trustedOrigins: ["http://localhost:3000"],
          adapter: backend.adapter,
          providers: [Password({ hashing: LIGHT })],
          rateLimit: false,
          audit: { retention: 3_600, waitUntil: (promise) => void waited.push(promise) },
          logger: { error: (e) => void errors.push(e), warn: () => {}, debug: () => {} },
        }
        return { config, auth: createAuth(config) }
      }
      const one = runtime()
      const two = runtime()
      const agent = `forger-${tag}`
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => {
          const { auth } = i % 2 ? one : two
          const browser = new Browser(async (request) => {
            const headers = new Headers(request.headers)
            headers.set("user-agent", agent)
            return auth.handle(new Request(request, { headers }), { clientAddress: `203.0.113.${i + 1}` })
          })
          return passwordSignIn(browser, { email: `nobody-${i}@example.com`, password: "a forged guess" })
        }),
      )
      // Each runtime started one background prune, handed to waitUntil.
      expect(waited).toHaveLength(2)
      await Promise.all(waited)
      expect(errors).toEqual([])
      const forged = (await everyPage(one.config, { type: "signInFailed", since: new Date(Date.now() - 60_000) })).filter((r) => r.userAgent === agent)
      expect(forged).toHaveLength(50)
      expect(new Set(forged.map((r) => r.id)).size).toBe(50)
      expect(new Set(forged.map((r) => r.ip)).size).toBe(50)
      expect(await everyPage(two.config, { userId: `stale-${tag}` })).toEqual([])
    })
  })

  describe(`a prune bound that is no date on ${label}`, () => {
    let backend: Backend
    beforeAll(async () => {
      backend = await open()
    })
    afterAll(() => backend?.close())

    it("is refused alike on every store (PostgreSQL fails on it) and deletes nothing", async () => {
      const kept = [record({ userId: "keep-me" }, Date.now() - 1_000), record({ userId: "keep-me" }, Date.now() - 86_400_000)]
      for (const r of kept) await backend.adapter.createAuditRecord!(r)
      for (const before of [new Date(Number.NaN), new Date("yesterday"), null, undefined, "2026-01-01", 0]) {
        await expect(Promise.resolve().then(() => backend.adapter.deleteAuditRecordsBefore!(before as Date)), String(before)).rejects.toThrow()
      }
      expect((await backend.adapter.listAuditRecords!({ userId: "keep-me" })).records).toHaveLength(2)
    })
  })

  describe(`a query for several types on ${label}`, () => {
    let backend: Backend
    beforeAll(async () => {
      backend = await open()
    })
    afterAll(() => backend?.close())

    it("pages through exactly the records of those types, newest first, across page boundaries and ties in time", async () => {
      const config: AuthConfig = { secret: SECRET, adapter: backend.adapter, providers: [Password({ hashing: LIGHT })], logger: quiet }
      const base = Date.now() - 600_000
      const types = ["signOut", "stepUp", "signInFailed", "emailVerified"] as const
      const written: AuditEvent[] = []
      // Four types interleaved, several records sharing a millisecond.
      for (let i = 0; i < 60; i++) written.push(record({ type: types[i % 4], outcome: "success" } as Partial<AuditEvent>, base + Math.floor(i / 3)))
      await Promise.all(written.map((r) => backend.adapter.createAuditRecord!(r)))
      const asked = ["stepUp", "emailVerified"] as const
      const expected = written
        .filter((r) => (asked as readonly string[]).includes(r.type))
        .sort((a, b) => Date.parse(b.time) - Date.parse(a.time) || (a.id < b.id ? 1 : -1))
        .map((r) => r.id)
      for (const limit of [1, 4, 7, 100]) {
        const ids: string[] = []
        let page = await auditTrail(config, { type: [...asked], since: new Date(base), limit })
        ids.push(...page.records.map((r) => r.id))
        while (page.next) {
          page = await auditTrail(config, { type: [...asked], since: new Date(base), limit, cursor: page.next })
          ids.push(...page.records.map((r) => r.id))
        }
        expect(ids, `limit ${limit}`).toEqual(expected)
      }
    })
  })

  describe(`what a refused sign-in for an unknown account leaves at rest on ${label}`, () => {
    let backend: Backend
    beforeAll(async () => {
      backend = await open()
    })
    afterAll(() => backend?.close())

    it("no stored record holds the identifier typed, nor a password guessed, even after a lockout", async () => {
      const config: AuthConfig = { secret: SECRET, trustHost: false, trustedOrigins: ["http://localhost:3000"], adapter: backend.adapter, providers: [Password({ hashing: LIGHT })], rateLimit: {}, logger: quiet }
      const auth = createAuth(config)
      const typed = `Nobody.Here-${crypto.randomUUID().slice(0, 8)}@Example.com`
      const guess = `guess-${crypto.randomUUID()}`
      for (let i = 0; i < 7; i++) {
        const browser = new Browser((request) => auth.handle(request, { clientAddress: "198.51.100.77" }))
        await passwordSignIn(browser, { email: typed, password: guess })
      }
      const stored = await everyPage(config, { since: new Date(Date.now() - 60_000) })
      const mine = stored.filter((r) => r.ip === "198.51.100.77")
      expect(new Set(mine.map((r) => r.type))).toEqual(new Set(["signInFailed", "lockout"]))
      const text = JSON.stringify(mine).toLowerCase()
      for (const value of [typed.toLowerCase(), typed.split("@")[0]!.toLowerCase(), guess]) expect(text).not.toContain(value)
      // The lockout groups by a keyed hash, the same for every spelling of the address.
      const hashes = new Set(mine.filter((r) => r.type === "lockout").map((r) => (r.details as { identifier?: string }).identifier))
      expect(hashes.size).toBe(1)
      expect([...hashes][0]).toMatch(/^[0-9a-f]{32}$/)
    })
  })
})
