/**
 * The Redis adapter's audit capability (docs/observability.md, "Storing the audit trail"):
 * each record a JSON string, and three kinds of index — every record, per user, per type —
 * as sorted sets whose members sort lexically in the trail's order (`<time>:<id>`, time as
 * 15 digits), so a page is one `ZREVRANGEBYLEX` from the cursor's member on: a keyset, never
 * an offset. Pruning deletes the records and their index entries in batches, so the trail
 * stays as long as the retention, not as long as the app has run.
 * @module
 */
import type { RedisClient } from "./client.js"
import { auditPage, checkAuditQuery, isAuditId, type Adapter, type AuditEvent, type AuditPosition, type AuditQuery } from "@portcullis/core/adapters"
import type { RedisKeys } from "./keys.js"

/** Index members read per round trip while a page is filled or old records are pruned. */
const BATCH = 200

/**
 * Stores the record KEYS[1] (ARGV[1]) unless its id is taken, then adds the member ARGV[2]
 * to every index KEYS[2..]: one script, so a record is never listed without being stored,
 * and a retried write of one id adds nothing.
 */
const CREATE_SCRIPT = `
if not redis.call("SET", KEYS[1], ARGV[1], "NX") then return 0 end
for i = 2, #KEYS do redis.call("ZADD", KEYS[i], 0, ARGV[2]) end
return 1
`

/** The index member of a position: lexical order of members = the trail's order. */
function member(position: AuditPosition): string {
  return `${String(position.time).padStart(15, "0")}:${position.id}`
}

function positionOf(value: string): AuditPosition {
  const colon = value.indexOf(":")
  return { time: Number(value.slice(0, colon)), id: value.slice(colon + 1) }
}

type AuditMethods = Required<Pick<Adapter, "createAuditRecord" | "listAuditRecords" | "deleteAuditRecordsBefore">>

export function redisAuditTrail(client: RedisClient, k: RedisKeys): AuditMethods {
  return {
    async createAuditRecord(record: AuditEvent) {
      const time = Date.parse(record.time)
      if (!isAuditId(record.id) || !Number.isFinite(time) || time < 0) throw new Error("createAuditRecord: the record needs an id of letters, digits, - and _ and an ISO 8601 time")
      const indexes = [k.auditAll(), k.auditByType(record.type), ...(record.userId === undefined ? [] : [k.auditByUser(record.userId)])]
      await client.eval(CREATE_SCRIPT, 1 + indexes.length, k.auditRecord(record.id), ...indexes, JSON.stringify(record), member({ time, id: record.id }))
    },

    async listAuditRecords(query: AuditQuery) {
      const q = checkAuditQuery(query)
      // The narrowest indexes: a user's (its records' types checked as they are read), else one
      // per type asked for, merged — never the whole trail filtered by type, which a query for
      // rare types would read to its end in one call.
      const sources = q.userId !== undefined ? [k.auditByUser(q.userId)] : q.types !== undefined ? q.types.map((type) => k.auditByType(type)) : [k.auditAll()]
      const checked = q.userId !== undefined && q.types !== undefined
      // Lexical bounds: `(` excludes, `[` includes. Members of one time share its 15 digits,
      // so `(<until>` stops before `until` and `[<since>` starts at `since`.
      const upper = [q.after === undefined ? undefined : member(q.after), q.until === undefined ? undefined : String(q.until).padStart(15, "0")].filter((b) => b !== undefined).sort()[0]
      let max = upper === undefined ? "+" : `(${upper}`
      const min = q.since === undefined ? "-" : `[${String(q.since).padStart(15, "0")}`
      const found: AuditEvent[] = []
      while (found.length <= q.limit) {
        // Every member read from an unchecked source is a match: read only what the page lacks.
        const want = checked ? BATCH : q.limit + 1 - found.length
        const lists = await Promise.all(sources.map((index) => client.zrevrangebylex(index, max, min, "LIMIT", 0, want)))
        // A record is in one type's index only, so the merged members are distinct; newest first.
        const members = lists.flat().sort().reverse().slice(0, want)
        if (members.length === 0) break
        const values = await client.mget(...members.map((m) => k.auditRecord(positionOf(m).id)))
        for (const value of values) {
          if (value === null) continue // pruned since the member was read
          const record = JSON.parse(value) as AuditEvent
          if (q.types !== undefined && !q.types.includes(record.type)) continue
          if (q.userId !== undefined && record.userId !== q.userId) continue
          found.push(record)
          if (found.length > q.limit) break
        }
        if (members.length < want) break
        max = `(${members.at(-1)!}`
      }
      return auditPage(found, q.limit)
    },

    async deleteAuditRecordsBefore(before: Date) {
      // An Invalid Date is no bound (PostgreSQL fails on it, the rest would delete nothing): refused on every store.
      if (!(before instanceof Date) || !Number.isFinite(before.getTime())) throw new TypeError("deleteAuditRecordsBefore needs a valid Date")
      const bound = `(${String(Math.max(0, before.getTime())).padStart(15, "0")}`
      let deleted = 0
      for (;;) {
        const members = await client.zrangebylex(k.auditAll(), "-", bound, "LIMIT", 0, BATCH)
        if (members.length === 0) return deleted
        const keys = members.map((m) => k.auditRecord(positionOf(m).id))
        const values = await client.mget(...keys)
        const batch = client.multi()
        // Which replies are the records' DELs: only those count.
        const dels: number[] = []
        let queued = 0
        members.forEach((m, i) => {
          const value = values[i]
          if (value) {
            const record = JSON.parse(value) as AuditEvent
            batch.zrem(k.auditByType(record.type), m)
            queued++
            if (record.userId !== undefined) {
              batch.zrem(k.auditByUser(record.userId), m)
              queued++
            }
          }
          batch.del(keys[i]!)
          dels.push(queued++)
        })
        batch.zrem(k.auditAll(), ...members)
        const replies = (await batch.exec()) ?? []
        for (const [error] of replies) if (error) throw error
        // Only this call's DELs count: two runtimes pruning at once never count a record twice.
        for (const at of dels) deleted += Number(replies[at]![1])
      }
    },
  }
}
