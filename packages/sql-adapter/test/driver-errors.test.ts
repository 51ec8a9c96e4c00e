/**
 * The driver-error helpers of `@portcullis/sql-adapter/migrations`, which every extension's
 * SQL store uses: each driver's real unique-key error reads as a duplicate (and not as a
 * retryable one), a real deadlock reads as retryable, and `retrying` gets two transactions
 * that deadlock each other both through. Real SQLite, PostgreSQL and MariaDB.
 */
import { afterAll, describe, expect, it } from "vitest"
import type { Kysely } from "kysely"
import { mysqlAvailable, postgresAvailable } from "@portcullis/adapter-test"
import { dropTables, mariadbBackend, postgresBackend, randomTablePrefix, sqliteBackend, type SqlBackend } from "@portcullis/adapter-test/sql"
import { isDuplicate, isRetryable, retrying } from "@portcullis/sql-adapter/migrations"

const postgresGate = await postgresAvailable()
const mariadbGate = await mysqlAvailable()

/** The error `work` rejects with (it must reject). */
async function failure(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work()
  } catch (error) {
    return error
  }
  throw new Error("expected a failure")
}

function duplicateSpec(backend: SqlBackend) {
  const db: Kysely<any> = backend.connect()
  const table = `${randomTablePrefix("pcdup")}items`
  afterAll(async () => {
    await dropTables(db, [table])
    await db.destroy()
    await backend.cleanup?.()
  })

  it("reads the driver's primary-key and unique-index refusals as duplicates, not as retryable", async () => {
    await db.schema.createTable(table).addColumn("id", "varchar(64)", (c) => c.primaryKey()).addColumn("name", "varchar(64)").execute()
    await db.schema.createIndex(`${table}_name_key`).on(table).column("name").unique().execute()
    await db.insertInto(table).values({ id: "a", name: "first" }).execute()

    const samePrimaryKey = await failure(() => db.insertInto(table).values({ id: "a", name: "other" }).execute())
    const sameName = await failure(() => db.insertInto(table).values({ id: "b", name: "first" }).execute())
    for (const error of [samePrimaryKey, sameName]) {
      expect(isDuplicate(error)).toBe(true)
      expect(isRetryable(error)).toBe(false)
    }
    // Another refusal of the same statement is not a duplicate.
    const missingTable = await failure(() => db.insertInto(`${table}_none`).values({ id: "c" }).execute())
    expect(isDuplicate(missingTable)).toBe(false)
    expect(isRetryable(missingTable)).toBe(false)
  })
}

function deadlockSpec(backend: SqlBackend) {
  const db: Kysely<any> = backend.connect()
  const table = `${randomTablePrefix("pcdead")}rows`
  afterAll(async () => {
    await dropTables(db, [table])
    await db.destroy()
  })

  it("reads a real deadlock as retryable, and retrying gets both transactions through", async () => {
    await db.schema.createTable(table).addColumn("id", "varchar(8)", (c) => c.primaryKey()).addColumn("n", "integer", (c) => c.notNull()).execute()
    await db.insertInto(table).values([{ id: "x", n: 0 }, { id: "y", n: 0 }]).execute()

    // Each transaction locks its first row, waits until the other has locked its own, then
    // asks for the other's: a lock cycle the database breaks by rolling one back.
    let arrived = 0
    let bothLocked!: () => void
    const barrier = new Promise<void>((resolve) => (bothLocked = resolve))
    const errors: unknown[] = []
    const attempts = { xy: 0, yx: 0 }
    const bump = (trx: Kysely<any>, id: string) => trx.updateTable(table).set((eb) => ({ n: eb("n", "+", 1) })).where("id", "=", id).execute()
    const crossing = (first: string, second: string, name: "xy" | "yx") =>
      retrying(async () => {
        attempts[name]++
        try {
          await db.transaction().execute(async (trx) => {
            await bump(trx, first)
            if (++arrived === 2) bothLocked()
            await barrier
            await bump(trx, second)
          })
        } catch (error) {
          errors.push(error)
          throw error
        }
      })

    await Promise.all([crossing("x", "y", "xy"), crossing("y", "x", "yx")])

    expect(errors.length).toBeGreaterThanOrEqual(1)
    for (const error of errors) expect(isRetryable(error)).toBe(true)
    expect(attempts.xy + attempts.yx).toBe(2 + errors.length)
    // Both ran to the end exactly once: each row was bumped by each transaction.
    const rows = await db.selectFrom(table).select(["id", "n"]).orderBy("id").execute()
    expect(rows.map((r) => [r.id, Number(r.n)])).toEqual([["x", 2], ["y", 2]])
  })
}

describe("retrying", () => {
  it("throws any other error at once, after one attempt", async () => {
    let calls = 0
    const refused = Object.assign(new Error("duplicate"), { code: "23505" })
    await expect(retrying(async () => {
      calls++
      throw refused
    })).rejects.toBe(refused)
    expect(calls).toBe(1)
  })

  it("gives up after 5 attempts in all, throwing the last retryable error", async () => {
    let calls = 0
    await expect(retrying(async () => {
      calls++
      throw Object.assign(new Error(`deadlock ${calls}`), { code: "40P01" })
    })).rejects.toThrow("deadlock 5")
    expect(calls).toBe(5)
  })
})

describe("driver errors on SQLite (node:sqlite)", () => duplicateSpec(sqliteBackend("pcdup")))
postgresGate.describe("driver errors on PostgreSQL", () => {
  duplicateSpec(postgresBackend())
  deadlockSpec(postgresBackend())
})
mariadbGate.describe("driver errors on MariaDB", () => {
  duplicateSpec(mariadbBackend())
  deadlockSpec(mariadbBackend())
})
