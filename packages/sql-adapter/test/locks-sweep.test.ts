/**
 * Lock keys that are taken once and left to expire — two-factor attempt slots, one per
 * challenge and attempt — do not pile up in the locks table: every 100th `acquireLock`
 * deletes the expired rows (issue 28). Live locks are kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"

describe("expired lock rows are swept as locks are taken", () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await openTestDatabase("sqlite")
  })
  afterAll(() => database.close())

  const rows = async () => (await database.db.selectFrom(database.tables.locks).select("key").execute()).map((r) => String(r.key))

  it("250 one-off keys that expired leave fewer than 100 rows, and a live lock stays held", async () => {
    const { adapter } = database
    expect(await adapter.acquireLock!("live", "holder", 60_000)).toBe(true)
    for (let i = 0; i < 250; i++) expect(await adapter.acquireLock!(`two-factor:challenge:${i}:1`, `owner-${i}`, 1)).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 5))
    for (let i = 250; i < 300; i++) await adapter.acquireLock!(`two-factor:challenge:${i}:1`, `owner-${i}`, 1)
    const left = await rows()
    expect(left.length).toBeLessThan(100)
    expect(left).toContain("live")
    expect(await adapter.acquireLock!("live", "intruder", 60_000)).toBe(false)
  })
})
