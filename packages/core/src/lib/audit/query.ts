/**
 * Audit trail queries (issue 29): what a query may ask, how it is checked, and the cursor
 * that pages through the answer. One module for core's `auditTrail` and every adapter's
 * `listAuditRecords`, so a query means the same on every store: newest first, ordered by
 * (time, id), a page of at most {@link AUDIT_PAGE_MAX}, and the next page keyed on the last
 * record's position — never an offset, so records written meanwhile neither repeat nor skip
 * one already listed.
 * @module
 */
import { InvalidAuditQuery } from "../../errors.js"
import { AUDIT_EVENT_TYPES, EXTENSION_AUDIT_TYPE, type AuditEvent, type AuditEventType } from "./events.js"

/** Records a page has when the query names no `limit`. */
export const AUDIT_PAGE_DEFAULT = 50
/** The most records one page has: a larger `limit` is clamped to it. */
export const AUDIT_PAGE_MAX = 100

/**
 * What an audit trail query asks for (`auditTrail(config, query)`, an adapter's
 * `listAuditRecords`). Every filter is optional; the records come newest first.
 */
export interface AuditQuery {
  /** Only this user's records. */
  userId?: string
  /** Only records of this type, or of any of these types. */
  type?: AuditEventType | readonly AuditEventType[]
  /** Only records at or after this time (a `Date` or an ISO 8601 string). */
  since?: Date | string
  /** Only records before this time (exclusive). */
  until?: Date | string
  /** Records per page: default {@link AUDIT_PAGE_DEFAULT}, at most {@link AUDIT_PAGE_MAX} (a larger one is clamped). */
  limit?: number
  /** The `next` of the previous page, to read on from there. */
  cursor?: string
}

/** One page of the trail: its records, newest first, and `next` when there are more. */
export interface AuditPage {
  records: AuditEvent[]
  /** Pass it as `cursor` for the next page; absent on the last page. */
  next?: string
}

/** Where a record sits in the trail's order: its time in milliseconds, then its id. */
export interface AuditPosition {
  time: number
  id: string
}

/** A query checked and normalised, as a store runs it. */
export interface CheckedAuditQuery {
  userId?: string
  /** The types to keep; absent for every type. */
  types?: AuditEventType[]
  /** Milliseconds, inclusive. */
  since?: number
  /** Milliseconds, exclusive. */
  until?: number
  limit: number
  /** Only records strictly before this position (the cursor's). */
  after?: AuditPosition
}

/** An event id as `audit()` makes them (a UUID), or any short id of safe characters. */
const ID = /^[A-Za-z0-9_-]{1,64}$/
const CURSOR = /^(\d{1,15})\.([A-Za-z0-9_-]{1,64})\.([0-9a-z]{1,7})$/

/**
 * Checks `query` and normalises it for a store.
 *
 * @throws InvalidAuditQuery for anything malformed: an unknown type, a date that is none, a
 * limit below 1 or not an integer, a cursor this module did not write. A `limit` above
 * {@link AUDIT_PAGE_MAX} is clamped to it, not refused.
 */
export function checkAuditQuery(query: AuditQuery = {}): CheckedAuditQuery {
  if (query === null || typeof query !== "object") throw new InvalidAuditQuery("An audit query must be an object")
  const checked: CheckedAuditQuery = { limit: AUDIT_PAGE_DEFAULT }
  if (query.userId !== undefined) {
    // NUL is in no user id a store can hold, and PostgreSQL fails the whole query on it: an
    // app passing `?user=%00` through would answer 500 where every other store says nothing.
    if (typeof query.userId !== "string" || query.userId === "" || query.userId.includes("\u0000")) throw new InvalidAuditQuery("userId must be a non-empty string without NUL")
    checked.userId = query.userId
  }
  if (query.type !== undefined) {
    const types = typeof query.type === "string" ? [query.type] : query.type
    if (!Array.isArray(types) || types.length === 0) throw new InvalidAuditQuery("type must be an audit event type or a non-empty list of them")
    for (const type of types) {
      // The type is echoed only when it is one of ours: a query's input may be anything.
      if (typeof type !== "string" || !((AUDIT_EVENT_TYPES as readonly string[]).includes(type) || EXTENSION_AUDIT_TYPE.test(type))) throw new InvalidAuditQuery("type names an unknown audit event type")
    }
    checked.types = [...new Set(types as AuditEventType[])]
  }
  if (query.since !== undefined) checked.since = instant(query.since, "since")
  if (query.until !== undefined) checked.until = instant(query.until, "until")
  if (query.limit !== undefined) {
    if (typeof query.limit !== "number" || !Number.isInteger(query.limit) || query.limit < 1) throw new InvalidAuditQuery("limit must be an integer of at least 1")
    checked.limit = Math.min(query.limit, AUDIT_PAGE_MAX)
  }
  if (query.cursor !== undefined) checked.after = readCursor(query.cursor)
  return checked
}

function instant(value: unknown, name: string): number {
  const time = value instanceof Date ? value.getTime() : typeof value === "string" ? Date.parse(value) : Number.NaN
  if (!Number.isFinite(time)) throw new InvalidAuditQuery(`${name} must be a Date or an ISO 8601 date`)
  return time
}

/** The cursor of the page after `record`: its position, encoded so callers treat it as opaque. */
export function auditCursor(record: Pick<AuditEvent, "time" | "id">): string {
  const position = `${Date.parse(record.time)}.${record.id}`
  return base64url(`${position}.${checksum(position)}`)
}

/**
 * A check on the cursor's position, so a cursor changed by a character (a truncated copy, a
 * client poking at it) is refused instead of read as another position. Not a signature:
 * anyone can compute it, and need not be stopped — a position grants nothing.
 */
function checksum(text: string): string {
  // FNV-1a, 32 bits.
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return (hash >>> 0).toString(36)
}

/**
 * The position a cursor names. A cursor is a position in the trail, not a permission: a
 * caller who may run a query may start it anywhere, so it carries no signature — but anything
 * that is not a cursor this module wrote (checksum included) is refused as a bad query,
 * never passed to a store.
 */
function readCursor(cursor: unknown): AuditPosition {
  const refused = () => new InvalidAuditQuery("cursor is not a cursor of the audit trail")
  if (typeof cursor !== "string" || cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refused()
  let text: string
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)))
  } catch {
    throw refused()
  }
  const match = CURSOR.exec(text)
  if (!match) throw refused()
  const time = Number(match[1])
  if (!Number.isSafeInteger(time) || base64url(text) !== cursor || checksum(`${match[1]}.${match[2]}`) !== match[3]) throw refused()
  return { time, id: match[2]! }
}

function base64url(text: string): string {
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

/** Whether `record` matches the filters of `query` (every filter but the position). */
export function matchesAuditQuery(record: AuditEvent, query: CheckedAuditQuery): boolean {
  const time = Date.parse(record.time)
  if (query.userId !== undefined && record.userId !== query.userId) return false
  if (query.types !== undefined && !query.types.includes(record.type)) return false
  if (query.since !== undefined && time < query.since) return false
  if (query.until !== undefined && time >= query.until) return false
  if (query.after !== undefined && !isBefore({ time, id: record.id }, query.after)) return false
  return true
}

/** Whether position `a` comes after `b` in the trail's order (newest first: older, or as old with a smaller id). */
export function isBefore(a: AuditPosition, b: AuditPosition): boolean {
  return a.time < b.time || (a.time === b.time && a.id < b.id)
}

/** The trail's order, newest first: for a store that sorts in memory. */
export function newestFirst(a: Pick<AuditEvent, "time" | "id">, b: Pick<AuditEvent, "time" | "id">): number {
  const ta = Date.parse(a.time)
  const tb = Date.parse(b.time)
  if (ta !== tb) return tb - ta
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}

/**
 * The page of a query from the records a store found: `found` is newest first and may hold
 * one record more than `limit`, which only says a next page exists.
 */
export function auditPage(found: AuditEvent[], limit: number): AuditPage {
  if (found.length <= limit) return { records: found }
  const records = found.slice(0, limit)
  return { records, next: auditCursor(records[limit - 1]!) }
}

/** Whether `id` is an id a store can key a record on (what `audit()` writes always is). */
export function isAuditId(id: unknown): id is string {
  return typeof id === "string" && ID.test(id)
}
