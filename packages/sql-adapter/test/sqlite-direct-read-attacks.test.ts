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
import { Migrator } from "kysely/migration"
import type { AuthConfig } from "@portcullis/core"
import {
  createSqliteKysely,
  DEFAULT_MIGRATION_TABLE,
  DEFAULT_TABLES,
  migrateToLatest,
  schemaMigrations,
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

describe("isolation: transactions, savepoints, held connections, migrations", () => {
  it("a controlled transaction with a savepoint: reads queue while it is open and never see the rolled-back savepoint's delete", async () => {
    const { sessionToken } = await userWithSession(fast)
    const adapter = SqlAdapter(fast)
    const trx = await fast.startTransaction().execute()
    const afterSavepoint = await trx.savepoint("before_delete").execute()
    await afterSavepoint.deleteFrom(DEFAULT_TABLES.sessions).where("sessionToken", "=", sessionToken).execute()
    const duringDelete = adapter.getSessionAndUser!(sessionToken)
    expect(await settlesSoon(duringDelete)).toBe(false)
    await afterSavepoint.rollbackToSavepoint("before_delete").execute()
    const afterRollbackTo = adapter.getSessionAndUser!(sessionToken)
    expect(await settlesSoon(afterRollbackTo)).toBe(false)
    // Elsewhere, the committed row all along.
    expect(await SqlAdapter(slow).getSessionAndUser!(sessionToken)).not.toBeNull()
    await trx.commit().execute()
    expect((await duringDelete)?.session.sessionToken).toBe(sessionToken)
    expect((await afterRollbackTo)?.session.sessionToken).toBe(sessionToken)
  })

  it("a nested savepoint released then the transaction rolled back: the queued reads answer the committed row", async () => {
    const { sessionToken } = await userWithSession(fast)
    const adapter = SqlAdapter(fast)
    const reads: Promise<unknown>[] = []
    await fast.transaction().execute(async (trx) => {
      await trx.updateTable(DEFAULT_TABLES.users).set({ name: "uncommitted" }).execute()
      await sql`savepoint inner_sp`.execute(trx)
      await trx.deleteFrom(DEFAULT_TABLES.sessions).where("sessionToken", "=", sessionToken).execute()
      reads.push(adapter.getSessionAndUser!(sessionToken))
      await sql`release inner_sp`.execute(trx)
      await settle()
      reads.push(adapter.getSessionAndUser!(sessionToken))
      throw new Error("rolled back on purpose")
    }).catch(() => undefined)
    for (const found of (await Promise.all(reads)) as Awaited<ReturnType<NonNullable<ReturnType<typeof SqlAdapter>["getSessionAndUser"]>>>[]) {
      expect(found?.session.sessionToken).toBe(sessionToken)
      expect(found?.user.name).not.toBe("uncommitted")
    }
  })

  it("a raw BEGIN outside Kysely's transaction API: the read falls back to Kysely's road, which runs inside it (as before the change)", async () => {
    // Not this change's to fix: with a BEGIN sent as a plain query, Kysely does not hold
    // the connection, and every query on it (any request's) joins that transaction.
    const { sessionToken } = await userWithSession(fast)
    const adapter = SqlAdapter(fast)
    await sql`begin`.execute(fast)
    try {
      await fast.deleteFrom(DEFAULT_TABLES.sessions).where("sessionToken", "=", sessionToken).execute()
      expect(directReader(fast)!.read(`select 1 as "one"`, [])).toBeUndefined()
      expect(await adapter.getSessionAndUser!(sessionToken)).toBeNull()
    } finally {
      await sql`rollback`.execute(fast)
    }
    expect((await adapter.getSessionAndUser!(sessionToken))?.session.sessionToken).toBe(sessionToken)
  })

  it("db.connection() held across awaits, no transaction: a direct read answers at once what other connections see (a queued one would wait for the holder, or deadlock inside it)", async () => {
    const { sessionToken } = await userWithSession(fast)
    const adapter = SqlAdapter(fast)
    const seen = await fast.connection().execute(async (connection) => {
      await SqlAdapter(connection).deleteSession!(sessionToken)
      await sleep(2)
      // Autocommitted: another connection sees it too. Queued, this read would wait for
      // the connection its own caller holds.
      expect(await SqlAdapter(slow).getSessionAndUser!(sessionToken)).toBeNull()
      return adapter.getSessionAndUser!(sessionToken)
    })
    expect(seen).toBeNull()
  })

  it("a migration on the connection (SQLite has no transactional DDL: Kysely holds the connection, no BEGIN): interleaved reads find the session or fail, never answer signed out", async () => {
    // Kysely's road on the same connection waits while the Migrator holds the connection
    // (the migrations themselves), not during its setup queries before; the direct road
    // can also run between the migrations' statements. Only code interleaving at
    // microtask level gets there (a migration on SQLite never waits for I/O), and on
    // either road the worst a read sees is a column not there yet: an error (core answers
    // 503), never a wrong answer.
    const migrationsFirstTwo = () => {
      const all = schemaMigrations("sqlite", DEFAULT_TABLES)
      return { "0001_initial_schema": all["0001_initial_schema"]!, "0002_rate_limits": all["0002_rate_limits"]! }
    }
    async function outcomesDuringMigration(queued: boolean) {
      const db = open(tempFile(queued ? "migrate-queued" : "migrate-direct"), queued)
      const { error } = await new Migrator({
        db,
        provider: { getMigrations: async () => migrationsFirstTwo() },
        migrationTableName: DEFAULT_MIGRATION_TABLE,
        migrationLockTableName: `${DEFAULT_MIGRATION_TABLE}_lock`,
      }).migrateToLatest()
      expect(error).toBeUndefined()
      const { sessionToken } = await userWithSession(db)
      const plain = SqlAdapter(db)
      const withMetadata = SqlAdapter(db, { sessionMetadata: true })
      let done = false
      const migrating = migrateToLatest(db, { dialect: "sqlite" }).finally(() => (done = true))
      const outcomes: string[] = []
      const outcome = (read: Promise<unknown>) => read.then((found) => (found ? "found" : "null"), (error: Error) => `error: ${error.message}`)
      while (!done) {
        outcomes.push(await outcome(Promise.resolve(plain.getSessionAndUser!(sessionToken))))
        outcomes.push(await outcome(Promise.resolve(withMetadata.getSessionAndUser!(sessionToken))))
      }
      expect(await migrating).toContain("0003_session_management")
      expect(await plain.getSessionAndUser!(sessionToken)).not.toBeNull()
      expect(await withMetadata.getSessionAndUser!(sessionToken)).not.toBeNull()
      return outcomes
    }
    for (const queued of [true, false]) {
      const outcomes = await outcomesDuringMigration(queued)
      // The direct road did run between the migration's statements.
      if (!queued) expect(outcomes.length).toBeGreaterThan(2)
      expect(outcomes).not.toContain("null")
      for (const o of outcomes) expect(o).toMatch(/^(found|error: no such column: s\.createdAt)$/)
    }
  })
})

describe("ordering, through Auth() with database sessions", () => {
  it("50 browsers on both roads, checks in flight, renames and sign-outs while a transaction holds the connection: a check after a sign-out is signed out, on either road", async () => {
    const fastConfig = authConfig(fast)
    const slowConfig = authConfig(slow)
    const seeded = await Promise.all(Array.from({ length: 50 }, (_, i) => userWithSession(fast, { name: `user ${i}` })))
    // A read-only transaction (a write one would hold SQLite's write lock, and the other
    // connection's writes would wait on it synchronously: see the next spec).
    const release = Promise.withResolvers<void>()
    const transaction = fast.transaction().execute(async (trx) => {
      await trx.selectFrom(DEFAULT_TABLES.users).select("id").limit(1).execute()
      await release.promise
    })
    try {
      await settle()
      const inFlight: Promise<{ body: any; email: string | null }>[] = []
      const flows = seeded.map(async ({ sessionToken, user }, i) => {
        const road = i % 2 === 0 ? fastConfig : slowConfig
        const other = i % 2 === 0 ? slowConfig : fastConfig
        for (let k = 0; k < 3; k++) inFlight.push(browserWith(road, sessionToken).session().then((body) => ({ body, email: user.email })))
        if (i % 5 === 0) {
          // A rename committed on one road, then a check on the other shows it.
          await SqlAdapter(i % 2 === 0 ? slow : fast).updateUser!({ id: user.id, name: `renamed ${i}` })
          expect((await browserWith(other, sessionToken).session())?.user?.name).toBe(`renamed ${i}`)
        }
        expect((await browserWith(road, sessionToken).signOut()).status).toBe(302)
        // Signed out, on both roads, from the moment the sign-out answered.
        expect(await browserWith(road, sessionToken).session()).toBeNull()
        expect(await browserWith(other, sessionToken).session()).toBeNull()
        expect(await SqlAdapter(fast).getSessionAndUser!(sessionToken)).toBeNull()
      })
      // Held while the flows start; what waits on this connection answers once it is released.
      await sleep(20)
      release.resolve()
      await Promise.all(flows)
      for (const { body, email } of await Promise.all(inFlight)) if (body !== null) expect(body.user.email).toBe(email)
    } finally {
      release.resolve()
      await transaction
    }
  })

  it("a write transaction held open: 50 checks and 10 sign-outs on its connection, checks on another; none sees its uncommitted writes, none is signed in after its sign-out answered", async () => {
    const fastConfig = authConfig(fast)
    const slowConfig = authConfig(slow)
    // Not due for extension (30 days, core's maxAge): a check on the other connection then
    // only reads, and never waits on the write lock held here.
    const seeded = await Promise.all(Array.from({ length: 50 }, () => userWithSession(fast, { name: "committed" }, 30 * 24 * HOUR)))
    const release = Promise.withResolvers<void>()
    const transaction = fast.transaction().execute(async (trx) => {
      await trx.updateTable(DEFAULT_TABLES.users).set({ name: "uncommitted" }).execute()
      await trx.deleteFrom(DEFAULT_TABLES.sessions).where("sessionToken", "=", seeded[1]!.sessionToken).execute()
      await release.promise
      throw new Error("rolled back on purpose")
    }).catch((error: Error) => error.message)
    try {
      await settle()
      const checks = seeded.flatMap(({ sessionToken }) => [fastConfig, slowConfig].map((config) => browserWith(config, sessionToken).session()))
      const signOuts = seeded.slice(0, 20).filter((_, i) => i % 2 === 0).map(async ({ sessionToken }) => {
        expect((await browserWith(fastConfig, sessionToken).signOut()).status).toBe(302)
        expect(await browserWith(fastConfig, sessionToken).session()).toBeNull()
        expect(await browserWith(slowConfig, sessionToken).session()).toBeNull()
      })
      await sleep(10)
      release.resolve()
      expect(await transaction).toBe("rolled back on purpose")
      await Promise.all(signOuts)
      for (const body of await Promise.all(checks)) if (body !== null) expect(body.user.name).toBe("committed")
      // The rolled-back delete never happened.
      expect(await browserWith(fastConfig, seeded[1]!.sessionToken).session()).not.toBeNull()
    } finally {
      release.resolve()
      await transaction
    }
  })

  it("a sign-out whose DELETE waits behind an open transaction: a check that starts meanwhile waits behind it too, and answers signed out", async () => {
    const { sessionToken } = await userWithSession(fast)
    const adapter = SqlAdapter(fast)
    const deleting = Promise.withResolvers<void>()
    const config: AuthConfig = {
      ...authConfig(fast),
      adapter: { ...adapter, deleteSession: (token: string) => (deleting.resolve(), adapter.deleteSession!(token)) },
    }
    const release = Promise.withResolvers<void>()
    const transaction = fast.transaction().execute(async (trx) => {
      await trx.selectFrom(DEFAULT_TABLES.users).select("id").limit(1).execute()
      await release.promise
    })
    try {
      await settle()
      const signOut = browserWith(config, sessionToken).signOut()
      await deleting.promise
      // The sign-out's DELETE is queued behind the transaction; a check now falls back to
      // Kysely's queue behind the DELETE (it is not answered "still signed in" first).
      const check = browserWith(config, sessionToken).session()
      expect(await settlesSoon(check)).toBe(false)
      release.resolve()
      expect((await signOut).status).toBe(302)
      expect(await check).toBeNull()
    } finally {
      release.resolve()
      await transaction
    }
  })
})
