/**
 * Conformance specs of the audit capability (issue 29): `createAuditRecord`,
 * `listAuditRecords`, `deleteAuditRecordsBefore`. Registered by `runAdapterConformance`
 * when the factory says `auditTrail: true`.
 *
 * The suite shares one store across specs (and a database may keep rows of earlier specs),
 * so each spec reads only what it wrote: its own user id, or a time window of its own.
 * @module
 */
import { describe, expect } from "vitest"
import type { Adapter, AuditEvent, AuditEventType, AuditPage, AuditQuery } from "@portcullis/core/adapters"

type AuditMethods = Required<Pick<Adapter, "createAuditRecord" | "listAuditRecords" | "deleteAuditRecordsBefore">>
type Spec = (title: string, body: () => Promise<void> | void) => unknown

/** A fresh user id, so a spec's records are only its own. */
const someone = () => `audit-user-${crypto.randomUUID()}`

/** A stored event as `audit()` makes them: only `type`, `userId` and `time` vary here. */
function event(userId: string, time: number, type: AuditEventType = "signOut", id: string = crypto.randomUUID()): AuditEvent {
  return { id, time: new Date(time).toISOString(), type, outcome: "success", userId } as AuditEvent
}

/** Every record the query matches, page by page (`limit` each), in the order the pages gave them. */
async function readAll(adapter: AuditMethods, query: AuditQuery): Promise<{ records: AuditEvent[]; pages: number }> {
  const records: AuditEvent[] = []
  let page: AuditPage = await adapter.listAuditRecords(query)
  let pages = 1
  records.push(...page.records)
  while (page.next) {
    page = await adapter.listAuditRecords({ ...query, cursor: page.next })
    pages++
    records.push(...page.records)
    if (pages > 1000) throw new Error("the pages never end")
  }
  return { records, pages }
}

/** The trail's order: newer first, and for one time the larger id first. */
function sortedNewestFirst(records: AuditEvent[]): AuditEvent[] {
  return [...records].sort((a, b) => Date.parse(b.time) - Date.parse(a.time) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
}

/** An `InvalidAuditQuery`: the type every store throws for a bad query, a 400 where an app passes it on. */
async function expectRefused(promise: Promise<unknown> | unknown): Promise<void> {
  const error = await Promise.resolve(promise).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error, "the query was not refused").toBeInstanceOf(Error)
  expect((error as { type?: string }).type).toBe("InvalidAuditQuery")
}

export function auditTrailSpecs(adapter: () => AuditMethods, it: Spec): void {
  const a = adapter
  const now = Date.now()

  describe("createAuditRecord / listAuditRecords (Portcullis audit extension)", () => {
    it("stores exactly the event's fields and reads them back, absent fields absent", async () => {
      const userId = someone()
      const full: AuditEvent = {
        id: crypto.randomUUID(),
        time: new Date(now - 5_000).toISOString(),
        type: "twoFactorReset",
        outcome: "success",
        userId,
        actor: "support-agent-7",
        ip: "2001:db8::17",
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) ünïcødé \"quoted\"",
        reason: "lost phone, checked by video call",
        details: { wasEnabled: true, sessionsRevoked: 3 },
      }
      const bare: AuditEvent = { id: crypto.randomUUID(), time: new Date(now - 4_000).toISOString(), type: "signInFailed", outcome: "failure", userId, method: "password", provider: "password", reason: "CredentialsSignin" }
      await a().createAuditRecord(full)
      await a().createAuditRecord(bare)
      const page = await a().listAuditRecords({ userId })
      expect(page.records).toEqual([bare, full])
      expect(page.next).toBeUndefined()
      for (const record of page.records) expect(Object.values(record)).not.toContain(null)
    })

    it("keeps one record for an id written twice", async () => {
      const userId = someone()
      const record = event(userId, now - 3_000)
      await a().createAuditRecord(record)
      await a().createAuditRecord(record)
      expect((await a().listAuditRecords({ userId })).records).toEqual([record])
    })

    it("lists a user's records newest first, by time and then id, and no one else's", async () => {
      const userId = someone()
      const other = someone()
      const sameTime = now - 60_000
      const records = [event(userId, now - 120_000), event(userId, sameTime), event(userId, sameTime), event(userId, sameTime), event(userId, now - 1_000)]
      for (const record of [...records].reverse()) await a().createAuditRecord(record)
      await a().createAuditRecord(event(other, now - 30_000))
      expect((await a().listAuditRecords({ userId })).records).toEqual(sortedNewestFirst(records))
    })

    it("orders ids of one time byte by byte, case and punctuation included, and pages through them", async () => {
      const userId = someone()
      const at = now - 70_000
      // A locale's collation would put "a" before "B" and skip "-" and "_": the cursor compares bytes.
      const suffix = crypto.randomUUID().slice(0, 8)
      const records = ["B", "a", "-a", "_a", "A", "0", "z-", "Z_"].map((prefix) => event(userId, at, "signOut", `${prefix}${suffix}`))
      for (const record of records) await a().createAuditRecord(record)
      const expected = sortedNewestFirst(records)
      expect((await a().listAuditRecords({ userId })).records).toEqual(expected)
      expect((await readAll(a(), { userId, limit: 1 })).records).toEqual(expected)
    })

    it("lists by one type or by several", async () => {
      const userId = someone()
      const signIn = event(userId, now - 3_000, "signIn")
      const failed = event(userId, now - 2_000, "signInFailed")
      const signOut = event(userId, now - 1_000, "signOut")
      for (const record of [signIn, failed, signOut]) await a().createAuditRecord(record)
      expect((await a().listAuditRecords({ userId, type: "signInFailed" })).records).toEqual([failed])
      expect((await a().listAuditRecords({ userId, type: ["signIn", "signOut"] })).records).toEqual([signOut, signIn])
      // By type alone (no user): this spec's records are among those the type finds, within its window.
      const byType = await a().listAuditRecords({ type: "signInFailed", since: new Date(now - 2_000), until: new Date(now - 1_999) })
      expect(byType.records.map((r) => r.id)).toContain(failed.id)
      expect(byType.records.every((r) => r.type === "signInFailed")).toBe(true)
    })

    it("lists by time: since inclusive, until exclusive, as Dates or ISO strings", async () => {
      const userId = someone()
      const at = (s: number) => now - 600_000 + s * 1_000
      const records = [0, 1, 2, 3, 4].map((s) => event(userId, at(s)))
      for (const record of records) await a().createAuditRecord(record)
      const ids = (page: AuditPage) => page.records.map((r) => r.id)
      expect(ids(await a().listAuditRecords({ userId, since: new Date(at(1)), until: new Date(at(3)) }))).toEqual([records[2]!.id, records[1]!.id])
      expect(ids(await a().listAuditRecords({ userId, since: new Date(at(3)).toISOString() }))).toEqual([records[4]!.id, records[3]!.id])
      expect(ids(await a().listAuditRecords({ userId, until: new Date(at(1)).toISOString() }))).toEqual([records[0]!.id])
    })

    it("pages with a cursor: every record once, in order, and no next after the last page", async () => {
      const userId = someone()
      const records = Array.from({ length: 7 }, (_, i) => event(userId, now - 200_000 + (i % 3) * 1_000))
      for (const record of records) await a().createAuditRecord(record)
      const first = await a().listAuditRecords({ userId, limit: 3 })
      expect(first.records).toHaveLength(3)
      expect(typeof first.next).toBe("string")
      const { records: all, pages } = await readAll(a(), { userId, limit: 3 })
      expect(pages).toBe(3)
      expect(all).toEqual(sortedNewestFirst(records))
      const exact = await readAll(a(), { userId, limit: 7 })
      expect(exact.pages).toBe(1)
    })

    it("pages without duplicates or gaps while records are written meanwhile", async () => {
      const userId = someone()
      const base = now - 400_000
      const existing = Array.from({ length: 40 }, (_, i) => event(userId, base + Math.floor(i / 2) * 1_000))
      await Promise.all(existing.map((record) => a().createAuditRecord(record)))
      const seen: AuditEvent[] = []
      let page = await a().listAuditRecords({ userId, limit: 6 })
      let writes = 0
      for (;;) {
        seen.push(...page.records)
        // While the next page is read: records newer than everything, as old as the page's
        // last, and older than everything, written at the same time as the read.
        const last = Date.parse(page.records.at(-1)!.time)
        const meanwhile = [event(userId, now - 1_000 + writes), event(userId, last), event(userId, base - 10_000 - writes)].map((record) => a().createAuditRecord(record))
        writes++
        if (!page.next) {
          await Promise.all(meanwhile)
          break
        }
        const [next] = await Promise.all([a().listAuditRecords({ userId, limit: 6, cursor: page.next }), ...meanwhile])
        page = next as AuditPage
      }
      const ids = seen.map((r) => r.id)
      expect(new Set(ids).size, "a record came twice").toBe(ids.length)
      for (const record of existing) expect(ids, "a record written before paging was skipped").toContain(record.id)
      expect(seen).toEqual(sortedNewestFirst(seen))
    })

    it("refuses a tampered or foreign cursor, and a malformed query, with InvalidAuditQuery", async () => {
      const userId = someone()
      for (const record of [event(userId, now - 2_000), event(userId, now - 1_000)]) await a().createAuditRecord(record)
      const { next } = await a().listAuditRecords({ userId, limit: 1 })
      expect(next).toBeDefined()
      // Every one-character change of the cursor: none may be read as some other position.
      const flipped = [...next!].map((c, i) => next!.slice(0, i) + (c === "A" ? "B" : "A") + next!.slice(i + 1))
      const cursors = [...flipped, next!.slice(0, -1), "not a cursor", "", "x".repeat(5_000), btoa("1.2.3"), btoa("-1.abc"), btoa(`${"9".repeat(20)}.abc`), btoa("1700000000000.' OR 1=1 --"), `${next}=`]
      for (const cursor of cursors) await expectRefused(a().listAuditRecords({ userId, cursor }))
      await expectRefused(a().listAuditRecords({ userId, type: "noSuchType" as AuditEventType }))
      await expectRefused(a().listAuditRecords({ userId, type: [] }))
      await expectRefused(a().listAuditRecords({ userId, since: "yesterday" }))
      await expectRefused(a().listAuditRecords({ userId, until: new Date(Number.NaN) }))
      for (const limit of [0, -1, 1.5, Number.NaN]) await expectRefused(a().listAuditRecords({ userId, limit }))
      // The untampered cursor still works after all that.
      expect((await a().listAuditRecords({ userId, limit: 1, cursor: next! })).records).toHaveLength(1)
    })

    it("answers 50 records a page by default and clamps a larger limit to 100", async () => {
      const userId = someone()
      const records = Array.from({ length: 120 }, (_, i) => event(userId, now - 900_000 + i))
      // In batches: a pool may cap the queries waiting for a connection (MySQL's at 100).
      for (let i = 0; i < records.length; i += 40) await Promise.all(records.slice(i, i + 40).map((record) => a().createAuditRecord(record)))
      const byDefault = await a().listAuditRecords({ userId })
      expect(byDefault.records).toHaveLength(50)
      const clamped = await a().listAuditRecords({ userId, limit: 1_000_000 })
      expect(clamped.records).toHaveLength(100)
      expect(clamped.next).toBeDefined()
      const rest = await a().listAuditRecords({ userId, limit: 1_000_000, cursor: clamped.next! })
      expect(rest.records).toHaveLength(20)
      expect(rest.next).toBeUndefined()
    })

    it("stores all of 50 concurrent writes", async () => {
      const userId = someone()
      const records = Array.from({ length: 50 }, (_, i) => event(userId, now - 50_000 + (i % 5)))
      await Promise.all(records.map((record) => a().createAuditRecord(record)))
      const { records: stored } = await readAll(a(), { userId, limit: 100 })
      expect(stored.map((r) => r.id).sort()).toEqual(records.map((r) => r.id).sort())
    })
  })

  describe("deleteAuditRecordsBefore (Portcullis audit extension)", () => {
    it("deletes the records older than the date, says how many, and keeps the rest", async () => {
      const userId = someone()
      // Far in the past: no other spec writes records this old, so the count is this spec's.
      const old = Array.from({ length: 4 }, (_, i) => event(userId, Date.UTC(1971, 0, 1) + i * 1_000))
      const boundary = event(userId, Date.UTC(1971, 6, 1))
      const recent = event(userId, now - 10_000)
      for (const record of [...old, boundary, recent]) await a().createAuditRecord(record)
      expect(await a().deleteAuditRecordsBefore(new Date(Date.UTC(1971, 6, 1)))).toBe(4)
      expect((await a().listAuditRecords({ userId })).records.map((r) => r.id)).toEqual([recent.id, boundary.id])
      expect(await a().deleteAuditRecordsBefore(new Date(Date.UTC(1971, 6, 1)))).toBe(0)
    })
  })
}
