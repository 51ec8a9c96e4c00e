/**
 * Attacks on the direct session read on SQLite (`src/direct-read.ts`, `SqliteConnection`
 * in `src/sqlite.ts`): ways a read run at once on the `node:sqlite` connection, outside
 * Kysely's queue, might answer what a read queued through Kysely would not — a revoked
 * session still valid, an uncommitted or half-done write, a row under the wrong names.
 * A passing spec here is an attack that failed (or, where it says so, a difference from
 * Kysely's road that is harmless); `a stream open on the connection` was a real hole.
 * Real SQLite files in the temporary directory; no SQLite mocks.
 */
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sql, type Kysely } from "kysely"
import type { AuthConfig } from "@portcullis/core"
import {
  createSqliteKysely,
  DEFAULT_TABLES,
  migrateToLatest,
  SqlAdapter,
} from "@portcullis/sql-adapter"
import { directReader } from "../src/direct-read.js"
import { Browser, direct as inProcess, SECRET } from "../../core/test/helpers.js"

const HOUR = 3_600_000
const files: string[] = []
const opened: Kysely<any>[] = []

function tempFile(label: string): string {
  const file = join(tmpdir(), `portcullis-direct-attack-${label}-${crypto.randomUUID()}.db`)
  files.push(file)
  return file
}

/** A Kysely on `file`, closed after the suite; `queued: true` keeps every query on Kysely's road. */
function open(file: string, queued = false): Kysely<any> {
  const db = createSqliteKysely(file, queued ? { log: () => {} } : {})
  opened.push(db)
  return db
}

/** The shared database: `fast` reads directly, `slow` is another connection on Kysely's road. */
let fast: Kysely<any>
let slow: Kysely<any>

beforeAll(async () => {
  const file = tempFile("shared")
  fast = open(file)
  await migrateToLatest(fast, { dialect: "sqlite" })
  slow = open(file, true)
})

afterAll(async () => {
  for (const db of opened) await db.destroy().catch(() => {})
  for (const file of files) for (const suffix of ["", "-wal", "-shm"]) await rm(file + suffix, { force: true })
})

/** A user and a session of theirs; the session expires in an hour (so a check extends it) unless told. */
async function userWithSession(db: Kysely<any>, user: { name?: string | null } = {}, expiresIn = HOUR) {
  const adapter = SqlAdapter(db)
  const created = await adapter.createUser!({ id: crypto.randomUUID(), email: `${crypto.randomUUID()}@example.com`, emailVerified: null, ...user })
  const sessionToken = `tok-${crypto.randomUUID()}`
  await adapter.createSession!({ sessionToken, userId: created.id, expires: new Date(Date.now() + expiresIn) })
  return { user: created, sessionToken }
}

/** Lets every queued microtask and one turn of the event loop run. */
const settle = () => new Promise((resolve) => setImmediate(resolve))
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Whether `promise` has settled after a few turns of the event loop. */
async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false
  void promise.then(() => (settled = true), () => (settled = true))
  for (let i = 0; i < 5; i++) await settle()
  return settled
}

const quietLogger = { error: () => {}, warn: () => {}, debug: () => {} }

/** A database-session configuration over `db` (one object per road: Auth keeps its runtime per object). */
function authConfig(db: Kysely<any>): AuthConfig {
  return { secret: SECRET, trustHost: true, providers: [], session: { strategy: "database" }, adapter: SqlAdapter(db), logger: quietLogger }
}

function browserWith(config: AuthConfig, sessionToken: string): Browser {
  const browser = new Browser(inProcess(config))
  browser.jar.set("authjs.session-token", { value: sessionToken, attributes: {} })
  return browser
}

describe("a stream open on the connection (real hole, fixed: `SqliteConnection` counts open iterations)", () => {
  // Kysely's `stream()` steps a statement row by row and holds the connection meanwhile.
  // SQLite keeps the connection's read transaction open while the statement is part way
  // through (autocommit, so `isTransaction` is false): a direct read there saw the
  // database as it was when the stream began. A session revoked on another connection
  // (another process on the same file, a CLI, a second Kysely) stayed valid here for as
  // long as the stream ran; a queued read waits for the stream and sees the revocation.
  it("a session revoked on another connection is not found: the read waits for the stream, as a queued read", async () => {
    const { sessionToken } = await userWithSession(fast)
    await userWithSession(fast)
    const adapter = SqlAdapter(fast)
    const rows = fast.selectFrom(DEFAULT_TABLES.users).selectAll().stream()[Symbol.asyncIterator]()
    let read: Promise<unknown> | undefined
    try {
      expect((await rows.next()).done).toBe(false)
      // Revoked and committed elsewhere, and the revoker told so.
      expect((await SqlAdapter(slow).deleteSession!(sessionToken))?.sessionToken).toBe(sessionToken)
      expect(await SqlAdapter(slow).getSessionAndUser!(sessionToken)).toBeNull()

      read = adapter.getSessionAndUser!(sessionToken)
      const early = await settlesSoon(read)
      // Before the fix it answered at once, with the revoked session.
      if (early) expect(await read).toBeNull()
      expect(early).toBe(false)
      expect(directReader(fast)!.read(`select 1 as "one"`, [])).toBeUndefined()
    } finally {
      await rows.return!()
    }
    expect(await read).toBeNull()
    // The stream closed: direct again.
    expect(directReader(fast)!.read(`select 1 as "one"`, [])).toEqual([{ one: 1 }])
  })

  it("through Auth(): /auth/session during a stream, after a sign-out elsewhere, answers signed out", async () => {
    const { sessionToken, user } = await userWithSession(fast, { name: "Streamed" })
    const config = authConfig(fast)
    expect((await browserWith(config, sessionToken).session())?.user?.email).toBe(user.email)
    const elsewhere = browserWith(authConfig(slow), sessionToken)
    const rows = fast.selectFrom(DEFAULT_TABLES.users).selectAll().stream()[Symbol.asyncIterator]()
    let check: Promise<unknown> | undefined
    try {
      await rows.next()
      expect((await elsewhere.signOut()).status).toBe(302)
      check = browserWith(config, sessionToken).session()
      const early = await settlesSoon(check)
      // Before the fix it answered at once: still signed in, as the revoked user.
      if (early) expect(await check).toBeNull()
      expect(early).toBe(false)
    } finally {
      await rows.return!()
    }
    expect(await check).toBeNull()
  })

  it("reads are direct again after a stream read to its end, left early (break) or failed part way", async () => {
    const reader = directReader(fast)!
    const probe = () => reader.read(`select 2 as "two"`, [])
    for await (const _ of fast.selectFrom(DEFAULT_TABLES.users).select("id").stream()) expect(probe()).toBeUndefined()
    expect(probe()).toEqual([{ two: 2 }])

    for await (const _ of fast.selectFrom(DEFAULT_TABLES.users).select("id").stream()) break
    expect(probe()).toEqual([{ two: 2 }])

    // The second row overflows: the statement fails part way through.
    const failing = fast
      .selectFrom(sql<{ n: number }>`(select 1 as n union all select 2 as n)`.as("t"))
      .select(sql<number>`case when n = 2 then abs(-9223372036854775807 - 1) else n end`.as("v"))
    const seen: unknown[] = []
    await expect((async () => {
      for await (const row of failing.stream()) seen.push(row.v)
    })()).rejects.toThrow(/overflow/)
    expect(seen).toEqual([1])
    expect(probe()).toEqual([{ two: 2 }])
  })
})
