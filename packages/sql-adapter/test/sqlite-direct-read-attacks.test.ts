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
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CompiledQuery, sql, type Kysely } from "kysely"
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

/**
 * Holds `db`'s connection in an open transaction until `release.resolve()`. A read-only
 * one: a write transaction would hold SQLite's write lock, and another connection's writes
 * would then wait on it synchronously, the event loop with them (up to `busy_timeout`).
 */
function holdConnection(db: Kysely<any>) {
  const release = Promise.withResolvers<void>()
  const transaction = db.transaction().execute(async (trx) => {
    await trx.selectFrom(DEFAULT_TABLES.users).select("id").limit(1).execute()
    await release.promise
  })
  return { release, transaction }
}

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
    const { release, transaction } = holdConnection(fast)
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
    const { release, transaction } = holdConnection(fast)
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

describe("statement shape and caching", () => {
  it("the users table rebuilt by another connection (columns reordered, one added, SQLite's table-rebuild ALTER): the kept statement reads the right values on both roads", async () => {
    const file = tempFile("rebuild")
    const db = open(file)
    await migrateToLatest(db, { dialect: "sqlite" })
    const queued = open(file, true)
    const { sessionToken } = await userWithSession(db, { name: "Grace" })
    const before = await SqlAdapter(db).getSessionAndUser!(sessionToken)
    const other = new DatabaseSync(file)
    try {
      other.exec(`PRAGMA busy_timeout = 2000; PRAGMA foreign_keys = OFF; BEGIN;
        CREATE TABLE users_new ("image" text, "plan" text, "emailVerified" text, "email" varchar(255), "name" text, "id" varchar(255) primary key);
        INSERT INTO users_new ("image", "plan", "emailVerified", "email", "name", "id") SELECT "image", 'pro', "emailVerified", "email", "name", "id" FROM "${DEFAULT_TABLES.users}";
        DROP TABLE "${DEFAULT_TABLES.users}";
        ALTER TABLE users_new RENAME TO "${DEFAULT_TABLES.users}";
        COMMIT;`)
    } finally {
      other.close()
    }
    const [a, b] = [await SqlAdapter(db).getSessionAndUser!(sessionToken), await SqlAdapter(queued).getSessionAndUser!(sessionToken)]
    expect(a).toEqual(before)
    expect(JSON.stringify(a)).toBe(JSON.stringify(b))
  })

  it("a column the query names dropped, then added back: both roads fail meanwhile, and the kept statement recovers", async () => {
    const file = tempFile("drop")
    const db = open(file)
    await migrateToLatest(db, { dialect: "sqlite" })
    const queued = open(file, true)
    const { sessionToken } = await userWithSession(db)
    expect(await SqlAdapter(db).getSessionAndUser!(sessionToken)).not.toBeNull()
    await queued.schema.alterTable(DEFAULT_TABLES.users).dropColumn("image").execute()
    await expect(SqlAdapter(db).getSessionAndUser!(sessionToken)).rejects.toThrow(/no such column/)
    await expect(SqlAdapter(queued).getSessionAndUser!(sessionToken)).rejects.toThrow(/no such column/)
    await queued.schema.alterTable(DEFAULT_TABLES.users).addColumn("image", "text").execute()
    expect(await SqlAdapter(db).getSessionAndUser!(sessionToken)).toEqual(await SqlAdapter(queued).getSessionAndUser!(sessionToken))
    expect((await SqlAdapter(db).getSessionAndUser!(sessionToken))?.session.sessionToken).toBe(sessionToken)
  })

  it("a column renamed in case only (harmless difference): the kept statement keeps the name it read; a fresh one, like Kysely's road, takes the table's", async () => {
    // SQLite names an unaliased column as the table declares it. Kysely's road then keys
    // the row `NAME` and `userFromRow` reads no name; the direct statement prepared before
    // the rename still says `name`. The value is never wrong, only missing on one road.
    const file = tempFile("case")
    const db = open(file)
    await migrateToLatest(db, { dialect: "sqlite" })
    const { sessionToken } = await userWithSession(db, { name: "Ada" })
    expect((await SqlAdapter(db).getSessionAndUser!(sessionToken))?.user.name).toBe("Ada")
    await db.schema.alterTable(DEFAULT_TABLES.users).renameColumn("name", "NAME").execute()
    expect((await SqlAdapter(db).getSessionAndUser!(sessionToken))?.user.name).toBe("Ada")
    expect((await SqlAdapter(open(file, true)).getSessionAndUser!(sessionToken))?.user.name).toBeNull()
    expect((await SqlAdapter(open(file)).getSessionAndUser!(sessionToken))?.user.name).toBeNull()
  })

  it("300 direct statements and 300 Kysely statements (both caches evicted): the session read stays right, and a statement returning arrays never serves Kysely", async () => {
    const reader = directReader(fast)!
    const adapter = SqlAdapter(fast)
    const { sessionToken } = await userWithSession(fast)
    const expected = await SqlAdapter(slow).getSessionAndUser!(sessionToken)
    expect(await adapter.getSessionAndUser!(sessionToken)).toEqual(expected)
    for (let i = 0; i < 300; i++) expect(reader.read(`select ? as "v${i}"`, [i])).toEqual([{ [`v${i}`]: i }])
    for (let i = 0; i < 300; i++) {
      const rows = (await fast.executeQuery(CompiledQuery.raw(`select ? as "k${i}"`, [i]))).rows
      expect(rows.map((row) => ({ ...(row as object) }))).toEqual([{ [`k${i}`]: i }])
    }
    expect(await adapter.getSessionAndUser!(sessionToken)).toEqual(expected)
    // The same SQL on both roads, in both orders: each road gets rows as objects.
    for (const [first, second] of [["direct", "kysely"], ["kysely", "direct"]] as const) {
      const text = `select ? as "shared_a", ? as "shared_b" -- ${first}`
      for (const road of [first, second]) {
        const rows = road === "direct" ? reader.read(text, [1, 2])! : (await fast.executeQuery(CompiledQuery.raw(text, [1, 2]))).rows
        expect(Array.isArray(rows[0])).toBe(false)
        expect({ ...(rows[0] as object) }).toEqual({ shared_a: 1, shared_b: 2 })
      }
    }
  })

  it("`__proto__`, `constructor`, duplicate and odd column names: nothing reaches Object.prototype, and both roads name alike", async () => {
    const reader = directReader(fast)!
    const statements = [
      `select 1 as "__proto__", 2 as "x"`,
      `select 2 as "constructor", 3 as "x", 4 as "x", 5 as "hasOwnProperty", 6 as "toString", 7 as "", 8 as "a""b"`,
      `select 'polluted' as "polluted", 9 as "__proto__"`,
    ]
    for (const text of statements) {
      const directRows = reader.read(text, [])!
      const kyselyRows = (await fast.executeQuery(CompiledQuery.raw(text, []))).rows as Record<string, unknown>[]
      expect(Object.keys(directRows[0]!)).toEqual(Object.keys(kyselyRows[0]!))
      for (const key of Object.keys(kyselyRows[0]!)) expect(directRows[0]![key]).toBe(kyselyRows[0]![key])
    }
    expect(({} as Record<string, unknown>).x).toBeUndefined()
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.getPrototypeOf({})).toBe(Object.prototype)
  })

  it("odd stored values and odd tokens, written by another program: both roads answer alike", async () => {
    const file = tempFile("odd")
    const db = open(file)
    await migrateToLatest(db, { dialect: "sqlite" })
    const queued = open(file, true)
    const other = new DatabaseSync(file)
    const tokens = ["nul\u0000inside", "x".repeat(100_000), "émoji 🔑", "\uFFFD", "' or 1=1 --", "%", "_"]
    try {
      other.exec("PRAGMA busy_timeout = 2000")
      const insertUser = other.prepare(`insert into "${DEFAULT_TABLES.users}" ("id", "name", "email", "emailVerified", "image") values (?, ?, ?, ?, ?)`)
      const insertSession = other.prepare(`insert into "${DEFAULT_TABLES.sessions}" ("id", "sessionToken", "userId", "expires") values (?, ?, ?, ?)`)
      // An integer epoch date, a blob name, a number image, a float date.
      insertUser.run("odd-1", new Uint8Array([0, 255]), "odd@example.com", Date.UTC(2024, 0, 2), 42)
      insertUser.run("odd-2", "Plain", "plain@example.com", 1.5e12, null)
      tokens.forEach((token, i) => insertSession.run(`s-${i}`, token, i % 2 === 0 ? "odd-1" : "odd-2", i % 2 === 0 ? Date.now() + HOUR : new Date(Date.now() + HOUR).toISOString()))
    } finally {
      other.close()
    }
    for (const sessionMetadata of [false, true]) {
      for (const token of [...tokens, "\uD800", "nul", "x".repeat(99_999), "%%"]) {
        const a = await SqlAdapter(db, { sessionMetadata }).getSessionAndUser!(token)
        const b = await SqlAdapter(queued, { sessionMetadata }).getSessionAndUser!(token)
        expect(a).toEqual(b)
        expect(JSON.stringify(a)).toBe(JSON.stringify(b))
      }
    }
    expect((await SqlAdapter(db).getSessionAndUser!("nul\u0000inside"))?.user.id).toBe("odd-1")
    expect(await SqlAdapter(db).getSessionAndUser!("nul")).toBeNull()
  })
})

describe("the connection on a bad day", () => {
  it("another connection's write transaction (WAL): the direct read sees the committed row, then the commit; a checkpoint between reads changes nothing", async () => {
    const file = tempFile("wal")
    const db = open(file)
    await migrateToLatest(db, { dialect: "sqlite" })
    const { sessionToken } = await userWithSession(db)
    const adapter = SqlAdapter(db)
    const other = new DatabaseSync(file)
    try {
      other.exec("PRAGMA busy_timeout = 2000")
      for (const begin of ["BEGIN IMMEDIATE", "BEGIN EXCLUSIVE"]) {
        other.exec(begin)
        other.prepare(`delete from "${DEFAULT_TABLES.sessions}" where "sessionToken" = ?`).run(sessionToken)
        const started = performance.now()
        expect((await adapter.getSessionAndUser!(sessionToken))?.session.sessionToken).toBe(sessionToken)
        expect(performance.now() - started).toBeLessThan(1_000) // WAL: no wait on the writer
        other.exec("ROLLBACK")
      }
      other.exec("BEGIN IMMEDIATE")
      other.prepare(`delete from "${DEFAULT_TABLES.sessions}" where "sessionToken" = ?`).run(sessionToken)
      other.exec("COMMIT")
      expect(await adapter.getSessionAndUser!(sessionToken)).toBeNull()
      other.exec("PRAGMA wal_checkpoint(TRUNCATE)")
      expect(await adapter.getSessionAndUser!(sessionToken)).toBeNull()
      const again = await userWithSession(db)
      other.exec("PRAGMA wal_checkpoint(TRUNCATE)")
      expect((await adapter.getSessionAndUser!(again.sessionToken))?.session.sessionToken).toBe(again.sessionToken)
    } finally {
      other.close()
    }
  })

  it("destroyed under load: reads direct and queued, and a transaction, all settle (a committed row or the database's error); none throws synchronously", async () => {
    const file = tempFile("destroy")
    const db = open(file)
    await migrateToLatest(db, { dialect: "sqlite" })
    const seeded = await Promise.all(Array.from({ length: 10 }, () => userWithSession(db, { name: "committed" })))
    const adapter = SqlAdapter(db)
    const all: Promise<unknown>[] = []
    const read = (token: string) => {
      let promise!: Promise<unknown>
      expect(() => (promise = adapter.getSessionAndUser!(token) as Promise<unknown>)).not.toThrow()
      all.push(promise.then((found: any) => {
        if (found) {
          expect(found.session.sessionToken).toBe(token)
          expect(found.user.name).toBe("committed")
        }
      }))
    }
    for (const { sessionToken } of seeded) read(sessionToken)
    all.push(db.transaction().execute(async (trx) => {
      await trx.updateTable(DEFAULT_TABLES.users).set({ name: "uncommitted" }).execute()
      await sleep(5)
      await trx.updateTable(DEFAULT_TABLES.users).set({ name: "uncommitted 2" }).execute()
    }))
    await settle()
    for (let i = 0; i < 30; i++) read(seeded[i % 10]!.sessionToken)
    const destroyed = db.destroy()
    for (let i = 0; i < 10; i++) read(seeded[i]!.sessionToken)
    await destroyed
    for (let i = 0; i < 10; i++) read(seeded[i]!.sessionToken)
    const outcomes = await Promise.race([Promise.allSettled(all), sleep(3_000).then(() => "hung" as const)])
    expect(outcomes).not.toBe("hung")
    const settled = outcomes as PromiseSettledResult<unknown>[]
    expect(settled.filter((o) => o.status === "fulfilled").length).toBeGreaterThanOrEqual(10)
    for (const o of settled) if (o.status === "rejected") expect(String(o.reason)).toMatch(/not open|destroyed|closed/i)
  })
})
