/**
 * Issue 29, the stored audit trail when things go wrong, and its options: a store that fails
 * or hangs never fails or holds a request, writes O(1) log lines (the first failure with its
 * cause, then one "recovered" line counting the events lost), and the stream still gets every
 * event; `audit.store: false`; background pruning at most once an hour per runtime, handed to
 * `waitUntil`; the query API's errors; the option's checks.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import type { Adapter, AuditEvent } from "@portcullis/core/adapters"
import { AuditTrailUnsupported, InvalidAuditQuery, InvalidRequest } from "@portcullis/core/errors"
import { auditTrail, pruneAuditTrail } from "@portcullis/core/integration"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { ada, Browser, captureLogger, credentialsConfig } from "../helpers.js"
import { auditLog } from "./support.js"

const WRONG = { username: "ada", password: "not the password" }
const quiet = { error: () => {}, warn: () => {}, debug: () => {} }

/** A memory adapter whose audit writes can be made to fail or hang, with its calls counted. */
function faultyStore() {
  const inner = MemoryAdapter()
  const state = { mode: "ok" as "ok" | "fail" | "hang", writes: 0, prunes: [] as Date[] }
  const adapter: Adapter = {
    ...inner,
    async createAuditRecord(record) {
      state.writes++
      if (state.mode === "fail") throw Object.assign(new Error("connect ECONNREFUSED 10.0.0.9:5432"), { code: "ECONNREFUSED" })
      if (state.mode === "hang") return new Promise<void>(() => {})
      return inner.createAuditRecord!(record)
    },
    async deleteAuditRecordsBefore(before) {
      state.prunes.push(before)
      return inner.deleteAuditRecordsBefore!(before)
    },
  }
  return { adapter, state }
}

function app(adapter: Adapter, extra: Partial<AuthConfig> = {}) {
  const log = auditLog()
  const config = credentialsConfig({ adapter, session: { strategy: "jwt" }, rateLimit: false, events: { audit: log.audit }, logger: quiet, ...extra })
  const auth = createAuth(config)
  return { log, config, auth, browser: () => new Browser((request) => auth.handle(request, { clientAddress: "198.51.100.23" }), "http://localhost:3000") }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe("an audit store that fails", () => {
  it("fails no request, logs the first failure with its cause and one recovery counting the events lost, and the stream still gets every event", async () => {
    const { adapter, state } = faultyStore()
    const logs = captureLogger()
    // No pruning here: its success would end the outage early (it is a call to the same store).
    const { log, config, browser } = app(adapter, { logger: logs.logger, audit: { retention: false } })
    state.mode = "fail"
    const b = browser()
    for (let i = 0; i < 30; i++) {
      const response = await b.signIn(WRONG)
      expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("CredentialsSignin")
    }
    const signedIn = await b.signIn(ada)
    expect(signedIn.status).toBe(302)
    expect((await b.session()).user.email).toBe("ada@example.com")
    expect(log.events).toHaveLength(31)
    expect(state.writes).toBe(31)

    // 31 lost writes, one error line (with the driver's error in its chain), no stack per
    // request (the `adapter_*` lines are debug output, one per call).
    const errors = logs.lines.filter((line) => line.includes("ECONNREFUSED"))
    expect(errors).toHaveLength(1)
    expect(logs.lines.filter((line) => !line.startsWith("adapter_")).length).toBeLessThan(3)

    state.mode = "ok"
    await b.signIn(WRONG)
    const recovered = logs.lines.filter((line) => line.includes("store-recovered"))
    expect(recovered).toHaveLength(1)
    expect(recovered[0]).toContain('"store":"audit store"')
    expect(recovered[0]).toContain('"failures":31')
    // Only what came after the outage is stored.
    expect((await auditTrail(config)).records.map((r) => r.id)).toEqual([log.events.at(-1)!.id])
  })

  it("that hangs holds no request longer than adapterTimeout", { timeout: 10_000 }, async () => {
    const { adapter, state } = faultyStore()
    const { log, browser } = app(adapter, { adapterTimeout: 300 })
    state.mode = "hang"
    const started = performance.now()
    const response = await browser().signIn(WRONG)
    expect(response.status).toBe(302)
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(log.types()).toEqual(["signInFailed"])
  })
})

describe("audit.store: false", () => {
  it("keeps the stream only: nothing is written, and what the store holds can still be read", async () => {
    const { adapter, state } = faultyStore()
    const { log, config, browser } = app(adapter, { audit: { store: false } })
    await browser().signIn(WRONG)
    expect(log.types()).toEqual(["signInFailed"])
    expect(state.writes).toBe(0)
    expect(await auditTrail(config)).toEqual({ records: [] })
  })

  it("stores with no app handler at all (the stream is optional, the trail is not)", async () => {
    const { adapter } = faultyStore()
    const config = credentialsConfig({ adapter, session: { strategy: "jwt" }, rateLimit: false, logger: quiet })
    const auth = createAuth(config)
    await new Browser((request) => auth.handle(request)).signIn(WRONG)
    expect((await auditTrail(config)).records.map((r) => [r.type, r.reason])).toEqual([["signInFailed", "CredentialsSignin"]])
  })
})

describe("retention", () => {
  it("prunes in the background, at most once an hour per runtime, through waitUntil, by the retention", async () => {
    const { adapter, state } = faultyStore()
    const handed: Promise<unknown>[] = []
    const { browser } = app(adapter, { audit: { retention: 3_600, waitUntil: (promise) => void handed.push(promise) } })
    const b = browser()
    const before = Date.now()
    for (let i = 0; i < 5; i++) await b.signIn(WRONG)
    await Promise.all(handed)
    expect(state.prunes).toHaveLength(1)
    expect(handed).toHaveLength(1)
    expect(state.prunes[0]!.getTime()).toBeGreaterThanOrEqual(before - 3_600_000)
    expect(state.prunes[0]!.getTime()).toBeLessThanOrEqual(Date.now() - 3_600_000)

    // An hour later the next event prunes again.
    const later = Date.now() + 61 * 60_000
    vi.spyOn(Date, "now").mockReturnValue(later)
    await b.signIn(WRONG)
    await Promise.all(handed)
    expect(state.prunes).toHaveLength(2)
    expect(state.prunes[1]!.getTime()).toBe(later - 3_600_000)
  })

  it("never prunes with retention: false, and pruneAuditTrail deletes what is older than the retention", async () => {
    const { adapter, state } = faultyStore()
    const kept = app(adapter, { audit: { retention: false } })
    await kept.browser().signIn(WRONG)
    expect(state.prunes).toEqual([])
    expect(await pruneAuditTrail(kept.config)).toEqual({ deleted: 0 })

    const old = { id: crypto.randomUUID(), time: new Date(Date.now() - 2 * 86_400_000).toISOString(), type: "signOut", outcome: "success", userId: "u" } as AuditEvent
    await adapter.createAuditRecord!(old)
    const daily = app(adapter, { audit: { retention: 86_400 } })
    expect(await pruneAuditTrail(daily.config)).toEqual({ deleted: 1 })
    expect((await auditTrail(daily.config)).records.map((r) => r.type)).toEqual(["signInFailed"])
  })
})

describe("auditTrail", () => {
  it("refuses a malformed query with InvalidAuditQuery, an InvalidRequest (a 400), before the store is asked", async () => {
    const { adapter } = faultyStore()
    const listed = vi.spyOn(adapter, "listAuditRecords")
    const { config } = app(adapter)
    for (const query of [{ cursor: "forged" }, { type: "nope" }, { limit: 0 }, { since: "not a date" }] as const) {
      const error = await auditTrail(config, query as never).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(InvalidAuditQuery)
      expect(error).toBeInstanceOf(InvalidRequest)
      expect((error as InvalidAuditQuery).type).toBe("InvalidAuditQuery")
    }
    expect(listed).not.toHaveBeenCalled()
  })

  it("throws AuditTrailUnsupported for an adapter without the capability, and for no adapter", async () => {
    const { createAuditRecord, listAuditRecords, deleteAuditRecordsBefore, ...withoutAudit } = MemoryAdapter()
    void [createAuditRecord, listAuditRecords, deleteAuditRecordsBefore]
    const lacking = app(withoutAudit)
    await expect(auditTrail(lacking.config)).rejects.toBeInstanceOf(AuditTrailUnsupported)
    await expect(pruneAuditTrail(lacking.config)).rejects.toThrow(/createAuditRecord, listAuditRecords, deleteAuditRecordsBefore/)
    // The stream goes on without a store.
    await lacking.browser().signIn(WRONG)
    expect(lacking.log.types()).toEqual(["signInFailed"])
    await expect(auditTrail(credentialsConfig({ logger: quiet }))).rejects.toBeInstanceOf(AuditTrailUnsupported)
  })
})

describe("the audit option", () => {
  it.each([
    ["a string", "yes", /audit must be an object/],
    ["a store that is no boolean", { store: "no" }, /audit.store must be a boolean/],
    ["a retention in milliseconds by mistake (under a minute)", { retention: 30 }, /audit.retention must be a number of seconds of at least 60/],
    ["a retention that is no number", { retention: "90d" }, /audit.retention/],
    ["a waitUntil that is no function", { waitUntil: true }, /audit.waitUntil/],
  ])("refuses %s as a configuration error", async (_what, audit, message) => {
    const config = credentialsConfig({ adapter: MemoryAdapter(), audit: audit as never, logger: quiet })
    const response = await createAuth(config).handle(new Request("http://localhost:3000/auth/session"))
    expect(response.status).toBe(500)
    await expect(auditTrail(config)).rejects.toThrow(message)
  })
})
