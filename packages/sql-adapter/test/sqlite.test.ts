import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { createSqliteKysely } from "@portcullis/sql-adapter"
import { runSqlSuites } from "./harness.js"

// Both suites share one file (their tables have distinct prefixes); it and its WAL side
// files go when the second suite has closed.
const file = join(tmpdir(), `portcullis-${crypto.randomUUID()}.db`)
runSqlSuites("SQLite (node:sqlite)", "sqlite", (config) => createSqliteKysely(file, config), async () => {
  for (const suffix of ["", "-wal", "-shm"]) await rm(file + suffix, { force: true })
})

describe("createSqliteKysely", () => {
  it("stores dates as ISO 8601 text and booleans as integers", async () => {
    const db = createSqliteKysely(":memory:")
    try {
      await db.schema.createTable("t").addColumn("d", "text").addColumn("b", "integer").execute()
      await db.insertInto("t").values({ d: new Date("2024-05-06T07:08:09.010Z"), b: true }).execute()
      expect(await db.selectFrom("t").selectAll().execute()).toEqual([{ d: "2024-05-06T07:08:09.010Z", b: 1 }])
    } finally {
      await db.destroy()
    }
  })

  it("enforces foreign keys", async () => {
    const db = createSqliteKysely(":memory:")
    try {
      await db.schema.createTable("parent").addColumn("id", "text", (c) => c.primaryKey()).execute()
      await db.schema.createTable("child").addColumn("parentId", "text", (c) => c.references("parent.id")).execute()
      await expect(db.insertInto("child").values({ parentId: "missing" }).execute()).rejects.toThrow(/FOREIGN KEY/)
    } finally {
      await db.destroy()
    }
  })
})
