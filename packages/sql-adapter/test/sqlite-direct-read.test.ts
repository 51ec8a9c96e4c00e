/**
 * The direct session read on SQLite (`src/direct-read.ts`): `getSessionAndUser` runs its
 * query at once on a `createSqliteKysely` connection instead of queueing through Kysely,
 * unless a transaction is open there. These specs hold it to the queued road's answers,
 * to the queued road's isolation under an open transaction, and under load.
 */
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Kysely } from "kysely"
import { createSqliteKysely, DEFAULT_TABLES, migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"
import { directReader } from "../src/direct-read.js"

const file = join(tmpdir(), `portcullis-direct-${crypto.randomUUID()}.db`)
/** The connection the direct reads run on. */
let direct: Kysely<any>
/** Another connection to the same file, every query through Kysely (a query log turns the direct road off). */
let queued: Kysely<any>

beforeAll(async () => {
  direct = createSqliteKysely(file)
  await migrateToLatest(direct, { dialect: "sqlite" })
  queued = createSqliteKysely(file, { log: () => {} })
})

afterAll(async () => {
  await direct?.destroy()
  await queued?.destroy()
  for (const suffix of ["", "-wal", "-shm"]) await rm(file + suffix, { force: true })
})

const HOUR = 3_600_000

async function userWithSession(db: Kysely<any>, user: { name?: string | null; image?: string | null; emailVerified?: Date | null } = {}) {
  const adapter = SqlAdapter(db, { sessionMetadata: true })
  const created = await adapter.createUser!({ id: crypto.randomUUID(), email: `${crypto.randomUUID()}@example.com`, emailVerified: null, ...user })
  const sessionToken = `tok-${crypto.randomUUID()}`
  await adapter.createSession!({ sessionToken, userId: created.id, expires: new Date(Date.now() + HOUR) })
  return { user: created, sessionToken }
}

/** Resolves when `gate` is opened; `open()` opens it. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

/** Lets every queued microtask and one turn of the event loop run. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

describe("which connections read directly", () => {
  it("a createSqliteKysely connection with no query log and no plugins", () => {
    expect(directReader(direct)).toBeDefined()
  })

  it("not one with a query log or plugins, nor one derived with a plugin or a schema: a direct read would pass them by", () => {
    expect(directReader(queued)).toBeUndefined()
    const plugin = { transformQuery: (args: { node: never }) => args.node, transformResult: async (args: { result: never }) => args.result }
    const withPlugins = createSqliteKysely(":memory:", { plugins: [plugin] })
    try {
      expect(directReader(withPlugins)).toBeUndefined()
    } finally {
      void withPlugins.destroy()
    }
    expect(directReader(direct.withPlugin(plugin))).toBeUndefined()
    expect(directReader(direct.withSchema("main"))).toBeUndefined()
  })

  it("names a statement's columns as Kysely's road does, and reads a `*` statement's columns anew after the schema changed", async () => {
    const reader = directReader(direct)!
    await direct.schema.createTable("shape_probe").addColumn("a", "text").addColumn("b", "integer").execute()
    await direct.insertInto("shape_probe").values({ a: "x", b: 1 }).execute()
    const named = `select "b" as "second", "a" as "first", "b" as "again" from "shape_probe"`
    const starred = `select * from "shape_probe"`
    expect(reader.read(named, [])).toEqual([{ second: 1, first: "x", again: 1 }])
    expect(reader.read(starred, [])).toEqual([{ a: "x", b: 1 }])
    await direct.schema.alterTable("shape_probe").addColumn("c", "text").execute()
    await direct.updateTable("shape_probe").set({ c: "new" }).execute()
    expect(reader.read(named, [])).toEqual([{ second: 1, first: "x", again: 1 }])
    expect(reader.read(starred, [])).toEqual([{ a: "x", b: 1, c: "new" }])
    expect(reader.read(starred, [])).toEqual((await queued.selectFrom("shape_probe").selectAll().execute()).map((row) => ({ ...row })))
    await direct.schema.dropTable("shape_probe").execute()
  })

  it("refuses a statement that yields no rows", () => {
    expect(() => directReader(direct)!.read(`delete from "${DEFAULT_TABLES.sessions}" where 0`, [])).toThrow(TypeError)
  })
})

describe("the same answers as Kysely's road", () => {
  it("for users with and without optional fields, session metadata, a column the app added and an unknown token", async () => {
    // The kept statement is prepared before the app adds a column (which widens `u.*`);
    // SQLite prepares it again by itself, and the rows keep their names.
    const before = await userWithSession(direct)
    expect((await SqlAdapter(direct).getSessionAndUser!(before.sessionToken))?.user.id).toBe(before.user.id)
    await direct.schema.alterTable(DEFAULT_TABLES.users).addColumn("plan", "text").execute()
    const seeded = [
      before,
      await userWithSession(direct),
      await userWithSession(direct, { name: "Ada Lovelace", image: "https://example.com/a.png", emailVerified: new Date("2024-01-02T03:04:05.678Z") }),
      await userWithSession(direct, { name: "", image: null }),
    ]
    await direct.updateTable(DEFAULT_TABLES.users).set({ plan: "pro" }).where("id", "=", seeded[2]!.user.id).execute()
    const tokens = [...seeded.map((s) => s.sessionToken), "no-such-token", "", "' or 1=1 --"]
    for (const sessionMetadata of [false, true]) {
      const fast = SqlAdapter(direct, { sessionMetadata })
      const slow = SqlAdapter(queued, { sessionMetadata })
      for (const token of tokens) {
        const [a, b] = [await fast.getSessionAndUser!(token), await slow.getSessionAndUser!(token)]
        expect(a).toEqual(b)
        // The same JavaScript types too (dates as Date, absent as null or left out alike).
        expect(JSON.stringify(a)).toBe(JSON.stringify(b))
      }
    }
    const found = await SqlAdapter(direct).getSessionAndUser!(seeded[2]!.sessionToken)
    expect(found?.user).toMatchObject({ id: seeded[2]!.user.id, name: "Ada Lovelace", image: "https://example.com/a.png" })
    expect(found?.user.emailVerified).toEqual(new Date("2024-01-02T03:04:05.678Z"))
  })
})

/**
 * A transaction on the direct connection that has deleted the session and waits, open,
 * until `release.open()`; then it commits or rolls back. Resolves once the DELETE ran.
 */
async function deletingInTransaction(sessionToken: string, outcome: "commit" | "rollback") {
  const release = gate()
  const deleted = gate()
  const transaction = direct.transaction().execute(async (trx) => {
    await trx.deleteFrom(DEFAULT_TABLES.sessions).where("sessionToken", "=", sessionToken).execute()
    deleted.open()
    await release.opened
    if (outcome === "rollback") throw new Error("rolled back on purpose")
  }).then(() => "committed", (error: Error) => error.message)
  await deleted.opened
  return { transaction, release }
}

describe("a transaction open on the connection", () => {
  it("a read waits for it as a queued read would, and never sees its uncommitted writes (rolled back)", async () => {
    const { sessionToken } = await userWithSession(direct)
    const adapter = SqlAdapter(direct)
    const { transaction, release } = await deletingInTransaction(sessionToken, "rollback")

    let settled = false
    const read = adapter.getSessionAndUser!(sessionToken).finally(() => (settled = true))
    for (let i = 0; i < 5; i++) await settle()
    // Still queued behind the transaction: a read run now on this connection would have
    // answered "no session" from the uncommitted DELETE.
    expect(settled).toBe(false)
    // Another connection sees the committed row meanwhile (WAL isolation).
    expect((await SqlAdapter(queued).getSessionAndUser!(sessionToken))?.session.sessionToken).toBe(sessionToken)

    release.open()
    expect(await transaction).toBe("rolled back on purpose")
    expect((await read)?.session.sessionToken).toBe(sessionToken)
  })

  it("a read queued behind a transaction that commits sees its outcome", async () => {
    const { sessionToken } = await userWithSession(direct)
    const adapter = SqlAdapter(direct)
    const { transaction, release } = await deletingInTransaction(sessionToken, "commit")
    const read = adapter.getSessionAndUser!(sessionToken)
    release.open()
    await transaction
    expect(await read).toBeNull()
    // And once the connection is idle again, reads are direct and agree.
    expect(await adapter.getSessionAndUser!(sessionToken)).toBeNull()
  })
})

describe("50 at once", () => {
  it("reads interleaved with extensions, deletions and a transaction each see a committed state", async () => {
    const adapter = SqlAdapter(direct)
    const sessions = await Promise.all(Array.from({ length: 50 }, () => userWithSession(direct)))
    const later = new Date(Date.now() + 2 * HOUR)
    const work: Promise<unknown>[] = []
    const reads: Promise<{ token: string; found: Awaited<ReturnType<NonNullable<typeof adapter.getSessionAndUser>>> }>[] = []
    sessions.forEach(({ sessionToken }, i) => {
      reads.push(adapter.getSessionAndUser!(sessionToken).then((found) => ({ token: sessionToken, found })))
      if (i % 3 === 0) work.push(adapter.updateSession!({ sessionToken, expires: later }))
      if (i % 5 === 0) work.push(adapter.deleteSession!(sessionToken))
      if (i % 7 === 0) {
        work.push(direct.transaction().execute(async (trx) => {
          await trx.updateTable(DEFAULT_TABLES.sessions).set({ expires: new Date(0) }).where("sessionToken", "=", sessionToken).execute()
          await settle()
          throw new Error("rolled back on purpose")
        }).catch(() => undefined))
      }
      reads.push(adapter.getSessionAndUser!(sessionToken).then((found) => ({ token: sessionToken, found })))
    })
    const [results] = await Promise.all([Promise.all(reads), Promise.all(work)])
    expect(results).toHaveLength(100)
    for (const { token, found } of results) {
      if (found === null) continue // deleted before this read
      expect(found.session.sessionToken).toBe(token)
      // Never the rolled-back epoch: only committed expiries.
      expect(found.session.expires.getTime()).toBeGreaterThan(Date.now())
    }
    // Afterwards both roads agree on every session.
    const slow = SqlAdapter(queued)
    for (const { sessionToken } of sessions) {
      expect(await adapter.getSessionAndUser!(sessionToken)).toEqual(await slow.getSessionAndUser!(sessionToken))
    }
  })
})

describe("a closed connection", () => {
  it("rejects the read with the database's error; nothing throws synchronously", async () => {
    const closing = createSqliteKysely(join(tmpdir(), `portcullis-direct-closed-${crypto.randomUUID()}.db`))
    await migrateToLatest(closing, { dialect: "sqlite" })
    const { sessionToken } = await userWithSession(closing)
    const adapter = SqlAdapter(closing)
    expect(await adapter.getSessionAndUser!(sessionToken)).not.toBeNull()
    await closing.destroy()
    let read: Promise<unknown> | undefined
    expect(() => (read = adapter.getSessionAndUser!(sessionToken))).not.toThrow()
    await expect(read).rejects.toThrow()
  })
})
